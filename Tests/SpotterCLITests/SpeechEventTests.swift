import RepCounting
import Speech
import Spotter
import Testing

@testable import SpotterCLI

/// What speech hears of the runtime's events: the command line composes the two.
@Suite struct SpeechEventTests {
  static let rep = Rep(
    count: 4, start: 1, end: 2, rangeOfMotion: 0.6, timeDown: 0.5, timeUp: 0.5)

  static let heard: [(SpotterEvent, SpeechEvent?)] = [
    (
      .exerciseStarted(t: 1, exercise: "push_up", confidence: 0.9),
      .exerciseStarted(t: 1, exercise: "push_up")
    ),
    (
      .rep(t: 2, exercise: "squat", rep: rep, backfilled: false),
      .rep(t: 2, exercise: "squat", count: 4)
    ),
    (
      .rep(t: 2, exercise: "squat", rep: rep, backfilled: true),
      .rep(t: 2, exercise: "squat", count: 4)
    ),
    (
      .cue(t: 2, exercise: "squat", message: "Go deeper."),
      .cue(t: 2, exercise: "squat", message: "Go deeper.")
    ),
    (
      .goalReached(t: 3, exercise: "squat", goal: "10 reps"),
      .goalReached(t: 3, exercise: "squat")
    ),
    (
      .exerciseEnded(t: 3, exercise: "squat", reps: 12),
      .exerciseEnded(t: 3, exercise: "squat", reps: 12)
    ),
    (.exerciseStarted(t: 1, exercise: "other", confidence: 0.9), nil),
    (.exerciseEnded(t: 1, exercise: "other", reps: 0), nil),
    (.presence(t: 1, present: true), nil),
    (
      .prediction(t: 1, label: "squat", confidence: 0.9, lowConfidence: false, probabilities: []),
      nil
    ),
    (
      .repRejected(
        t: 1, exercise: "squat",
        rejection: Rejection(reason: .tooFast, start: 0, end: 1, rangeOfMotion: 0.2)),
      nil
    ),
    (.summary(t: 9, exercises: [], counters: StreamCounters()), nil),
    (.error(t: nil, line: 3, message: "bad"), nil),
  ]

  /// Sets, reps, cues and goals are heard; nothing else is, nor the sets of `other`.
  @Test(arguments: heard)
  func whatSpeechHearsOfAnEvent(_ event: SpotterEvent, _ expected: SpeechEvent?) {
    #expect(SpeechEvent(event) == expected)
  }
}
