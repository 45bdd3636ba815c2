import Foundation
import MotionSynth
import Poses
import Testing

@testable import RepCounting

/// Joint angles read from the picture against the bodies MotionSynth draws, whose true angles
/// in the room it knows.
@Suite struct JointAngleTests {
  /// Per frame with the joint seen: |angle in the picture − true angle|, for the side nearer
  /// the camera (the far side is hidden by the body from the side).
  static func errors(
    _ exercise: ExerciseMotion, _ joint: JointAngle, view: String, near left: Bool, seed: UInt64
  ) -> [Double] {
    var options = RecordingOptions()
    options.camera = VirtualCamera.Range.named(view)!
    options.detector = .none
    options.keepsWorld = true
    let take = Recorder.record(.single(exercise, reps: 6), options: options, seed: seed)
    var errors: [Double] = []
    for (frame, world) in zip(take.frames, take.world) {
      guard let seen = joint.degrees(in: frame.pose, left: left) else { continue }
      let (a, b, c) = joint.joints(left: left)
      let (u, v) = (world[a.rawValue] - world[b.rawValue], world[c.rawValue] - world[b.rawValue])
      let cross = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
      let truth = atan2((cross * cross).sum().squareRoot(), (u * v).sum()) * 180 / .pi
      errors.append(abs(seen - truth))
    }
    return errors.sorted()
  }

  static func median(_ values: [Double]) -> Double { values[values.count / 2] }

  /// Seen square to the limb's plane (squats and curls from the side, jumping jacks' shoulders
  /// from the front), the picture's angle is within a few degrees of the true one.
  @Test(arguments: [
    (ExerciseMotion.squat, JointAngle.knee, "side"), (.bicepCurl, .elbow, "side"),
    (.jumpingJack, .shoulder, "front"), (.sitUp, .hip, "side"),
  ])
  func inPlaneViewsReadTheTrueAngle(_ exercise: ExerciseMotion, _ joint: JointAngle, view: String) {
    // Which side faces a camera from the side depends on the drawn view: take the nearer one,
    // the one whose angle is seen more often and closer to the truth.
    let errors = [true, false].map {
      Self.errors(exercise, joint, view: view, near: $0, seed: 41)
    }.min { Self.median($0) < Self.median($1) }!
    #expect(errors.count > 100)
    #expect(Self.median(errors) < 4, "\(exercise) \(joint) from \(view): \(Self.median(errors))°")
    #expect(errors[errors.count * 3 / 4] < 6)
  }

  /// A rep's top is the extreme nearer where the rep began, even when the person straightens
  /// further at its end than at its start (the bottom is then reached first).
  @Test(arguments: [(170.0, 60.0, 178.0), (170.0, 60.0, 165.0), (40.0, 150.0, 35.0)])
  func aRepsTopIsTheExtremeNearItsStart(start: Double, turn: Double, end: Double) {
    var trail = JointAngleTrail(joint: .elbow, minConfidence: 0.3)
    // Frames at 30 a second: still at `start` for a second, then down to `turn` and on to
    // `end`, a second each way.
    for frame in 0...90 {
      let t = Double(frame) / 30
      let angle =
        t < 1 ? start : t < 2 ? start + (turn - start) * (t - 1) : turn + (end - turn) * (t - 2)
      trail.observe(Self.arm(bentTo: angle), t: t)
    }
    let angles = trail.angles(from: 1, to: 3).right!
    let (low, high) = (min(start, turn, end), max(start, turn, end))
    let topIsHigh = start > turn
    #expect(abs(angles.top - (topIsHigh ? high : low)) < 1, "\(angles)")
    #expect(abs(angles.bottom - (topIsHigh ? low : high)) < 1, "\(angles)")
  }

  /// A right arm whose elbow is bent to `degrees` (180 straight), seen square.
  static func arm(bentTo degrees: Double) -> Pose {
    var pose = Pose()
    let radians = degrees * .pi / 180
    pose[.rightShoulder] = Joint(x: 0, y: 0, confidence: 1)
    pose[.rightElbow] = Joint(x: 0, y: 100, confidence: 1)
    pose[.rightWrist] = Joint(
      x: Float(100 * sin(radians)), y: Float(100 - 100 * cos(radians)), confidence: 1)
    return pose
  }
}
