import MotionSynth
import Poses
import Testing

@testable import RepCounting

/// Streams whose frames were each min-max normalised to their own box (`FrameBoxCorrector`):
/// recognised, put back into proportion, and counted as the camera's own poses are.
@Suite struct BoxNormalisedInputTests {
  /// The recording's frames through the runtime's front end, as written (`normalised`: each
  /// frame stretched to its box first); and whether the stream was recognised, at which tick.
  static func ticks(_ recording: Recording, normalised: Bool) -> (
    ticks: [(t: Double, pose: Pose)], recognisedAt: Int?
  ) {
    frontEnd(recording) { normalised ? $0.normalisedToItsBox(in: recording.header.space) : $0 }
  }

  @Test(arguments: ["front", "side", "any"])
  func normalisedFramesAreRecognisedWithinTwoSecondsAndPixelsNever(view: String) {
    let take = recording("squat", reps: 6, view: view, seed: 31)
    let normalised = Self.ticks(take, normalised: true)
    #expect(normalised.recognisedAt != nil && normalised.recognisedAt! <= 60)
    #expect(Self.ticks(take, normalised: false).recognisedAt == nil)
  }

  /// A pipeline that normalised each frame, then scaled it to the picture's pixels: measured
  /// in the image, it is recognised; the camera's own pixels, measured so, never are.
  @Test(arguments: ["front", "side", "any"])
  func framesScaledToThePictureAreRecognisedAndThePictureItselfNever(view: String) {
    let take = recording("squat", reps: 6, view: view, seed: 33)
    let space = take.header.space
    let image = (x: space.imageWidth!, y: space.imageHeight!)
    func recognised(scaledBoxes: Bool) -> Bool {
      var corrector = FrameBoxCorrector()
      for sample in take.frames where sample.pose.hasPerson {
        var pose = sample.pose
        if scaledBoxes {
          pose = pose.normalisedToItsBox(in: space)
          for index in pose.joints.indices where !pose.joints[index].isMissing {
            pose.joints[index].x *= image.x
            pose.joints[index].y *= image.y
          }
        }
        _ = corrector.correct(pose, box: image)
      }
      return corrector.isCorrecting
    }
    #expect(recognised(scaledBoxes: true))
    #expect(!recognised(scaledBoxes: false))
  }

  /// The shoulders' width against the torso's length, which the stretch distorts: after the
  /// correction it is back within a fifth of the camera's own (a side view, where it is
  /// smallest, is left out: there the torso alone sets the scale).
  @Test func theCorrectionBringsBackTheBodysProportions() {
    let take = recording("bicep_curl", reps: 6, view: "front", seed: 32)
    func ratio(_ pose: Pose) -> Float? {
      let (l, r, n) = (pose[.leftShoulder], pose[.rightShoulder], pose[.neck])
      let hip = (pose[.leftHip], pose[.rightHip])
      guard !l.isMissing, !r.isMissing, !n.isMissing, !hip.0.isMissing, !hip.1.isMissing else {
        return nil
      }
      let width = ((l.x - r.x) * (l.x - r.x) + (l.y - r.y) * (l.y - r.y)).squareRoot()
      let (hx, hy) = ((hip.0.x + hip.1.x) / 2, (hip.0.y + hip.1.y) / 2)
      return width / ((n.x - hx) * (n.x - hx) + (n.y - hy) * (n.y - hy)).squareRoot()
    }
    let camera = Self.ticks(take, normalised: false).ticks.compactMap { ratio($0.pose) }
    let corrected = Self.ticks(take, normalised: true).ticks.dropFirst(60).compactMap {
      ratio($0.pose)
    }
    let median = { (values: [Float]) in values.sorted()[values.count / 2] }
    #expect(
      abs(median(corrected) / median(camera) - 1) < 0.2, "\(median(corrected)) \(median(camera))")
  }

  /// The same sets counted from the camera's poses and from their normalised copies: within a
  /// rep of each other with the correction (without it, squats lose most of their depth).
  @Test(arguments: [("squat", "front"), ("squat", "side"), ("push_up", "side"), ("lunge", "side")])
  func normalisedCopiesCountLikeTheCamerasPoses(name: String, view: String) {
    let take = recording(name, reps: 8, view: view, seed: 33)
    let camera = countTicks(
      name, Self.ticks(take, normalised: false).ticks, positionsAreLost: false)
    let corrected = countTicks(
      name, Self.ticks(take, normalised: true).ticks, positionsAreLost: true)
    #expect(camera == 8)
    #expect(abs(corrected - camera) <= 1, "\(name) from \(view): \(corrected) of \(camera)")
  }

  /// A jittery detector behind a pipeline that normalises each frame: the joints at the box's
  /// edges make the whole picture's scale wobble, and the signal with it, more slowly than the
  /// five-frame median and the EMA can steady. Counting takes no movement smaller than the
  /// noise the engine measures (`SignalEngine`'s noise floor), so the wobble adds no reps.
  /// With `noise_multiple` 0, the first three of these count 10 to 12 reps of 8.
  @Test(arguments: [
    ("squat", "front", UInt64(41), 0.02), ("squat", "side", 41, 0.015),
    ("lunge", "side", 52, 0.02), ("lunge", "front", 41, 0.02), ("sit_up", "side", 63, 0.02),
    ("bicep_curl", "front", 41, 0.02), ("bench_press", "side", 52, 0.02),
  ])
  func aJitteryDetectorAddsNoReps(name: String, view: String, seed: UInt64, jitter: Double) {
    var noise = DetectorModel.normal
    noise.jitter = jitter
    noise.swaps = 0
    // Eight reps, and three movements begun and abandoned 10–18% of the way down.
    let take = recording(name, reps: 8, view: view, seed: seed, partial: 3, noise: noise)
    let counted = countTicks(name, Self.ticks(take, normalised: true).ticks, positionsAreLost: true)
    #expect(abs(counted - 8) <= 1, "\(name) from \(view): \(counted) of 8")
  }

  /// In frames normalised to their own box, the hands' left-to-right step is measured in the
  /// frame's own body size: a frame drawn at another scale (the face of a push-up filmed from
  /// the front dropping below the hands, so the box grows) has not moved them, a hand that
  /// leaves its place has. Measured in the units of the frame that set the home, the wide
  /// step of these hands (four body sizes) changed by more than the limit at a scale of 1.4.
  @Test func anchorsInNormalisedFramesFollowTheFramesOwnScale() {
    var tracker = AnchorTracker(.init(joints: ["wrist"], maxTravel: 0.5))
    tracker.relative = true
    func hands(scale: Float, rightShift: Float = 0) -> Pose {
      var pose = Pose()
      pose.joints[CanonicalJoint.leftWrist.rawValue] = Joint(
        x: 0.1 * scale, y: 0.9 * scale, confidence: 1)
      pose.joints[CanonicalJoint.rightWrist.rawValue] = Joint(
        x: (1.1 + rightShift) * scale, y: 0.9 * scale, confidence: 1)
      return pose
    }
    func moves(_ pose: Pose, bodySize: Float, frames: Int) -> Bool {
      (0..<frames).contains { _ in
        tracker.moved(pose, bodySize: bodySize, minConfidence: 0.3, afterGap: false)
      }
    }
    #expect(!moves(hands(scale: 1), bodySize: 0.25, frames: 10))
    #expect(!moves(hands(scale: 1.4), bodySize: 0.35, frames: 10))
    #expect(!moves(hands(scale: 0.8), bodySize: 0.2, frames: 10))
    #expect(moves(hands(scale: 0.8, rightShift: 0.4), bodySize: 0.2, frames: 10))
  }
}
