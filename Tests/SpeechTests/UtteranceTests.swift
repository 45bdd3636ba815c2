import RepCounting
import Speech
import Spotter
import Testing

@Suite struct UtteranceTests {
  static let spoken: [(SpotterEvent, String?)] = [
    (Events.start("push_up", at: 1), "push up"),
    (Events.rep(4, at: 2), "4"),
    (Events.rep(1, at: 2, backfilled: true), "1"),
    (
      Events.cue("Go deeper: hips down to knee height.", at: 2),
      "Go deeper: hips down to knee height."
    ),
    (Events.end(12, at: 3), "squat: 12 reps"),
    (Events.end(1, "bicep_curl", at: 3), "bicep curl: 1 rep"),
    (Events.end(0, "lunge", at: 3), "lunge: 0 reps"),
    (Events.start("other", at: 1), nil),
    (Events.end(0, "other", at: 1), nil),
    (Events.cue("", at: 2), nil),
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

  /// Counts, cues and a set's start and end are said, in words a person follows; nothing else
  /// is, nor the sets of `other`.
  @Test(arguments: spoken)
  func whatIsSaidForAnEvent(_ event: SpotterEvent, _ text: String?) {
    #expect(Utterance(event, heard: 0)?.text == text)
  }
}
