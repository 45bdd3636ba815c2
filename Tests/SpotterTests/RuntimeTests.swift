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

  @Test(arguments: [UInt64(5001), 5002])
  func aWorkoutIsFollowedAndCountedExactly(seed: UInt64) throws {
    let recording = Self.demo(seed: seed)
    let events = Self.run(Self.frames(recording))
    let truth = recording.segments.filter { $0.label != "other" }
    let starts = events.compactMap { event -> (String, Double)? in
      if case .exerciseStarted(let t, let exercise, _) = event { return (exercise, t) }
      return nil
    }
    // Each exercise is found, in order, once, starting within a second and a half of the truth.
    #expect(starts.map(\.0) == truth.map(\.label), "\(starts)")
    for (start, segment) in zip(starts, truth) {
      #expect(
        abs(start.1 - segment.start) < 1.5,
        "\(segment.label) started at \(start.1), truth \(segment.start)")
    }
    guard case .summary(_, let exercises, _)? = events.last else {
      Issue.record("no summary")
      return
    }
    for segment in truth {
      #expect(
        exercises.first { $0.name == segment.label }?.reps == segment.reps,
        "\(segment.label): \(exercises)")
    }
    // The first reps of a set happen before the classifier is sure: backfill counts them.
    let backfilled = events.filter {
      if case .rep(_, _, _, true) = $0 { return true } else { return false }
    }
    #expect(!backfilled.isEmpty)
  }

  @Test func restsWalksAndGapsCountNothing() {
    let plan = WorkoutPlan(items: [
      .rest(seconds: 6), .other(.walking, seconds: 8), .other(.armSwings, seconds: 6),
      .rest(seconds: 5),
    ])
    var options = RecordingOptions()
    options.camera = .front
    let recording = Recorder.record(plan, options: options, seed: 5003)
    var frames = Self.frames(recording)
    for index in frames.indices where frames[index].t > 10 && frames[index].t < 13 {
      frames[index].people = []
    }  // nobody in view
    let events = Self.run(frames)
    let reps = events.filter { if case .rep = $0 { return true } else { return false } }
    #expect(
      reps.isEmpty,
      "\(events.filter { if case .prediction = $0 { return false } else { return true } }.map(\.jsonLine))"
    )
    #expect(
      events.contains(.presence(t: 0, present: false))
        || events.contains {
          if case .presence(_, false) = $0 { return true } else { return false }
        })
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
