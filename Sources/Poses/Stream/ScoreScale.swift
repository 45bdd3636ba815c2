/// Puts a stream's joint scores on the scale the rep definitions' `min_confidence` (0.3 in
/// every shipped definition) and the features' presence threshold (0.1) are set on.
///
/// Detectors score joints on scales of their own. MediaPipe's and Penn Action's joints in plain
/// view score about 1, MotionSynth's 0.6–0.99; MoveNet's or OpenPose's can run lower for a
/// person seen whole. A fixed floor set on the first kind refuses most joints of a stream that
/// scores low: Countix-Fitness with every score drawn from 0.15–0.35 counted nothing (relative
/// MAE 0.97, the exercise given; 0.24 with the scale: `Sources/RepCounting/README.md`). So the
/// stream's level is measured, the upper quartile of each
/// frame's scores (the joints in plain view: hidden and face joints score low on any scale), as
/// a median over the last 60 frames with a person, and while it is below `reference` every
/// score is multiplied by reference / level. A stream at or above the reference passes
/// unchanged: every recording the definitions were tuned and the model trained on. Allocates
/// nothing per frame.
public struct ScoreScale: Sendable {
  /// The level below which scores are raised to it: the lowest that MotionSynth gives a joint
  /// in plain view (its streams' levels run 0.8–0.95). Raising the streams above it changes
  /// what the definitions read of hidden joints, whose scores straddle the floor: raised to
  /// 0.9, a synthetic side-view squat at 0.88 counted 4 of 6.
  public static let reference: Float = 0.6
  private var levels = RunningMedian(capacity: 60)

  public init() {}

  /// The factor scores are multiplied by now: 1 unless the level is below the reference.
  public var factor: Float {
    guard let level = levels.median, level > 0, level < Self.reference else { return 1 }
    return Self.reference / level
  }

  /// Takes one frame's pose (`.nobody` passes as it is) and returns it on the reference scale.
  public mutating func rescale(_ pose: Pose) -> Pose {
    if let level = Self.upperQuartile(of: pose) { levels.add(level) }
    let factor = factor
    guard factor > 1 else { return pose }
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
