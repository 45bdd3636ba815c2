import Speech
import Testing

@Suite struct UtteranceTests {
  static let spoken: [(SpeechEvent, String?)] = [
    (Events.start("push_up", at: 1), "push up"),
    (Events.rep(4, at: 2), "4"),
    (
      Events.cue("Go deeper: hips down to knee height.", at: 2),
      "Go deeper: hips down to knee height."
    ),
    (.goalReached(t: 2, exercise: "squat"), "Goal reached"),
    (Events.end(12, at: 3), "squat: 12 reps"),
    (Events.end(1, "bicep_curl", at: 3), "bicep curl: 1 rep"),
    (Events.end(0, "lunge", at: 3), "lunge: 0 reps"),
    (Events.cue("", at: 2), nil),
  ]

  /// Counts, cues and a set's start and end are said, in words a person follows; a cue without
  /// words is not.
  @Test(arguments: spoken)
  func whatIsSaidForAnEvent(_ event: SpeechEvent, _ text: String?) {
    #expect(Utterance(event, heard: 0)?.text == text)
  }
}
