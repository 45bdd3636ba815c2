import Foundation
import Poses

#if canImport(Glibc)
  import Glibc
#endif

/// Pose data made up for tests and benchmarks: a stick figure doing squats, seen from the
/// front, in pixels.
public enum Fixtures {
  /// The figure at time `t`: a squat every `period` seconds, centred at `centreX`, standing
  /// `height` pixels tall on a floor at y = 400.
  public static func squatter(
    at t: Double, period: Double = 2, centreX: Float = 320, height: Float = 300,
    confidence: Float = 0.9
  ) -> Pose {
    let depth = Float((1 - cos(2 * Double.pi * t / period)) / 2)  // 0 standing, 1 at the bottom
    let floor: Float = 400
    let unit = height / 7.5  // a head is one seventh-and-a-half of a body
    let shin = 2 * unit
    let thigh = 2 * unit
    let kneeY = floor - shin
    let hipY = kneeY - thigh * (1 - 0.8 * depth)
    let kneeSpread = unit * (0.6 + 0.6 * depth)
    let shoulderY = hipY - 2.8 * unit
    var pose = Pose()
    func set(_ joint: CanonicalJoint, _ x: Float, _ y: Float) {
      pose[joint] = Joint(x: x, y: y, confidence: confidence)
    }
    // The person faces the camera: their right side is on the image's left.
    for (side, sign) in [(0, Float(-1)), (1, Float(1))] {
      let right = side == 0
      set(right ? .rightAnkle : .leftAnkle, centreX + sign * 0.6 * unit, floor)
      set(right ? .rightKnee : .leftKnee, centreX + sign * kneeSpread, kneeY)
      set(right ? .rightHip : .leftHip, centreX + sign * 0.5 * unit, hipY)
      set(right ? .rightShoulder : .leftShoulder, centreX + sign * 0.9 * unit, shoulderY)
      set(right ? .rightElbow : .leftElbow, centreX + sign * 1.0 * unit, shoulderY + 1.3 * unit)
      set(
        right ? .rightWrist : .leftWrist, centreX + sign * 0.8 * unit,
        shoulderY + 2.4 * unit - depth * unit)
      set(right ? .rightEye : .leftEye, centreX + sign * 0.2 * unit, shoulderY - 1.1 * unit)
      set(right ? .rightEar : .leftEar, centreX + sign * 0.4 * unit, shoulderY - 1.0 * unit)
    }
    set(.nose, centreX, shoulderY - 0.9 * unit)
    set(.neck, centreX, shoulderY)
    return pose
  }

  /// A TCP port on 127.0.0.1 that nothing listens on now (the system's choice); nil when none
  /// can be bound.
  public static func freeTCPPort() -> UInt16? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    return bound ? UInt16(bigEndian: address.sin_port) : nil
  }

  /// A fresh temporary folder for one test to write below. All of them live in one folder per
  /// test process, removed when the process exits, so test runs leave nothing behind.
  public static func temporaryFolder(_ name: String = "spotter-tests") -> String {
    let path = processFolder + "/\(name)-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// Short enough that a socket path below it stays under the 108-byte limit of `sun_path`.
  private static let processFolder: String = {
    let path = NSTemporaryDirectory() + "spotter-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: Fixtures.processFolder) }
    return path
  }()

  /// Writes `text` to a file in a temporary folder and returns its path.
  public static func file(named name: String = "poses.jsonl", _ text: String) -> String {
    let path = temporaryFolder() + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
  }

  /// A JSON Lines pose file of the squatter, `frames` frames at `fps`, as text.
  public static func squatFile(frames: Int, fps: Double = 30, layout: PoseLayout = .coco17)
    -> String
  {
    let header = PoseFileHeader(layout: layout, fps: fps, source: "fixture")
    var lines = [header.jsonLine]
    lines.reserveCapacity(frames + 1)
    for index in 0..<frames {
      let t = Double(index) / fps
      lines.append(PoseFileWriter.jsonFrameLine(t: t, people: [squatter(at: t)], header: header))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Reads every frame of a source, collecting frames and bad-line errors.
  public static func readAll(_ source: any PoseSource) throws -> (
    frames: [PeopleFrame], errors: [PoseFileError]
  ) {
    var frames: [PeopleFrame] = []
    var errors: [PoseFileError] = []
    try source.readAll {
      frames.append($0)
    } skipped: {
      errors.append($0)
    }
    return (frames, errors)
  }
}
