import Foundation
import Randomness

/// A pinhole camera somewhere around the person, looking at them.
public struct VirtualCamera: Sendable {
  public let width: Double
  public let height: Double
  /// Focal length in pixels.
  public let focal: Double
  let eye: Vector3
  let right: Vector3
  let up: Vector3
  let forward: Vector3

  /// Where cameras may stand. Angles in degrees; azimuth 0 is in front of the person (who faces
  /// +z), 90 their left side, 180 behind.
  public struct Range: Sendable {
    public var azimuth: ClosedRange<Double>
    public var elevation: ClosedRange<Double>
    public var roll: ClosedRange<Double>
    /// Distance as a multiple of what just fits the body; below 1 cuts off hands or feet.
    public var framing: ClosedRange<Double>
    /// Horizontal field of view.
    public var fieldOfView: ClosedRange<Double>

    /// Any view a phone or webcam might have.
    public static let any = Range(
      azimuth: 0...360, elevation: -10...60, roll: -6...6, framing: 0.85...2.4, fieldOfView: 50...85
    )
    public static let front = Range(
      azimuth: -20...20, elevation: 0...20, roll: -2...2, framing: 1.1...1.8, fieldOfView: 55...75)
    public static let side = Range(
      azimuth: 70...110, elevation: 0...20, roll: -2...2, framing: 1.1...1.8, fieldOfView: 55...75)
    public static let oblique = Range(
      azimuth: 30...60, elevation: 5...30, roll: -3...3, framing: 1.1...1.8, fieldOfView: 55...75)
    public static let back = Range(
      azimuth: 160...200, elevation: 0...20, roll: -2...2, framing: 1.1...1.8, fieldOfView: 55...75)

    /// A phone propped on the floor in front of the person, looking up at them from 2–3.5 m.
    public static let floor = Range(
      azimuth: -30...30, elevation: -30...(-15), roll: -4...4, framing: 1.0...1.8,
      fieldOfView: 55...80)
    /// A camera on a shelf or a wall, looking down from above head height.
    public static let elevated = Range(
      azimuth: 0...360, elevation: 35...60, roll: -3...3, framing: 1.1...1.8, fieldOfView: 55...75)

    /// The views `--camera` names.
    public static let names = ["any", "front", "side", "oblique", "back", "floor", "elevated"]

    public static func named(_ name: String) -> Range? {
      [
        "any": .any, "front": .front, "side": .side, "oblique": .oblique, "back": .back,
        "floor": .floor, "elevated": .elevated,
      ][name]
    }
  }

  /// Where cameras stand across many recordings: ranges, each drawn for its share of them.
  public struct Mix: Sendable {
    public var parts: [(share: Double, range: Range)]

    /// Today's training cameras: `Range.any` alone.
    public static let any = Mix(parts: [(1, .any)])
    /// Every angle: round the person evenly from the floor to well above the head, with more
    /// of the views home workouts use: three in ten from the front half-circle's middle, one
    /// in five from a phone on the floor in front, and about 28% from above 35° (a camera on a
    /// shelf or in a corner of the ceiling; `any` has 36% there).
    public static let everyAngle = Mix(parts: [
      (
        0.35,
        Range(
          azimuth: 0...360, elevation: -30...60, roll: -6...6, framing: 0.85...2.4,
          fieldOfView: 50...85)
      ),
      (
        0.3,
        Range(
          azimuth: -45...45, elevation: -10...40, roll: -6...6, framing: 0.85...2.4,
          fieldOfView: 50...85)
      ),
      (0.2, .floor),
      (
        0.15,
        Range(
          azimuth: 0...360, elevation: 35...65, roll: -4...4, framing: 0.85...2.4,
          fieldOfView: 50...85)
      ),
    ])

    public static func named(_ name: String) -> Mix? {
      ["any": .any, "every-angle": .everyAngle][name]
    }

    /// One recording's range. A mix of one range draws nothing from `generator`, so the
    /// recordings it makes are those of the range alone.
    public func draw(using generator: inout SeededGenerator) -> Range {
      guard parts.count > 1 else { return parts[0].range }
      var left = generator.unit() * parts.reduce(0) { $0 + $1.share }
      for part in parts {
        left -= part.share
        if left < 0 { return part.range }
      }
      return parts[parts.count - 1].range
    }
  }

  /// A camera drawn from `range`, aimed at `target`, far enough to frame `extent` metres.
  public static func random(
    _ range: Range, target: Vector3, extent: Double, generator: inout SeededGenerator
  ) -> VirtualCamera {
    func draw(_ r: ClosedRange<Double>) -> Double {
      r.lowerBound + (r.upperBound - r.lowerBound) * generator.unit()
    }
    let portrait = generator.unit() < 0.3
    let (width, height): (Double, Double) =
      portrait ? (720, 1280) : (generator.unit() < 0.5 ? (1280, 720) : (640, 480))
    let fov = radians(draw(range.fieldOfView))
    let focal = width / 2 / tan(fov / 2)
    let azimuth = radians(draw(range.azimuth))
    let elevation = radians(draw(range.elevation))
    let fitting = min(width, height) / 2 / focal  // tan of the narrower half-angle
    let distance = max(0.8, extent / 2 / fitting * draw(range.framing))
    let direction = Vector3(
      sin(azimuth) * cos(elevation), sin(elevation), cos(azimuth) * cos(elevation))
    return VirtualCamera(
      width: width, height: height, focal: focal, eye: target + direction * distance,
      target: target, roll: radians(draw(range.roll)))
  }

  init(width: Double, height: Double, focal: Double, eye: Vector3, target: Vector3, roll: Double) {
    self.width = width
    self.height = height
    self.focal = focal
    self.eye = eye
    let forward = (target - eye).normalized
    var right = Vector3.cross(forward, Vector3(0, 1, 0))
    if right.length < 1e-6 { right = Vector3(1, 0, 0) }  // straight overhead
    right = right.normalized
    let up = Vector3.cross(right, forward)
    self.forward = forward
    self.right = right * cos(roll) + up * sin(roll)
    self.up = up * cos(roll) - right * sin(roll)
  }

  /// Pixel coordinates (y down) of a world point, or nil when it is behind the camera.
  public func project(_ point: Vector3) -> (x: Double, y: Double)? {
    let relative = point - eye
    let depth = Vector3.dot(relative, forward)
    guard depth > 0.05 else { return nil }
    return (
      width / 2 + focal * Vector3.dot(relative, right) / depth,
      height / 2 - focal * Vector3.dot(relative, up) / depth
    )
  }

  /// How far in front of the camera a point is, along its view direction.
  public func depth(of point: Vector3) -> Double { Vector3.dot(point - eye, forward) }

  /// The direction the camera looks along.
  var viewDirection: Vector3 { forward }

  /// Where the camera stands, for file headers: degrees round from the person's front (the
  /// +z side; 90 is their left) and up from level, and the horizontal field of view.
  public var placement: String {
    let back = forward * -1
    let round = (atan2(back.x, back.z) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
    let up = asin(max(-1, min(1, back.y))) * 180 / .pi
    let fieldOfView = 2 * atan(width / 2 / focal) * 180 / .pi
    return String(format: "camera %.0f° round, %.0f° up, %.0f° wide", round, up, fieldOfView)
  }
}
