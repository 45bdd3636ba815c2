import ActionModel
import Foundation
import MotionSynth
import Poses
import RepCounting
import TestSupport
import Testing

@testable import Spotter

/// The runtime's rules for sets, with the classifier scripted: each test says what the
/// classifier predicts and when (`Session.scriptPredictions`), runs synthetic movement through
/// the rest of the runtime (features, smoother, sets, engines) and checks what the sets make of
/// it. The shipped model plays no part, so retraining never changes these.
@Suite struct SetContinuityTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
  /// The tiny test model: only its labels and window matter, the script replaces its output.
  static let runtime = Runtime(
    classifier: try! WeightsFile.load(repository + "/Weights/tiny.spotter"),
    catalogue: try! ExerciseCatalogue.load())
  static let labels = runtime.classifier!.labels

  /// What the script says at a prediction: each label's probability.
  typealias Opinion = [String: Float]

  /// One set of a workout as the events told it.
  struct ToldSet: Equatable {
    var exercise: String
    var start: Double
    var end: Double
    var reps: Int
  }

  /// The events of `recording` through a session whose classifier says `opinion(t)` at each
  /// prediction (what a window ending at `t` shows).
  static func run(_ recording: Recording, opinion: @escaping (Double) -> Opinion) -> [SpotterEvent]
  {
    let session = runtime.makeSession()
    session.scriptPredictions { t, probabilities in
      for index in probabilities.indices { probabilities[index] = 0 }
      for (label, probability) in opinion(t) {
        probabilities[labels.firstIndex(of: label)!] = probability
      }
    }
    var events: [SpotterEvent] = []
    for (index, sample) in recording.frames.enumerated() {
      var frame = PeopleFrame()
      frame.t = sample.t
      frame.line = index + 1
      if sample.pose.hasPerson { frame.people = [sample.pose] }
      session.push(frame) { events.append($0) }
    }
    session.finish { events.append($0) }
    return events
  }

  /// The sets the events told, and each set's rep numbers.
  static func sets(_ events: [SpotterEvent]) -> (sets: [ToldSet], repNumbers: [[Int]]) {
    var sets: [ToldSet] = []
    var numbers: [[Int]] = []
    for event in events {
      switch event {
      case .exerciseStarted(let t, let exercise, _):
        sets.append(ToldSet(exercise: exercise, start: t, end: .infinity, reps: 0))
        numbers.append([])
      case .rep(_, _, let rep, _):
        numbers[numbers.count - 1].append(rep.count)
      case .exerciseEnded(let t, _, let reps):
        sets[sets.count - 1].end = t
        sets[sets.count - 1].reps = reps
      default: break
      }
    }
    return (sets, numbers)
  }

  static func record(_ items: [WorkoutPlan.Item], camera: VirtualCamera.Range, seed: UInt64)
    -> Recording
  {
    var options = RecordingOptions()
    options.camera = camera
    options.fps = 30
    return Recorder.record(WorkoutPlan(items: items), options: options, seed: seed)
  }

  /// Squats at a steady pace, the classifier sure of them but for 3 s in the middle of the set,
  /// when it says something else with as much confidence (`other`, or a bench press, which
  /// looks like it from no camera): the squats' engine goes on seeing reps, so the set goes on,
  /// one set with every rep the same squats count with the classifier sure throughout.
  @Test(arguments: [Labels.other, "bench_press"])
  func aSetHoldsThroughThreeSecondsOfContraryPredictionsWhileItsRhythmGoesOn(_ contrary: String) {
    let recording = Self.record(
      [.rest(seconds: 2), .exercise(.squat, reps: 10, partialReps: 0), .rest(seconds: 2)],
      camera: .front, seed: 31)
    let squats = recording.segments.first { $0.label == "squat" }!
    let middle = (squats.start + squats.end) / 2
    let sure = Self.sets(Self.run(recording) { _ in ["squat": 0.95] }).sets
    let doubted = Self.sets(
      Self.run(recording) { t in
        (middle..<middle + 3).contains(t) ? [contrary: 0.95] : ["squat": 0.95]
      }
    ).sets
    #expect(sure.count == 1 && sure[0].reps >= 9, "\(sure)")
    #expect(doubted.map(\.exercise) == ["squat"], "\(doubted)")
    #expect(doubted.first?.reps == sure.first?.reps, "\(doubted) against \(sure)")
  }

  /// Six squats, then the person stands still for 12 s while the classifier goes on saying
  /// squat: the set ends at its last rep (not with the stream), with its six reps; and when
  /// they squat again under the same label, a new set starts, counted from its first rep.
  @Test func aSetWhoseMovementStopsEndsAtItsLastRepThoughTheLabelStays() throws {
    let recording = Self.record(
      [
        .exercise(.squat, reps: 6, partialReps: 0), .rest(seconds: 12),
        .exercise(.squat, reps: 5, partialReps: 0),
      ], camera: .front, seed: 32)
    let events = Self.run(recording) { _ in ["squat": 0.95] }
    let (sets, numbers) = Self.sets(events)
    let firstSet = try #require(recording.segments.first { $0.label == "squat" })
    let lastRepEnd = events.compactMap { event -> Double? in
      guard case .rep(_, _, let rep, _) = event, rep.end < firstSet.end + 1 else { return nil }
      return rep.end
    }.max()!
    #expect(sets.count == 2, "\(sets)")
    #expect(sets.first?.reps == 6, "\(sets)")
    #expect(abs(sets[0].end - lastRepEnd) < 1, "ended at \(sets[0].end), last rep \(lastRepEnd)")
    #expect(sets[0].end < firstSet.end + 2, "\(sets[0]) against \(firstSet)")
    #expect(numbers.last?.first == 1, "\(numbers)")
    #expect(sets.last?.reps ?? 0 >= 4, "\(sets)")
  }

  /// The classifier unsure for a set's first seconds, then leaning to an exercise that looks
  /// like the one done from this camera (`looks_like`), with a good share for the one done:
  /// the exercise whose engine counts more reps in the recent frames starts. Bench presses
  /// from the side read as sit-ups start as bench presses (the sit-ups' engine sees nothing of
  /// them), lunges read as squats as lunges (the squats' engine counts some); sit-ups read as
  /// sit-ups stay sit-ups though the bench press's engine counts them too (a tie: the
  /// classifier's choice).
  @Test(arguments: [
    (ExerciseMotion.benchPress, VirtualCamera.Range.side, "sit_up", "bench_press"),
    (.lunge, .front, "squat", "lunge"),
    (.sitUp, .side, "sit_up", "sit_up"),
  ])
  func aHesitationBetweenLookAlikesIsSettledByTheirEngines(
    _ motion: ExerciseMotion, _ camera: VirtualCamera.Range, _ leaning: String,
    _ expected: String
  ) {
    let recording = Self.record(
      [.rest(seconds: 2), .exercise(motion, reps: 8, partialReps: 0), .rest(seconds: 2)],
      camera: camera, seed: 33)
    let start = recording.segments.first { $0.label == motion.label }!.start
    let rival = leaning == motion.label ? "bench_press" : motion.label
    let events = Self.run(recording) { t in
      ScriptedClassifier.truth(recording, at: t) == Labels.other || t < start + 3
        ? [Labels.other: 0.9] : [leaning: 0.62, rival: 0.33]
    }
    let sets = Self.sets(events).sets
    #expect(sets.first?.exercise == expected, "\(sets)")
    #expect(sets.first?.reps ?? 0 >= 6, "\(sets)")
  }

  /// Four squats, a pause (the classifier says `other` through it and the movement stops for
  /// longer than two of the set's periods), four more: the same exercise again within two of
  /// its reps' durations of the set's end is the same set, whose count goes on (1…8) and whose
  /// engine keeps what it learned of the person's range (no rep after the pause is shallow
  /// against a stranger's first rep).
  @Test func aRestartedSetKeepsItsCountAndRange() {
    let recording = Self.record(
      [
        .exercise(.squat, reps: 4, partialReps: 0), .rest(seconds: 2),
        .exercise(.squat, reps: 4, partialReps: 0), .rest(seconds: 2),
      ], camera: .front, seed: 34)
    let events = Self.run(recording) { t in
      [ScriptedClassifier.truth(recording, at: t) == "squat" ? "squat" : Labels.other: 0.95]
    }
    let (sets, numbers) = Self.sets(events)
    #expect(sets.map(\.exercise) == ["squat"], "\(sets)")
    #expect(numbers.first == Array(1...8), "\(numbers)")
    let partial = events.contains { event in
      if case .rep(_, _, let rep, _) = event { return rep.partial } else { return false }
    }
    #expect(!partial)
  }
}
