import ActionModel
import Dispatch
import Foundation
import MotionSynth
import Poses
import RepCounting
import TestSupport
import Testing

@testable import Spotter

/// End to end through the shipped model: synthetic workouts the model never trained on (its
/// training workouts come from seed 1's generators; these use other seeds).
@Suite(.serialized) struct RuntimeTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
  static let runtime = Runtime(
    classifier: try! WeightsFile.load(repository + "/Weights/default.spotter"),
    catalogue: try! ExerciseCatalogue.load())

  static func frames(_ recording: Recording) -> [PeopleFrame] {
    recording.frames.enumerated().map { index, sample in
      var frame = PeopleFrame()
      frame.t = sample.t
      frame.line = index + 1
      if sample.pose.hasPerson { frame.people = [sample.pose] }
      return frame
    }
  }

  static func run(_ frames: [PeopleFrame]) -> [SpotterEvent] {
    let session = runtime.makeSession()
    var events: [SpotterEvent] = []
    for frame in frames { session.push(frame) { events.append($0) } }
    session.finish { events.append($0) }
    return events
  }

  static func demo(seed: UInt64) -> Recording {
    var options = RecordingOptions()
    options.camera = .front
    return Recorder.record(.demo, options: options, seed: seed)
  }

  /// What the runtime gets right over twenty unseen demo workouts (80 exercise sets).
  struct Scorecard {
    var sets = 0, foundOnTime = 0, countedExactly = 0, backfilled = 0, phantomReps = 0

    mutating func add(_ recording: Recording, _ events: [SpotterEvent]) {
      let truth = recording.segments.filter { $0.label != "other" }
      var exercises: [ExerciseTotal] = []
      if case .summary(_, let summary, _)? = events.last { exercises = summary }
      for segment in truth {
        sets += 1
        // Found on time: started and ended within a second of the truth.
        let started = events.contains {
          guard case .exerciseStarted(let t, let exercise, _) = $0 else { return false }
          return exercise == segment.label && abs(t - segment.start) <= 1
        }
        let ended = events.contains {
          guard case .exerciseEnded(let t, let exercise, _) = $0 else { return false }
          return exercise == segment.label && abs(t - segment.end) <= 1
        }
        if started && ended { foundOnTime += 1 }
        if exercises.first(where: { $0.name == segment.label })?.reps == segment.reps {
          countedExactly += 1
        }
      }
      let done = Set(truth.map(\.label))
      phantomReps += exercises.filter { !done.contains($0.name) }.reduce(0) { $0 + $1.reps }
      backfilled +=
        events.filter {
          if case .rep(_, _, _, true) = $0 { return true } else { return false }
        }.count
    }
  }

  /// The shipped model is not perfect (Weights/MODEL_CARD.md): over seeds 5001–5020 it found
  /// 79 of 80 sets with both boundaries within a second of the truth, counted 78 exactly,
  /// backfilled 50 reps and counted no reps of exercises not in the workout, when this was
  /// written (the model before it: 73, 74, 56 and 20). The floors sit a little below that, so
  /// a worse model or a broken hand-off fails.
  @Test func demoWorkoutsAreFollowedAndCounted() {
    var card = Scorecard()
    for seed in UInt64(5001)...5020 {
      let recording = Self.demo(seed: seed)
      card.add(recording, Self.run(Self.frames(recording)))
    }
    #expect(card.sets == 80)
    #expect(card.foundOnTime >= 76, "\(card)")
    #expect(card.countedExactly >= 75, "\(card)")
    #expect(card.phantomReps <= 8, "\(card)")
    // The first reps of a set happen before the classifier is sure: backfill counts them.
    #expect(card.backfilled >= 45, "\(card)")
  }

  /// Rests, a walk and three seconds with nobody in view count nothing, for 19 of 20 people seen
  /// from the front. Measured: one counted (seed 5016: a curl during the first rest, with this
  /// model and the one before it).
  @Test func restsWalksAndGapsCountNothing() {
    var counted: [UInt64] = []
    for seed in UInt64(5003)..<5023 {
      var frames = Self.frames(
        Self.fromTheFront(
          [.rest(seconds: 6), .other(.walking, seconds: 8), .rest(seconds: 5)], seed))
      for index in frames.indices where frames[index].t > 10 && frames[index].t < 13 {
        frames[index].people = []
      }  // nobody in view
      let events = Self.run(frames)
      if events.contains(where: Self.isRep) { counted.append(seed) }
      #expect(
        events.contains {
          if case .presence(_, false) = $0 { return true } else { return false }
        }, "seed \(seed): the gap was not reported")
    }
    #expect(counted.count <= 1, "reps in \(counted.count) of 20 recordings, seeds \(counted)")
  }

  /// Arm swings (forward and back, or circles) look much like alternating front raises or
  /// curls: over 40 people seen from the front, the runtime counts reps in a few. Measured:
  /// 8 of 40 with the shipped model (10 with the one before it).
  @Test func armSwingsRarelyCount() {
    let counted = (UInt64(5003)..<5043).filter { seed in
      let plan: [WorkoutPlan.Item] = [
        .rest(seconds: 4), .other(.armSwings, seconds: 6), .rest(seconds: 4),
      ]
      return Self.run(Self.frames(Self.fromTheFront(plan, seed))).contains(where: Self.isRep)
    }
    #expect(counted.count <= 10, "reps in \(counted.count) of 40 recordings, seeds \(counted)")
  }

  static func fromTheFront(_ items: [WorkoutPlan.Item], _ seed: UInt64) -> Recording {
    var options = RecordingOptions()
    options.camera = .front
    return Recorder.record(WorkoutPlan(items: items), options: options, seed: seed)
  }

  static func isRep(_ event: SpotterEvent) -> Bool {
    if case .rep = event { return true } else { return false }
  }

  @Test func aStreamThatStartsMidRepDoesNotDoubleCount() throws {
    let recording = Self.demo(seed: 5004)
    let squats = try #require(recording.segments.first { $0.label == "squat" })
    let middle = (squats.repBounds[2].lowerBound + squats.repBounds[2].upperBound) / 2
    let events = Self.run(Self.frames(recording).filter { $0.t >= middle })
    guard case .summary(_, let exercises, _)? = events.last else {
      Issue.record("no summary")
      return
    }
    let counted = exercises.first { $0.name == "squat" }?.reps ?? 0
    // Seven whole squats remain, and the second half of one.
    #expect(counted >= 6 && counted <= 8, "\(counted)")
  }

  @Test func sessionsOnTwoThreadsGiveWhatEachGivesAlone() {
    let a = Self.frames(Self.demo(seed: 5005))
    let b = Self.frames(Self.demo(seed: 5006))
    let aloneA = Self.run(a).map(\.jsonLine)
    let aloneB = Self.run(b).map(\.jsonLine)
    let together = Results()
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      together.set(index, Self.run(index == 0 ? a : b).map(\.jsonLine))
    }
    #expect(together.get(0) == aloneA)
    #expect(together.get(1) == aloneB)
  }

  /// Two threads' results, behind a lock.
  final class Results: @unchecked Sendable {
    private var values: [[String]] = [[], []]
    private let lock = NSLock()
    func set(_ index: Int, _ value: [String]) { lock.withLock { values[index] = value } }
    func get(_ index: Int) -> [String] { lock.withLock { values[index] } }
  }
}
