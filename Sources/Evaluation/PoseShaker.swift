import Poses
import Randomness

/// Changes poses as another detector would (`spotter eval --shake`, `--scores`): how much a
/// measure on a real set owes to the detector that made it. Each joint of each person moves by
/// seeded Gaussian noise of `deviation` times the person's box (the larger of its width and
/// height); then the box is put back where it was, as a pipeline that normalises every frame
/// to its own box does after the detector (and, for other streams, a crop that follows the
/// person). With `scores`, every detected joint's score is drawn from that range, each frame:
/// a detector that scores on a scale of its own.
public struct PoseShaker: Sendable {
  public let deviation: Float
  public let scores: ClosedRange<Float>?
  private var generator: SeededGenerator

  /// - Parameters:
  ///   - label: says which stream this is (e.g. a hash of its file's name), so a file is
  ///     shaken the same way whichever files are read with it.
  public init(deviation: Float, scores: ClosedRange<Float>? = nil, seed: UInt64, label: UInt64) {
    self.deviation = deviation
    self.scores = scores
    generator = SeededGenerator(seed: seed).derived(label)
  }

  public mutating func shake(_ frame: inout PeopleFrame) {
    for index in frame.people.indices {
      if deviation > 0 { shake(&frame.people[index]) }
      if let scores { rescore(&frame.people[index], scores) }
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
