/// Puts a stream's joint scores on the scale the rep definitions' `min_confidence` (0.3 in
/// every shipped definition) and the features' presence threshold (0.1) are set on.
///
/// Detectors score joints on scales of their own. Penn Action's joints in plain view score 1,
/// MotionSynth's 0.6–0.99; MoveNet's or OpenPose's can run lower for a person seen whole. A
/// fixed floor set on the first kind refuses most joints of a stream that scores low, and its
/// reps go uncounted (`Sources/RepCounting/README.md`, "A detector that scores low"). So the
/// stream's level is measured, the upper quartile of each frame's scores (the joints in plain
/// view: hidden and face joints score low on any scale), as a median over the last 60 frames
/// with a person, and while it is below `reference` every score is multiplied by
/// reference / level.
///
/// A detector that reports keypoints in an empty room scores its guesses low too (a stream of
/// them at 0.02–0.2, raised, counted 15 squats), so only a stream whose level reaches `floor`,
/// the definitions' 0.3, is raised: a quarter of its joints could be read before. And only its
/// frames that reach half the stream's level: guesses after the person left are not raised
/// while the level still remembers them. A stream at or above the reference passes unchanged,
/// as Penn Action's and Countix-Fitness's do (1) and MotionSynth's mostly do (a side view of
/// squats measured 0.79 or more in 9 frames of 10, median 0.88; 30 random heavy-noise workouts
/// 0.76 or more; but one of the first 300 training workouts fell to 0.38, a body seen mostly
/// hidden: training keeps synthetic scores as drawn, `FramePipeline.raisesScores`). Allocates
/// nothing per frame.
public struct ScoreScale: Sendable {
  /// The level below which scores are raised to it: the lowest that MotionSynth gives a joint
  /// in plain view. Raising streams above it changes what the definitions read of hidden
  /// joints, whose scores straddle the floor: raised to 0.9, that side view of squats (0.88)
  /// loses reps (`Sources/RepCounting/README.md`).
  public static let reference: Float = 0.6
  /// The level a stream must reach to be raised: the definitions' floor.
  public static let floor: Float = 0.3
  private var levels = RunningMedian(capacity: 60)

  public init() {}

  /// The factor a readable frame's scores are multiplied by now: 1 unless the stream's level
  /// is between the floor and the reference.
  public var factor: Float {
    guard let level = levels.median, level >= Self.floor, level < Self.reference else { return 1 }
    return Self.reference / level
  }

  /// Takes one frame's pose (`.nobody` passes as it is) and returns it on the reference scale.
  public mutating func rescale(_ pose: Pose) -> Pose {
    guard let level = Self.upperQuartile(of: pose) else { return pose }
    levels.add(level)
    let factor = factor
    guard factor > 1, level * factor >= Self.reference / 2 else { return pose }
    var scaled = pose
    for index in scaled.joints.indices where !scaled.joints[index].isMissing {
      scaled.joints[index].confidence = min(1, scaled.joints[index].confidence * factor)
    }
    return scaled
  }

  /// The score that a quarter of the frame's detected joints reach; nil for nobody.
  static func upperQuartile(of pose: Pose) -> Float? {
    var scores = InlineArray<18, Float>(repeating: 0)
    var count = 0
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      // Insertion into the sorted front: at most 18 scores.
      var slot = count
      let score = pose.joints[index].confidence
      while slot > 0 && scores[slot - 1] > score {
        scores[slot] = scores[slot - 1]
        slot -= 1
      }
      scores[slot] = score
      count += 1
    }
    return count == 0 ? nil : scores[count * 3 / 4]
  }
}
