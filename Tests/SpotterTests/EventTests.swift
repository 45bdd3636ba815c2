import Foundation
import RepCounting
import TestSupport
import Testing

@testable import Spotter

@Suite struct EventTests {
  static func object(_ event: SpotterEvent) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(event.jsonLine.utf8)) as? [String: Any])
  }

  @Test func eventsUseTheStableFieldNames() throws {
    let rep = Rep(
      count: 3, start: 1, end: 2.5, rangeOfMotion: 0.75, timeDown: 0.5, timeUp: 1, cue: nil)
    let json = try Self.object(.rep(t: 2.5, exercise: "squat", rep: rep, backfilled: true))
    #expect(json["type"] as? String == "rep")
    #expect(json["exercise"] as? String == "squat")
    #expect(json["count"] as? Int == 3)
    #expect(json["duration"] as? Double == 1.5)
    #expect(json["range_of_motion"] as? Double == 0.75)
    #expect(json["backfilled"] as? Bool == true)
    #expect(json["t"] as? Double == 2.5)
    let started = try Self.object(.exerciseStarted(t: 1, exercise: "lunge", confidence: 0.9))
    #expect(
      started["type"] as? String == "exercise_started" && started["confidence"] as? Double == 0.9)
    let summary = try Self.object(
      .summary(
        t: 9, exercises: [ExerciseTotal(name: "squat", reps: 10, activeSeconds: 30)],
        counters: StreamCounters(droppedFrames: 2)))
    #expect((summary["exercises"] as? [String: [String: Double]])?["squat"]?["reps"] == 10)
    #expect(summary["dropped_frames"] as? Int == 2)
    let error = try Self.object(.error(t: nil, line: 12, message: "a \"quoted\"\nmessage"))
    #expect(error["line"] as? Int == 12 && error["message"] as? String == "a \"quoted\"\nmessage")
  }

  /// A daemon holds each live session's record until the session ends: a set that closed
  /// keeps its reps in room for them, not in the room its array doubled to while they came.
  @Test(arguments: [33, 100, 520])
  func aClosedSetKeepsRoomForItsRepsOnly(reps: Int) {
    var recorder = SessionRecorder(source: "test")
    recorder.take(.exerciseStarted(t: 0, exercise: "squat", confidence: 0.9))
    for count in 1...reps {
      let rep = Rep(
        count: count, start: Double(count - 1), end: Double(count), rangeOfMotion: 90,
        timeDown: 0.5, timeUp: 0.5)
      recorder.take(.rep(t: Double(count), exercise: "squat", rep: rep, backfilled: false))
    }
    recorder.take(.exerciseEnded(t: Double(reps), exercise: "squat", reps: reps))
    let kept = recorder.record.sets[0].reps
    #expect(kept.count == reps && kept.map(\.t) == (1...reps).map(Double.init))
    // Grown by doubling, the room would be 64, 128 and 1,024 reps; the allocator may round
    // the exact room up by a few (512 bytes at most: 8 reps).
    #expect(kept.capacity < reps + 8)
  }
}

@Suite struct LabelSmootherTests {
  /// The smoother these sequences were written for: a dwell of 3, whatever the default.
  static var dwellOfThree: SessionOptions {
    var options = SessionOptions()
    options.dwell = 3
    return options
  }

  /// Feeds (label, confidence) predictions a third of a second apart; returns the changes.
  static func run(_ predictions: [(Int?, Float)], options: SessionOptions = dwellOfThree)
    -> [String]
  {
    var smoother = LabelSmoother(options: options, otherLabel: 9)
    var changes: [String] = []
    for (index, prediction) in predictions.enumerated() {
      let change = smoother.observe(
        label: prediction.0, confidence: prediction.1, t: Double(index))
      if let end = change.ended { changes.append("end \(end.label) @\(Int(end.at))") }
      if let start = change.started { changes.append("start \(start.label) @\(Int(start.at))") }
    }
    if let label = smoother.active, smoother.finish() {
      changes.append("end \(label) @\(predictions.count)")
    }
    return changes
  }

  @Test func anExerciseStartsAfterTheDwellAndEndsAfterTheExit() {
    let squat: (Int?, Float) = (1, 0.9)
    let other: (Int?, Float) = (9, 0.9)
    let changes = Self.run([
      other, squat, squat, squat, squat, other, squat, other, other, other, other, other, other,
      other,
    ])
    // A single odd window does not end the set; six in a row do, from the first of them.
    #expect(changes == ["start 1 @1", "end 1 @7"])
  }

  @Test func lowConfidenceNeverStartsAnExercise() {
    let unsure: (Int?, Float) = (2, 0.4)
    #expect(Self.run(Array(repeating: unsure, count: 20)).isEmpty)
    let justBelow: (Int?, Float) = (2, 0.59)
    #expect(Self.run(Array(repeating: justBelow, count: 20)).isEmpty)
  }

  @Test func flickeringLabelsStartNothing() {
    let a: (Int?, Float) = (1, 0.9)
    let b: (Int?, Float) = (2, 0.9)
    #expect(Self.run([a, b, a, b, a, b, a, b, a, b]).isEmpty)
  }

  @Test func aSwitchEndsOneExerciseAndStartsTheNext() {
    let a: (Int?, Float) = (1, 0.9)
    let b: (Int?, Float) = (2, 0.9)
    #expect(
      Self.run([a, a, a, a, b, b, b, b, b, b, b]) == [
        "start 1 @0", "end 1 @4", "start 2 @4", "end 2 @11",
      ])
    // Three or four of the other, then back: no switch.
    #expect(Self.run([a, a, a, b, b, b, b, a, a, b, b, b, a]) == ["start 1 @0", "end 1 @13"])
  }

  @Test func nobodyEndsAnExercise() {
    let a: (Int?, Float) = (1, 0.9)
    let nobody: (Int?, Float) = (nil, 0)
    #expect(
      Self.run([a, a, a, nobody, nobody, nobody, nobody, nobody, nobody]) == [
        "start 1 @0", "end 1 @3",
      ])
  }
}
