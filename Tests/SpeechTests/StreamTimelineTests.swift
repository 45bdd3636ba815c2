import Randomness
import Speech
import Testing

@Suite struct StreamTimelineTests {
  /// Reps quicker than the words: each utterance starts when the one before ends, and the
  /// count that fell two behind while "1" was said is skipped.
  @Test func oneUtteranceAtATimeAndStaleCountsSkipped() {
    let events = [1.0, 1.3, 1.6, 1.9].enumerated().map { Events.rep($0.offset + 1, at: $0.element) }
    let result = Said.timeline(events) { _ in 1.2 }
    #expect(
      result.said == [
        Said(text: "1", start: 1.0, end: 2.2), Said(text: "3", start: 2.2, end: 3.4),
        Said(text: "4", start: 3.4, end: 4.6),
      ])
    #expect(result.dropped == 1)
  }

  /// When the speaker is free, an utterance starts the moment it is heard.
  @Test func aFreeSpeakerSaysACountAtOnce() {
    let result = Said.timeline([Events.rep(1, at: 1), Events.rep(2, at: 3.5)])
    #expect(
      result.said == [Said(text: "1", start: 1, end: 2), Said(text: "2", start: 3.5, end: 4.5)])
  }

  /// When an exercise is recognised, its start and backfilled reps arrive together, about the
  /// past: they are said from the moment they were heard, and the burst's stale counts are
  /// dropped before any is said.
  @Test func aBackfilledBurstIsSaidFromWhenItWasHeard() {
    let burst: [(Double?, SpeechEvent)] = [
      (2.0, Events.start(at: 0.3)), (nil, Events.rep(1, at: 1.0)),
      (nil, Events.rep(2, at: 1.5)),
      (nil, Events.rep(3, at: 1.9)),
    ]
    let result = Said.timeline(burst)
    #expect(result.said.map(\.description) == ["squat@2.0", "2@3.0", "3@4.0"])
    #expect(result.dropped == 1)
  }

  /// A rep and its cue at the same moment: the count, then the cue.
  @Test func aRepThenItsCue() {
    let result = Said.timeline([Events.rep(3, at: 2), Events.cue("Go deeper.", at: 2)])
    #expect(result.said.map(\.description) == ["3@2.0", "Go deeper.@3.0"])
  }

  /// A cue that waited more than 4 s behind a long utterance is dropped; one that waited less
  /// is said.
  @Test func aCueThatWaitedTooLongIsDropped() {
    let result = Said.timeline(
      [Events.rep(1, at: 0), Events.cue("Knees out.", at: 0.5), Events.cue("Go deeper.", at: 1.5)]
    ) { $0 == "1" ? 5 : 1 }
    #expect(result.said.map(\.description) == ["1@0.0", "Go deeper.@5.0"])
    #expect(result.dropped == 1)
  }

  /// `finish` says what is pending and returns the later of the clock and the last word's end.
  @Test func finishReturnsWhereTheSpeechOrTheStreamEnds() {
    var timeline = StreamTimeline()
    let say: (Utterance, Double) -> Double = { _, _ in 2 }
    timeline.hear(Events.rep(1, at: 1), say: say)
    timeline.advance(to: 10, say: say)
    #expect(timeline.finish(say: say) == 10)
    timeline.hear(Events.rep(2, at: 11), say: say)
    #expect(timeline.finish(say: say) == 13)
  }

  /// Over random workouts: nothing overlaps, nothing starts before it was heard, counts rise
  /// within a set, every set's end is said, and every spoken event is said or dropped.
  @Test(arguments: 1...25)
  func randomWorkoutsNeverOverlap(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var events: [SpeechEvent] = []
    var t = 0.0
    var ends = 0
    for set in 0..<Int.random(in: 1...4, using: &random) {
      let exercise = ["squat", "push_up", "lunge"][set % 3]
      t += random.unit() * 3
      events.append(Events.start(exercise, at: t))
      for count in 1...Int.random(in: 1...15, using: &random) {
        t += 0.2 + random.unit() * 2
        events.append(Events.rep(count, exercise, at: t))
        if random.unit() < 0.3 { events.append(Events.cue("Cue \(count % 3).", exercise, at: t)) }
      }
      t += random.unit()
      events.append(Events.end(events.count, exercise, at: t))
      ends += 1
    }
    let result = Said.timeline(events) { 0.3 + 0.1 * Double($0.count) }
    for (before, after) in zip(result.said, result.said.dropFirst()) {
      #expect(after.start >= before.end - 1e-9, "\(after) overlaps \(before)")
    }
    #expect(result.said.allSatisfy { $0.start >= $0.heard })
    #expect(result.said.filter { $0.text.contains("reps") }.count == ends)
    #expect(result.said.count + result.dropped == events.count)
    var lastCount = 0
    for said in result.said {
      if let count = Int(said.text) {
        #expect(count > lastCount)
        lastCount = count
      } else if said.text.contains("reps") {
        lastCount = 0
      }
    }
  }
}
