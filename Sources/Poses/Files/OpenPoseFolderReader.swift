import Foundation

/// Reads a folder of OpenPose per-frame JSON files (`*_keypoints.json`, as `--write_json`
/// writes them), in file-name order, at `fps` frames per second.
///
/// Each file holds `{"people": [{"pose_keypoints_2d": [x, y, c, ...]}, ...]}`: 25 joints for
/// BODY_25 (`openpose25`), 18 for the COCO model (`createml18`). A bad file is reported and
/// skipped; its frame is still counted, so the times of the rest do not shift.
public final class OpenPoseFolderReader: PoseSource {
  public let header: PoseFileHeader
  public let name: String
  private let files: [String]
  private var index = 0
  private var raw: [Float] = []

  /// - Parameter layout: the model's layout; by default the first person's value count tells
  ///   (75 values: BODY_25, 54: COCO-18), and a folder with nobody in it is read as BODY_25.
  public init(folder: String, fps: Double = 30, layout: PoseLayout? = nil) throws {
    name = folder
    let entries: [String]
    do {
      entries = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw PoseFileError(
        file: folder, message: "cannot list the folder: \(error.localizedDescription)")
    }
    files = entries.filter { $0.hasSuffix(".json") }.sorted()
    guard !files.isEmpty else {
      throw PoseFileError(file: folder, message: "the folder has no OpenPose .json files")
    }
    let resolved = layout ?? Self.detectLayout(folder: folder, files: files)
    guard resolved == .openpose25 || resolved == .createml18 else {
      throw PoseFileError(
        file: folder, message: "OpenPose writes openpose25 or createml18, not \(resolved.rawValue)")
    }
    header = PoseFileHeader(layout: resolved, fps: fps, source: "openpose")
  }

  /// The layout of the first person found: 18 joints is COCO-18, anything else BODY_25.
  private static func detectLayout(folder: String, files: [String]) -> PoseLayout {
    for file in files {
      let path = (folder as NSString).appendingPathComponent(file)
      guard let data = FileManager.default.contents(atPath: path),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let people = object["people"] as? [[String: Any]],
        let values = people.first?["pose_keypoints_2d"] as? [Any]
      else { continue }
      return values.count == 3 * PoseLayout.createml18.jointCount ? .createml18 : .openpose25
    }
    return .openpose25
  }

  public func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
    guard index < files.count else { return .end }
    let file = (name as NSString).appendingPathComponent(files[index])
    index += 1
    frame.t = Double(index - 1) / header.fps
    frame.box = header.space.frameBox
    frame.line = index
    frame.people.removeAll(keepingCapacity: true)
    func bad(_ message: String) -> PoseReadResult {
      .skipped(PoseFileError(file: file, message: message))
    }
    guard let data = FileManager.default.contents(atPath: file) else {
      return bad("cannot read the file")
    }
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      return bad("not a JSON object")
    }
    guard let people = object["people"] as? [[String: Any]] else {
      return bad("no \"people\" array of objects")
    }
    let jointCount = header.layout.jointCount
    for (number, person) in people.enumerated() {
      guard let values = person["pose_keypoints_2d"] as? [Double] else {
        return bad("person \(number) has no \"pose_keypoints_2d\" array of numbers")
      }
      guard values.count == 3 * jointCount else {
        return bad(
          "person \(number) has \(values.count) values in \"pose_keypoints_2d\"; "
            + "\(header.layout.rawValue) needs \(3 * jointCount) (x, y, c for \(jointCount) "
            + "joints)"
        )
      }
      if let wrong = values.firstIndex(where: { !$0.isFinite }) {
        return bad(
          "person \(number): value \(wrong) is \(values[wrong]); coordinates must be finite")
      }
      raw = values.map { Float($0) }
      // OpenPose writes 0, 0, 0 for a joint it did not find: confidence 0 is already missing.
      if let negative = stride(from: 2, to: raw.count, by: 3).first(where: { raw[$0] < 0 }) {
        return bad(
          "person \(number): confidence of joint \(negative / 3) is \(raw[negative]); it must "
            + "be 0 or more"
        )
      }
      let pose = raw.withUnsafeBufferPointer {
        header.layout.canonicalPose(from: $0, space: header.space)
      }
      frame.people.append(pose)
    }
    return .frame
  }
}
