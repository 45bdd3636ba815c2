import Foundation
import Poses
import Randomness

/// Random changes to a clip of poses that keep what the body does: mirroring, a small roll of
/// the camera, scale, speed, dropped joints, jitter, and a tighter frame.
///
/// Mirroring is a real reflection (`Pose.reflected(aboutX:)`: x flipped about the clip's
/// horizontal centre and the sides swapped), so a clip filmed with the person facing the
/// image's left also trains the network on a person facing its right. Renaming the sides alone
/// would move no joint, and a side view would only ever face the way it was filmed.
struct Augmentation {
  var generator: SeededGenerator
  /// The first variant of a clip is left as it is.
  let plain: Bool
  /// Mirroring reflects the clip (below, `spotter train --reflect`, as the shipped weights
  /// were trained); else it only renames the sides.
  var reflects = false
  /// The share of augmented copies framed tighter than the recording was: the feet (three times in
  /// four) or the head out of the picture for the whole clip, as a camera too close shows a
  /// person. Real clips do this (Penn Action's squats with both ankles out of frame read as
  /// `other`); at 0 nothing more is drawn, so the variants are those of a recipe without it.
  var crops = 0.0

  mutating func apply(to clip: [Pose]) -> [Pose] {
    guard !plain else { return clip }
    let mirror = generator.unit() < 0.5
    let roll = Float((generator.unit() * 2 - 1) * 15 * .pi / 180)
    let scale = Float(0.7 + 0.7 * generator.unit())
    let speed = 0.75 + 0.6 * generator.unit()
    let dropout = 0.06 * generator.unit()
    let jitter = Float(0.015 * generator.unit())
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
    let centreX = mirror && reflects ? Self.horizontalCentre(of: clip) : 0
    let frame = crops > 0 && generator.unit() < crops ? cropLine(for: clip) : nil
    for index in 0..<count {
      let position = Double(index) * speed
      let lower = min(Int(position), clip.count - 1)
      let upper = min(lower + 1, clip.count - 1)
      var pose = Resampler.interpolate(
        clip[lower], clip[upper], fraction: Float(position - Double(lower)))
      if let frame {
        for j in pose.joints.indices where frame.cuts(pose.joints[j].y) {
          pose.joints[j] = Joint.missing
        }
      }
      if mirror { pose = reflects ? pose.reflected(aboutX: centreX) : pose.mirrored }
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

  /// Where a tighter frame cuts the clip: a line across it, and which side of it is out.
  struct CropLine {
    var y: Float
    /// The part below the line (y points down) is out of the picture; else the part above.
    var below: Bool

    func cuts(_ jointY: Float) -> Bool { below ? jointY > y : jointY < y }
  }

  /// A line through the clip's vertical extent: 10–35% of it up from the lowest joint (feet and
  /// often shins out), or 5–20% down from the highest (the head out).
  mutating func cropLine(for clip: [Pose]) -> CropLine? {
    var (top, bottom) = (Float.infinity, -Float.infinity)
    for pose in clip {
      for joint in pose.joints.indices where pose.joints[joint].confidence > 0.1 {
        top = min(top, pose.joints[joint].y)
        bottom = max(bottom, pose.joints[joint].y)
      }
    }
    let below = generator.unit() < 0.75
    let depth = Float(generator.unit())
    guard top < bottom else { return nil }
    let extent = bottom - top
    return below
      ? CropLine(y: bottom - (0.1 + 0.25 * depth) * extent, below: true)
      : CropLine(y: top + (0.05 + 0.15 * depth) * extent, below: false)
  }

  /// The middle of the x range the clip's detected joints span (0 for a clip with nobody), so
  /// a reflected clip stays where the recording had it.
  static func horizontalCentre(of clip: [Pose]) -> Float {
    var (low, high) = (Float.infinity, -Float.infinity)
    for pose in clip {
      for joint in pose.joints.indices where !pose.joints[joint].isMissing {
        low = min(low, pose.joints[joint].x)
        high = max(high, pose.joints[joint].x)
      }
    }
    return low <= high ? (low + high) / 2 : 0
  }

  /// The clip repeated until it has at least `count` frames.
  static func loop(_ clip: [Pose], toAtLeast count: Int) -> [Pose] {
    var out = clip
    while out.count < count { out += clip }
    return out
  }
}
