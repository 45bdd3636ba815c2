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
}
