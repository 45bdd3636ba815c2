import Foundation
import Poses
import Randomness

/// Random changes to a clip of poses that keep what the body does: the picture flipped (the
/// person facing the other way), a small roll of the camera, scale, speed, dropped joints,
/// joints never seen, and jitter.
///
/// Why the last: annotators and detectors leave out whole joints for a whole clip (Penn Action
/// marks a shoulder behind a barbell, or both ankles out of the picture, as hidden from first
/// frame to last). In the real clips such gaps came mostly with squats, and models trained on
/// them called standing sports with the ankles removed squats (9 of Penn's 767 `other` clips as
/// they are, 49 with both ankles removed), and missed squats seen whole. Flips, because a side
/// view faces one way only: a model that never saw a clip facing the other way scored squats
/// differently mirrored (r = 0.44 between a clip's squat probability and its flip's).
struct Augmentation {
  var generator: SeededGenerator
  /// The first variant of a clip is left as it is.
  let plain: Bool

  mutating func apply(to clip: [Pose]) -> [Pose] {
    guard !plain else { return clip }
    let flip = generator.unit() < 0.5
    let roll = Float((generator.unit() * 2 - 1) * 15 * .pi / 180)
    let scale = Float(0.7 + 0.7 * generator.unit())
    let speed = 0.75 + 0.6 * generator.unit()
    let dropout = 0.06 * generator.unit()
    let jitter = Float(0.015 * generator.unit())
    let unseen = generator.unit() < 0.3 ? Self.unseenJoints(&generator) : []
    // Speed: resample the clip at `speed` times its pace (linear interpolation between ticks).
    let count = max(8, Int(Double(clip.count) / speed))
    var out: [Pose] = []
    out.reserveCapacity(count)
    let (cos, sin) = (Foundation.cos(roll), Foundation.sin(roll))
    var size: Float = 1
    if let measured = clip.lazy.compactMap({ BodySizeEstimator.measure($0, threshold: 0.1) }).first
    {
      size = measured
    }
    for index in 0..<count {
      let position = Double(index) * speed
      let lower = min(Int(position), clip.count - 1)
      let upper = min(lower + 1, clip.count - 1)
      var pose = Resampler.interpolate(
        clip[lower], clip[upper], fraction: Float(position - Double(lower)))
      if flip {
        // Features are body-centred: negating x flips the picture about any vertical line.
        for j in pose.joints.indices { pose.joints[j].x = -pose.joints[j].x }
        pose = pose.mirrored  // the person's left now shows where a right side would
      }
      for joint in unseen { pose[joint] = .missing }
      for j in pose.joints.indices where !pose.joints[j].isMissing {
        if generator.unit() < dropout {
          pose.joints[j] = Joint.missing
          continue
        }
        let x = pose.joints[j].x
        let y = pose.joints[j].y
        pose.joints[j].x = scale * (x * cos - y * sin) + jitter * size * Float(generator.normal())
        pose.joints[j].y = scale * (x * sin + y * cos) + jitter * size * Float(generator.normal())
      }
      out.append(pose)
    }
    return out
  }

  /// Joints left out of a whole clip, as annotators and detectors leave them out: one shoulder
  /// or both, both ankles, one arm, or one side of the body. The neck goes with a shoulder:
  /// layouts without one place it between the shoulders.
  static func unseenJoints(_ generator: inout SeededGenerator) -> [CanonicalJoint] {
    let left = generator.unit() < 0.5
    let side: [CanonicalJoint] =
      left
      ? [.leftShoulder, .leftElbow, .leftWrist, .leftHip, .leftKnee, .leftAnkle]
      : [.rightShoulder, .rightElbow, .rightWrist, .rightHip, .rightKnee, .rightAnkle]
    switch generator.next() % 5 {
    case 0: return [side[0], .neck]
    case 1: return [.leftShoulder, .rightShoulder, .neck]
    case 2: return [.leftAnkle, .rightAnkle]
    case 3: return Array(side[0..<3]) + [.neck]
    default: return side + [.neck]
    }
  }

  /// The clip repeated until it has at least `count` frames.
  static func loop(_ clip: [Pose], toAtLeast count: Int) -> [Pose] {
    var out = clip
    while out.count < count { out += clip }
    return out
  }
}
