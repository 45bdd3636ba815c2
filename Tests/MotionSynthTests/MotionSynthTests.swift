import Foundation
import Poses
import Randomness
import Testing

@testable import MotionSynth

@Suite struct RecordingTests {
  @Test func theSameSeedGivesTheSameRecording() {
    let a = Recorder.record(.demo, seed: 42)
    let b = Recorder.record(.demo, seed: 42)
    #expect(a.frames.count == b.frames.count)
    #expect(a.frames.map(\.t) == b.frames.map(\.t))
    #expect(zip(a.frames, b.frames).allSatisfy { $0.pose == $1.pose })
    #expect(a.segments == b.segments)
    let c = Recorder.record(.demo, seed: 43)
    #expect(
      c.frames.count != a.frames.count || !zip(a.frames, c.frames).allSatisfy { $0.pose == $1.pose }
    )
  }

  @Test(arguments: ExerciseMotion.allCases, [1, 5, 12])
  func everyExerciseHasTheRepsAskedForInItsGroundTruth(motion: ExerciseMotion, reps: Int) throws {
    var options = RecordingOptions()
    options.extraPartialReps = 1  // partial reps are done but never counted
    let recording = Recorder.record(
      .single(motion, reps: reps), options: options, seed: UInt64(reps * 100 + motion.label.count))
    let sets = recording.segments.filter { $0.label == motion.label }
    try #require(sets.count == 1)
    let set = sets[0]
    #expect(set.reps == reps)
    #expect(set.repBounds.count == reps)
    for (index, bound) in set.repBounds.enumerated() {
      #expect(bound.lowerBound >= set.start && bound.upperBound <= set.end)
      #expect(bound.upperBound - bound.lowerBound >= 0.3)
      if index > 0 { #expect(bound.lowerBound >= set.repBounds[index - 1].upperBound) }
    }
  }

  @Test func segmentsTileTheRecordingAndLabelEverySecond() {
    let recording = Recorder.record(.demo, seed: 7)
    let segments = recording.segments
    #expect(segments.first?.start == 0)
    for index in 1..<segments.count {
      #expect(abs(segments[index].start - segments[index - 1].end) < 1e-9)
    }
    #expect(
      segments.map(\.label).filter { $0 != "other" } == [
        "squat", "jumping_jack", "push_up", "bicep_curl",
      ])
    #expect(recording.frames.last!.t <= segments.last!.end + 0.1)
  }

  @Test func withoutNoiseAFrontCameraSeesEveryJointOfAStandingPerson() {
    var options = RecordingOptions()
    options.detector = .none
    options.camera = .front
    options.fps = 30
    let recording = Recorder.record(
      WorkoutPlan(items: [.rest(seconds: 3)]), options: options, seed: 1)
    #expect(recording.frames.count == 91)
    #expect(recording.frames.allSatisfy { $0.pose.presentCount(threshold: 0.1) == 18 })
    // Upright: the head above the hips above the ankles, in image coordinates (y down).
    let pose = recording.frames[0].pose
    #expect(pose[.nose].y < pose[.leftHip].y && pose[.leftHip].y < pose[.leftAnkle].y)
    // Facing the camera: the person's left is on the image's right.
    #expect(pose[.leftShoulder].x > pose[.rightShoulder].x)
  }

  @Test func aBackCameraSeesTheSidesTheOtherWayAndLosesTheFace() {
    var options = RecordingOptions()
    options.detector = .normal
    options.camera = .back
    let recording = Recorder.record(
      WorkoutPlan(items: [.rest(seconds: 4)]), options: options, seed: 2)
    let seen = recording.frames.map(\.pose).filter(\.hasPerson)
    let leftOnLeft = seen.filter {
      !$0[.leftShoulder].isMissing && !$0[.rightShoulder].isMissing
        && $0[.leftShoulder].x < $0[.rightShoulder].x
    }
    #expect(Double(leftOnLeft.count) > 0.8 * Double(seen.count))
    let noseSeen = seen.filter { $0[.nose].confidence > 0.1 }.count
    #expect(Double(noseSeen) < 0.5 * Double(seen.count))
  }

  @Test func normalNoiseDropsSomeFramesButKeepsMost() {
    let recording = Recorder.record(.demo, seed: 9)
    let present = recording.frames.filter { $0.pose.hasPerson }.count
    let share = Double(present) / Double(recording.frames.count)
    #expect(share > 0.85 && share < 0.999)
  }

  @Test(arguments: [PoseLayout.mediapipe33, .vision19, .openpose25])
  func recordingsWriteInAnyLayoutAndSpace(layout: PoseLayout) throws {
    var options = RecordingOptions()
    options.layout = layout
    options.units = .normalized
    options.origin = .bottomLeft
    let recording = Recorder.record(.single(.squat, reps: 2), options: options, seed: 3)
    #expect(recording.header.layout == layout)
    #expect(
      recording.header.space.units == .normalized && recording.header.space.origin == .bottomLeft)
    let joints = layout.layoutJoints(from: recording.frames[5].pose, space: recording.header.space)
    for joint in joints where !joint.isMissing {
      #expect(joint.x >= 0 && joint.x <= 1 && joint.y >= 0 && joint.y <= 1)
    }
  }
}

