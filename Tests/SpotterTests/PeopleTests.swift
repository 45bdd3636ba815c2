import ActionModel
import MotionSynth
import Poses
import RepCounting
import TestSupport
import Testing

@testable import Spotter

/// Several people in one picture: each followed with a stable id and counted on their own.
/// The classifier is scripted (`ScriptedClassifier`), so the counts are the tracker's and the
/// engines' doing, whatever the shipped model makes of the same poses (`make eval` measures
/// that).
@Suite(.serialized) struct PeopleTests {
  /// Side by side, in turns: squats while the other stands still, then jumping jacks while the
  /// first stands still (each plan after its person's walk in).
  static let plans: [WorkoutPlan] = [
    WorkoutPlan(items: [
      .exercise(.squat, reps: 8, partialReps: 0), .other(.standing, seconds: 30),
    ]),
    WorkoutPlan(items: [
      .other(.standing, seconds: 30), .exercise(.jumpingJack, reps: 12, partialReps: 0),
    ]),
  ]

  static func frames(_ group: GroupRecording) -> [PeopleFrame] {
    group.frames.map { sample in
      var frame = PeopleFrame()
      frame.t = sample.t
      frame.people = sample.people
      return frame
    }
  }

  /// Two people walk in past each other and exercise side by side, in turns: two ids, each
  /// with their own exercise and count, whatever order the detector lists them in. Everyone's
  /// classifier says what the one exercising does (so it tells the one standing by that they
  /// squat, or jump): only their own engine's count tells them apart.
  @Test(arguments: [UInt64(31), 32, 33, 35])
  func twoPeopleAreCountedApartThroughACrossing(seed: UInt64) {
    var options = RecordingOptions()
    options.camera = .front
    options.detector = .light
    let group = Recorder.recordGroup(Self.plans, options: options, seed: seed)
    let session = RuntimeTests.runtime.makeSession(people: 2)
    session.scriptPredictions(
      ScriptedClassifier.script(labels: RuntimeTests.runtime.classifier!.labels) { t in
        for person in group.people {
          let middle = t - 1
          if let set = person.segments.first(where: {
            $0.start <= middle && middle < $0.end && $0.label != Labels.other
          }) {
            return set.label
          }
        }
        return Labels.other
      })
    var events: [(person: Int?, event: SpotterEvent)] = []
    for frame in Self.frames(group) { session.push(frame) { events.append(($0, $1)) } }
    session.finish { events.append(($0, $1)) }
    var summaries: [Int: [ExerciseTotal]] = [:]
    for case (let person?, let event) in events {
      if case .summary(_, let exercises, _) = event { summaries[person] = exercises }
    }
    #expect(Set(summaries.keys) == [1, 2], "ids \(summaries.keys.sorted())")
    let counts = summaries.values.map { exercises in
      Dictionary(uniqueKeysWithValues: exercises.filter { $0.reps > 0 }.map { ($0.name, $0.reps) })
    }
    // Each exercise is one person's, counted whole.
    #expect(counts.filter { $0["squat"] != nil }.map { $0["squat"] } == [8], "\(counts)")
    #expect(
      counts.filter { $0["jumping_jack"] != nil }.map { $0["jumping_jack"] } == [12], "\(counts)")
    #expect(!counts.contains { $0["squat"] != nil && $0["jumping_jack"] != nil }, "\(counts)")
  }

  /// Someone else takes the stream over: a second person, nearer the camera, steps in beside
  /// the first (who stands still) and does half squats. The rep engines forget the first
  /// person's deep squats, so the newcomer's reps are judged by their own depth: counted, and
  /// not called partial.
  @Test func aTakeoverTeachesTheEnginesTheNewPerson() throws {
    var options = RecordingOptions()
    options.camera = .front
    options.style = .textbook
    let first = Recorder.record(
      WorkoutPlan(items: [.exercise(.squat, reps: 8, partialReps: 0), .rest(seconds: 3)]),
      options: options, seed: 41)
    // Half squats: a third of a textbook squat's hip travel, under half of the first person's
    // (partial beside theirs), over the least a first rep must travel.
    options.style!.depth = 0.6
    let second = Recorder.record(
      WorkoutPlan(items: [.rest(seconds: 3), .exercise(.squat, reps: 8, partialReps: 0)]),
      options: options, seed: 42)
    // The first person a little to the left; the newcomer to the right, 1.6 times as tall.
    var frames = RuntimeTests.frames(first).map { frame in
      var frame = frame
      frame.people = frame.people.map { Self.moved($0, by: -250, scale: 1) }
      return frame
    }
    let still = try #require(frames.last?.people.first)
    let end = first.frames.last!.t
    for sample in second.frames {
      var frame = PeopleFrame()
      frame.t = end + 1 / 30 + sample.t
      frame.people = [still, Self.moved(sample.pose, by: 250, scale: 1.6)]
      frames.append(frame)
    }
    // The classifier right about whoever is followed: the first person's workout, then the
    // newcomer's.
    let reps = RuntimeTests.run(frames) { t in
      t <= end
        ? ScriptedClassifier.truth(first, at: t)
        : ScriptedClassifier.truth(second, at: t - end - 1.0 / 30)
    }.compactMap { event -> (t: Double, partial: Bool)? in
      guard case .rep(let t, "squat", let rep, _) = event else { return nil }
      return (t, rep.partial)
    }
    let newcomer = reps.filter { $0.t > end }
    #expect(reps.count - newcomer.count == 8, "\(reps)")
    #expect(newcomer.count >= 6 && newcomer.count <= 8, "\(newcomer)")
    #expect(newcomer.filter(\.partial).count <= 1, "\(newcomer)")
  }

  /// The pose `scale` times as large about its hips' middle, moved `dx` across the picture.
  static func moved(_ pose: Pose, by dx: Float, scale: Float) -> Pose {
    let x = (pose[.leftHip].x + pose[.rightHip].x) / 2
    let y = (pose[.leftHip].y + pose[.rightHip].y) / 2
    var pose = pose
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      pose.joints[index].x = x + dx + (pose.joints[index].x - x) * scale
      pose.joints[index].y = y + (pose.joints[index].y - y) * scale
    }
    return pose
  }

  /// The tracker alone: people listed in a shuffled order keep their ids from frame to frame.
  @Test func idsFollowPeopleNotTheDetectorsOrder() {
    var tracker = PeopleTracker(capacity: 3)
    func person(at x: Float) -> Pose {
      var pose = Pose()
      for joint in CanonicalJoint.allCases {
        pose[joint] = Joint(
          x: x + Float(joint.rawValue % 3) * 10, y: Float(joint.rawValue) * 20, confidence: 1)
      }
      return pose
    }
    var first: [Int: Float] = [:]
    for step in 0..<30 {
      let xs: [Float] = [100 + Float(step) * 2, 400, 700 - Float(step) * 2]
      let people = step % 2 == 0 ? xs.map(person) : xs.reversed().map(person)
      tracker.update(
        people, t: Double(step) / 30,
        assign: { id, pose in
          let x = pose[.nose].x
          if let start = first[id] {
            #expect(abs(x - start) <= 60, "id \(id) jumped from \(start) to \(x)")
          } else {
            first[id] = x
          }
        }, ended: { _ in })
    }
    #expect(first.count == 3)
  }
}
