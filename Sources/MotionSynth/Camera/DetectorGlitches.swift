import Foundation
import Poses
import Randomness

/// Detector faults that last a frame or a few: a joint thrown far from where it is, or a
/// limb whose left and right trade places.
///
/// Real detectors do both. A wrist or ankle lost against a busy background is reported, with a
/// confident score, somewhere else for a frame or three before the tracker finds it again; and
/// a side view makes the near and far arm or leg hard to tell apart, so for a few frames the
/// left elbow and wrist are reported where the right ones are and back. Unlike the detector's
/// whole-body swaps (`DetectorModel.swaps`), a flipped limb leaves the rest of the body where
/// it is, so a counter reading one side sees its joint jump across and back.
///
/// Glitches draw from a generator of their own, so turning them on changes nothing else a
/// detector reports: the same recording with and without them differs only where they are.
public struct DetectorGlitches: Sendable, Equatable {
  /// Chance per frame that a joint snaps away, for 1–3 frames, by 0.15–0.5 of the person's
  /// height in the picture.
  public var snaps: Double
  /// Chance per frame that an arm's (elbow and wrist) or a lower leg's (knee and ankle) left
  /// and right swap, for 2–5 frames.
  public var flips: Double

  public static let none = DetectorGlitches(snaps: 0, flips: 0)
  /// The `tempo` realism's: a snap about every 3 s and a flip about every 8 s at 30 frames a
  /// second, so a set of a dozen reps meets several of each.
  public static let tempo = DetectorGlitches(snaps: 0.01, flips: 0.004)

  /// The longest a snap and a flip last, in frames.
  public static let longestSnap = 3
  public static let longestFlip = 5

  public init(snaps: Double, flips: Double) {
    self.snaps = snaps
    self.flips = flips
  }

  /// The joints that snap: the body's, not the face's (a face point thrown away moves no
  /// counter's signal, and detectors lose the face in other ways).
  static let snapping: [CanonicalJoint] = [
    .neck, .rightShoulder, .rightElbow, .rightWrist, .leftShoulder, .leftElbow, .leftWrist,
    .rightHip, .rightKnee, .rightAnkle, .leftHip, .leftKnee, .leftAnkle,
  ]
  /// The limbs that flip, each as its (left, right) joints.
  static let limbs: [[(CanonicalJoint, CanonicalJoint)]] = [
    [(.leftElbow, .rightElbow), (.leftWrist, .rightWrist)],
    [(.leftKnee, .rightKnee), (.leftAnkle, .rightAnkle)],
  ]

  /// The glitches under way in one recording.
  struct State: Sendable {
    var generator: SeededGenerator
    var snap: (joint: CanonicalJoint, dx: Double, dy: Double, framesLeft: Int)?
    var flip: (limb: Int, framesLeft: Int)?

    /// Applies the glitches under way (and maybe starts new ones) to a detected pose.
    ///
    /// - Parameters:
    ///   - scale: the person's height in the picture, pixels.
    ///   - width, height: the picture's size: a joint thrown out of it is not reported.
    mutating func apply(
      _ glitches: DetectorGlitches, to pose: inout Pose, scale: Double, width: Double,
      height: Double
    ) {
      if snap == nil, generator.unit() < glitches.snaps {
        let joint = DetectorGlitches.snapping[
          Int(generator.next() % UInt64(DetectorGlitches.snapping.count))]
        let angle = 2 * Double.pi * generator.unit()
        let distance = scale * (0.15 + 0.35 * generator.unit())
        snap = (
          joint, distance * cos(angle), distance * sin(angle),
          1 + Int(generator.next() % UInt64(DetectorGlitches.longestSnap))
        )
      }
      if flip == nil, generator.unit() < glitches.flips {
        flip = (
          Int(generator.next() % UInt64(DetectorGlitches.limbs.count)),
          2 + Int(generator.next() % UInt64(DetectorGlitches.longestFlip - 1))
        )
      }
      if let (limb, framesLeft) = flip {
        for (left, right) in DetectorGlitches.limbs[limb] {
          (pose[left], pose[right]) = (pose[right], pose[left])
        }
        flip = framesLeft > 1 ? (limb, framesLeft - 1) : nil
      }
      if let (joint, dx, dy, framesLeft) = snap {
        if !pose[joint].isMissing {
          let x = Double(pose[joint].x) + dx
          let y = Double(pose[joint].y) + dy
          if x >= 0, y >= 0, x < width, y < height {
            pose[joint].x = Float(x)
            pose[joint].y = Float(y)
          } else {
            pose[joint] = .missing
          }
        }
        snap = framesLeft > 1 ? (joint, dx, dy, framesLeft - 1) : nil
      }
    }
  }
}