@Suite struct WorkoutPlanTests {
  @Test func theTextFormParses() throws {
    let plan = try WorkoutPlan.parse("squat:10, rest:20, push_up: 8 ,walking:6.5")
    #expect(
      plan.items == [
        .exercise(.squat, reps: 10, partialReps: 0), .rest(seconds: 20),
        .exercise(.pushUp, reps: 8, partialReps: 0), .other(.walking, seconds: 6.5),
      ])
  }

  @Test(arguments: [
    ("squat", "item 1 'squat' must be NAME:NUMBER"),
    ("squat:1.5", "item 1 'squat:1.5': reps must be a whole number"),
    ("rest:10, burpee:5", "item 2: unknown activity 'burpee'"), ("", "the workout is empty"),
    ("squat:-3", "item 1 'squat:-3' must be"),
  ])
  func badTextSaysWhichItemIsWrong(text: String, message: String) {
    #expect(throws: WorkoutPlanError.self) { try WorkoutPlan.parse(text) }
    do { _ = try WorkoutPlan.parse(text) } catch {
      #expect("\(error)".hasPrefix(message), "got \(error)")
    }
  }
}

@Suite struct BodyTests {
  @Test func aSquatLowersTheHipsWithTheFeetOnTheFloor() {
    let body = BodyShape.average
    let standing = ExerciseMotion.squat.articulation(depth: 0, side: .left, style: .textbook, t: 0)
      .0
    let bottom = ExerciseMotion.squat.articulation(depth: 1, side: .left, style: .textbook, t: 0).0
    let up = BodyState(articulation: standing).worldJoints(for: body)
    let down = BodyState(articulation: bottom).worldJoints(for: body)
    let hip = CanonicalJoint.leftHip.rawValue
    let ankle = CanonicalJoint.leftAnkle.rawValue
    #expect(up[hip].y - down[hip].y > 0.35)
    #expect(abs(down[ankle].y - body.ankleHeight) < 1e-9)
    #expect(abs(up[ankle].z - down[ankle].z) < 1e-9)
  }

  @Test func aPushUpKeepsHandsAndFeetOnTheFloorAndLowersTheChest() {
    let body = BodyShape.average
    func world(_ depth: Double) -> [Vector3] {
      let a = ExerciseMotion.pushUp.articulation(depth: depth, side: .left, style: .textbook, t: 0)
        .0
      return BodyState(articulation: a, placement: .plank(onKnees: false)).worldJoints(for: body)
    }
    let (top, bottom) = (world(0), world(1))
    for pose in [top, bottom] {
      let wrist = pose[CanonicalJoint.leftWrist.rawValue].y
      let ankle = pose[CanonicalJoint.leftAnkle.rawValue].y
      #expect(abs(wrist - ankle) < 0.01)
      #expect(min(wrist, ankle) < 0.1)
    }
    #expect(top[CanonicalJoint.neck.rawValue].y - bottom[CanonicalJoint.neck.rawValue].y > 0.25)
    // The hands bear the weight and stay where they are; the chest goes down between them.
    for wrist in [CanonicalJoint.leftWrist, .rightWrist] {
      let (a, b) = (top[wrist.rawValue], bottom[wrist.rawValue])
      #expect(abs(a.x - b.x) < 0.03 && abs(a.z - b.z) < 0.03, "\(wrist): \(a) → \(b)")
    }
  }

  @Test func differentPeopleHaveDifferentShapes() {
    var generator = SeededGenerator(seed: 1)
    let people = (0..<20).map { _ in BodyShape.random(using: &generator) }
    let ratios = people.map { $0.thigh / $0.torso }
    #expect(Set(ratios.map { ($0 * 100).rounded() }).count > 5)
    #expect(people.allSatisfy { $0.height >= 1.45 && $0.height <= 1.98 })
  }
}
