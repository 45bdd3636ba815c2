import Poses
import Randomness

/// Changes poses as another detector would (`spotter eval --shake`, `--scores`,
/// `--frame-rate`): how much a measure on a real set owes to the detector that made it. Each
/// joint of each person moves by seeded Gaussian noise of `deviation` times the person's box
/// (the larger of its width and height); then the box is put back where it was, as a pipeline
/// that normalises every frame to its own box does after the detector (and, for other streams,
/// a crop that follows the person). With `scores`, every detected joint's score is drawn from
/// that range, each frame: a detector that scores on a scale of its own. With `frameRate`, only
/// the frames a detector running that many times a second would have given are kept: the first
/// at or after each 1/rate seconds from the stream's first frame, with its own time. With a
/// `quirk`, each pose as another pipeline passes it on (`InputQuirk`).
public struct PoseShaker: Sendable {
  public let deviation: Float
  public let scores: ClosedRange<Float>?
  public let frameRate: Double?
  public let quirk: InputQuirk?

  /// What other pipelines do to poses before Spotter sees them (`spotter eval --quirk`).
  public enum InputQuirk: String, Sendable, CaseIterable {
    /// Each frame's joints min-max normalised to their own box (Countix-Fitness' MediaPipe).
    case normalisedPerFrame = "normalised-per-frame"
    /// No eyes or ears (Penn Action, some COCO pipelines).
    case noFace = "no-face"
    /// The picture flipped left to right (a mirrored front camera), the detector naming each
    /// side as it sees it: the pose of someone doing the movement with the other side.
    case mirrored
    /// Left and right swapped in place, the picture not flipped (`mirrored: true` given for a
    /// stream that was not mirrored).
    case swappedSides = "swapped-sides"
  }
  private var generator: SeededGenerator
  /// The first frame's time, and the tick (1/frameRate seconds from it) whose frame is still
  /// to come (`frameRate`).
  private var origin: Double?
  private var nextTick = 0
  /// - Parameters:
  ///   - label: says which stream this is (e.g. a hash of its file's name), so a file is
  ///     shaken the same way whichever files are read with it.
  public init(
    deviation: Float, scores: ClosedRange<Float>? = nil, frameRate: Double? = nil,
    quirk: InputQuirk? = nil, seed: UInt64, label: UInt64
  ) {
    precondition(frameRate.map { $0 > 0 } ?? true, "PoseShaker: a frame rate is positive")
    self.deviation = deviation
    self.scores = scores
    self.frameRate = frameRate
    self.quirk = quirk
    generator = SeededGenerator(seed: seed).derived(label)
  }

  /// Whether the detector gives this frame (`frameRate`), and the frame as it gives it.
  public mutating func prepare(_ frame: inout PeopleFrame) -> Bool {
    guard keeps(frame.t) else { return false }
    shake(&frame)
    return true
  }

  /// Whether a frame at `t` is one a detector at `frameRate` gives; every frame without one.
  public mutating func keeps(_ t: Double) -> Bool {
    guard let frameRate else { return true }
    let origin = self.origin ?? t
    self.origin = origin
    // Frame times are written rounded (to 0.1 ms in Countix-Fitness): a frame within a
    // millisecond of its tick is on it.
    let tick = (t - origin + 1e-3) * frameRate
    guard tick >= Double(nextTick) else { return false }
    nextTick = Int(tick.rounded(.down)) + 1
    return true
  }

  public mutating func shake(_ frame: inout PeopleFrame) {
    for index in frame.people.indices {
      if deviation > 0 { shake(&frame.people[index]) }
      if let scores { rescore(&frame.people[index], scores) }
      if let quirk { Self.pass(&frame.people[index], through: quirk, box: frame.box) }
    }
  }

  /// The pose as a pipeline with `quirk` passes it on; `box`: what a frame normalised to its
  /// own box spans (`PeopleFrame.box`).
  static func pass(_ pose: inout Pose, through quirk: InputQuirk, box: (x: Float, y: Float)) {
    switch quirk {
    case .noFace:
      for joint in [CanonicalJoint.leftEye, .rightEye, .leftEar, .rightEar] {
        pose[joint] = .missing
      }
    case .swappedSides:
      pose = pose.mirrored
    case .mirrored:
      guard let seen = self.box(of: pose) else { return }
      for index in pose.joints.indices where !pose.joints[index].isMissing {
        pose.joints[index].x = seen.minX + seen.maxX - pose.joints[index].x
      }
      pose = pose.mirrored
    case .normalisedPerFrame:
      guard let seen = self.box(of: pose) else { return }
      let (width, height) = (seen.maxX - seen.minX, seen.maxY - seen.minY)
      for index in pose.joints.indices where !pose.joints[index].isMissing {
        pose.joints[index].x = width > 0 ? (pose.joints[index].x - seen.minX) / width * box.x : 0
        pose.joints[index].y = height > 0 ? (pose.joints[index].y - seen.minY) / height * box.y : 0
      }
    }
  }

  private mutating func rescore(_ pose: inout Pose, _ scores: ClosedRange<Float>) {
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      pose.joints[index].confidence =
        scores.lowerBound + (scores.upperBound - scores.lowerBound) * Float(generator.unit())
    }
  }

  private mutating func shake(_ pose: inout Pose) {
    guard let before = Self.box(of: pose) else { return }
    let size = max(before.maxX - before.minX, before.maxY - before.minY)
    guard size > 0 else { return }
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      pose.joints[index].x += Float(generator.normal()) * deviation * size
      pose.joints[index].y += Float(generator.normal()) * deviation * size
    }
    guard let after = Self.box(of: pose) else { return }
    let scaleX = Self.ratio(before.maxX - before.minX, after.maxX - after.minX)
    let scaleY = Self.ratio(before.maxY - before.minY, after.maxY - after.minY)
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      pose.joints[index].x = before.minX + (pose.joints[index].x - after.minX) * scaleX
      pose.joints[index].y = before.minY + (pose.joints[index].y - after.minY) * scaleY
    }
  }

  private static func ratio(_ old: Float, _ new: Float) -> Float { new > 0 ? old / new : 1 }

  private static func box(of pose: Pose) -> (minX: Float, minY: Float, maxX: Float, maxY: Float)? {
    var box: (minX: Float, minY: Float, maxX: Float, maxY: Float)?
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      let joint = pose.joints[index]
      guard let seen = box else {
        box = (joint.x, joint.y, joint.x, joint.y)
        continue
      }
      box = (
        min(seen.minX, joint.x), min(seen.minY, joint.y), max(seen.maxX, joint.x),
        max(seen.maxY, joint.y)
      )
    }
    return box
  }
}
