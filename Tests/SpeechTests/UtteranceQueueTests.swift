import Speech
import Testing

@Suite struct UtteranceQueueTests {
  /// Offers `events` at `heard`, then takes everything `next(now:)` gives at `now`.
  static func drain(
    _ events: [SpeechEvent], heard: Double = 0, now: Double = 0
  ) -> (said: [String], dropped: Int) {
    var queue = UtteranceQueue()
    for event in events { queue.offer(event, heard: heard) }
    var said: [String] = []
    while let next = queue.next(now: now) { said.append(next.text) }
    return (said, queue.dropped)
  }

  /// Reps 1…n heard before the speaker is free: the counts two or more behind the newest go,
  /// the one just behind it is still said.
  @Test(arguments: [
    (1, ["1"]), (2, ["1", "2"]), (3, ["2", "3"]), (4, ["3", "4"]), (12, ["11", "12"]),
  ])
  func aCountTwoRepsOldIsNotSaid(reps: Int, said: [String]) {
    let result = Self.drain((1...reps).map { Events.rep($0, at: Double($0)) })
    #expect(result.said == said)
    #expect(result.dropped == reps - said.count)
  }

  /// Counts are judged per exercise.
  @Test func anotherExercisesCountsDoNotMakeACountStale() {
    let result = Self.drain([
      Events.rep(1, "squat", at: 1), Events.rep(5, "lunge", at: 2), Events.rep(6, "lunge", at: 3),
    ])
    #expect(result.said == ["1", "5", "6"])
  }

  /// A cue or a set's start waits at most `maximumWait` (4 s); a set's end and a count are not
  /// dropped for waiting.
  @Test(arguments: [(0.0, true), (4.0, true), (4.01, false), (60, false)])
  func cuesAndStartsGoStaleWithTime(wait: Double, said: Bool) {
    for event in [Events.cue("Go deeper.", at: 0), Events.start(at: 0)] {
      #expect(Self.drain([event], heard: 0, now: wait).said.count == (said ? 1 : 0))
    }
    #expect(Self.drain([Events.end(10, at: 0)], heard: 0, now: wait).said == ["squat: 10 reps"])
    #expect(Self.drain([Events.rep(3, at: 0)], heard: 0, now: wait).said == ["3"])
  }

  /// A set's end says its name and total, so its pending start and counts go; its cues, and
  /// other sets' words, stay.
  @Test func aSetsEndReplacesItsPendingStartAndCounts() {
    let result = Self.drain([
      Events.end(8, "push_up", at: 0), Events.start(at: 1), Events.rep(1, at: 2),
      Events.cue("Go deeper.", at: 2), Events.rep(2, at: 3), Events.end(2, at: 4),
    ])
    #expect(result.said == ["push up: 8 reps", "Go deeper.", "squat: 2 reps"])
    #expect(result.dropped == 3)
  }

  /// The same cue heard again while the first is pending is said once, in the newer place.
  @Test func aRepeatedCueIsSaidOnceAtItsNewestPlace() {
    let result = Self.drain([
      Events.cue("Go deeper.", at: 1), Events.cue("Knees out.", at: 2),
      Events.cue("Go deeper.", at: 3),
    ])
    #expect(result.said == ["Knees out.", "Go deeper."])
    #expect(result.dropped == 1)
  }

  /// A new set counts from 1 again: the last set's counts do not make its first ones stale.
  @Test func aNewSetOfTheSameExerciseCountsAfresh() {
    var queue = UtteranceQueue()
    for count in 1...10 { queue.offer(Events.rep(count, at: Double(count)), heard: 0) }
    queue.offer(Events.end(10, at: 11), heard: 0)
    while queue.next(now: 0) != nil {}
    for event in [Events.start(at: 20), Events.rep(1, at: 21)] { queue.offer(event, heard: 0) }
    #expect(queue.next(now: 0)?.text == "squat")
    #expect(queue.next(now: 0)?.text == "1")
  }

  /// Nothing is given out before it was heard.
  @Test func nothingIsSaidBeforeItIsHeard() {
    var queue = UtteranceQueue()
    queue.offer(Events.rep(1, at: 5), heard: 5)
    #expect(queue.next(now: 4.9) == nil)
    #expect(queue.next(now: 5)?.text == "1")
    #expect(queue.isEmpty)
  }
}
