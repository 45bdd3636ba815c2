import Poses
import RepCounting
import TestSupport
import Testing

@testable import Evaluation

@Suite struct TempoBandTests {
  @Test(arguments: [
    (0.3, TempoBand.quick), (0.79, .quick), (0.8, .brisk), (1.19, .brisk),
    (1.2, .usual), (1.99, .usual), (2, .controlled), (3.49, .controlled),
    (3.5, .slow), (40, .slow),
  ])
  func aClipFallsInTheBandOfItsSecondsARep(secondsPerRep: Double, band: TempoBand) {
    #expect(TempoBand(secondsPerRep: secondsPerRep) == band)
  }
}

@Suite struct SilentMissTests {
  static func rep(_ start: Double, _ end: Double, partial: Bool = false) -> RepEvent {
    .rep(
      Rep(
        count: 1, start: start, end: end, rangeOfMotion: 1, timeDown: 0, timeUp: 0,
        partial: partial))
  }
  static func refused(_ start: Double, _ end: Double) -> RepEvent {
    .rejected(Rejection(reason: .tooSmall, start: start, end: end, rangeOfMotion: 0.1))
  }

  /// A rep, partial or not, and a refusal each hear the done rep they overlap; a done rep
  /// with no event is missed; cues hear nothing.
  @Test func repsAndRefusalsHearTheRepsTheyOverlap() {
    let done = [0.0...1, 1.0...2, 2.0...3, 3.0...4]
    let events = [
      Self.rep(0.1, 0.8), Self.rep(1.1, 1.8, partial: true), .cue(message: "Go deeper", t: 2.5),
      Self.refused(3.2, 3.9),
    ]
    #expect(SilentMisses.missed(done: done, events: events) == [2])
  }

  /// Sharing a third of the done rep's span is enough; less is not, however short the event.
  @Test func anEventMustShareAThirdOfTheDoneRep() {
    #expect(SilentMisses.overlaps(0...1, 0.6...2))  // 0.4 of the done rep
    #expect(!SilentMisses.overlaps(0...1, 0.7...2))  // 0.3
    #expect(SilentMisses.overlaps(0...3, 0.5...2))  // inside, half of it
    #expect(!SilentMisses.overlaps(0...3, 1...1.5))  // inside, a sixth of it
    #expect(!SilentMisses.overlaps(0...1, 0.9...1.2))  // a short refusal grazing it
    #expect(!SilentMisses.overlaps(0...1, 1.2...2))  // apart
  }

  /// One event hears one rep: a count that spans two done reps leaves one of them missed.
  @Test func oneEventHearsOneRepAtMost() {
    let done = [0.0...1, 1.0...2]
    #expect(SilentMisses.missed(done: done, events: [Self.rep(0.3, 1.7)]).count == 1)
    #expect(SilentMisses.missed(done: done, events: [Self.rep(0.3, 1.7), Self.rep(1.2, 2)]) == [])
  }

  /// The matching is a largest one: an event that could hear either of two reps is given to
  /// the one no other event hears, whatever the order.
  @Test func anEventThatCouldServeTwoGoesToTheOneThatNeedsIt() {
    let done = [0.0...1, 1.0...2]
    // The first event overlaps both done reps (0.6 s of the first, 0.5 s of the second); the
    // second only the first. In time order, the first would take rep 1 and leave rep 2 missed.
    let events = [Self.rep(0.4, 1.5), Self.refused(0.1, 0.6)]
    #expect(SilentMisses.missed(done: done, events: events) == [])
  }

  /// Phantom events do not hear reps they are not on.
  @Test func eventsElsewhereHearNothing() {
    let done = [10.0...11, 11.0...12]
    let events = (0..<5).map { Self.rep(Double($0), Double($0) + 0.8) }
    #expect(SilentMisses.missed(done: done, events: events) == [0, 1])
  }
}

@Suite struct TempoTableTests {
  static func clip(
    _ file: String, done: Int, counted: Int, seconds: Double, bounds: [ClosedRange<Double>]? = nil,
    events: [RepEvent] = []
  ) -> TempoClip {
    TempoClip(
      file: file, label: "squat", done: done, counted: counted, seconds: seconds,
      repBounds: bounds, events: events)
  }

  /// A hand-made table: clips sorted into bands by clip time ÷ reps, rows fastest first with
  /// empty bands left out, the same error as the rep table, and silent misses only over clips
  /// with rep bounds.
  @Test func theArithmeticOfAHandMadeTable() {
    let bounds: [ClosedRange<Double>] = [0...0.6, 0.6...1.2, 1.2...1.8, 1.8...2.4]
    let clips = [
      // 0.6 s a rep, 4 done, 3 counted: the rep at 1.2–1.8 was refused, the last one missed.
      Self.clip(
        "a", done: 4, counted: 3, seconds: 2.4, bounds: bounds,
        events: [
          SilentMissTests.rep(0, 0.5), SilentMissTests.rep(0.6, 1.1),
          SilentMissTests.refused(1.3, 1.7), SilentMissTests.rep(5, 6),
        ]),
      // 0.7 s a rep, same file, counted exactly, no bounds.
      Self.clip("a", done: 10, counted: 10, seconds: 7),
      // 2.5 s a rep: one over.
      Self.clip("b", done: 4, counted: 5, seconds: 10),
      // No reps done: no tempo, left out.
      Self.clip("c", done: 0, counted: 2, seconds: 10),
    ]
    let table = TempoTable(clips)
    #expect(table.rows.map(\.band) == [.quick, .controlled, nil])
    let quick = table.rows[0]
    #expect(quick.clips == 2 && quick.files == 1 && quick.counted == 13 && quick.done == 14)
    #expect(abs(quick.error.mae - 0.125) < 1e-12 && quick.error.withinOne == 1)
    #expect(quick.exact == 1)
    #expect(quick.silentMisses == TempoTable.Misses(missed: 1, done: 4))
    let slow = table.rows[1]
    #expect(slow.clips == 1 && slow.exact == 0 && abs(slow.error.mae - 0.25) < 1e-12)
    #expect(slow.silentMisses == nil)
    let all = table.rows[2]
    #expect(all.clips == 3 && all.files == 2 && all.counted == 18 && all.done == 18)
    #expect(all.error == [clips[0], clips[1], clips[2]].map(\.score).error())
    #expect(all.silentMisses == TempoTable.Misses(missed: 1, done: 4))
    #expect(table.measuresSilentMisses)
    #expect(!TempoTable([clips[1], clips[2]]).measuresSilentMisses)
    #expect(TempoTable([clips[3]]).rows.isEmpty)
  }
}

@Suite struct CountedRepsTests {
  /// The count is the counter's, and the events are its reps and refusals: as many reps as
  /// counted, no cues.
  @Test func countingGivesTheCountAndTheEvents() throws {
    let ticks = (0..<300).map { index in
      let t = Double(index) / 30
      return (t: t, pose: Fixtures.squatter(at: t))
    }
    let definition = try #require(try ExerciseCatalogue.load().definition(forLabel: "squat"))
    let counted = ClipScoring.countReps(
      ResampledRecording(ticks: ticks), from: nil, to: nil, definition: definition)
    #expect(counted.count > 0)
    let reps = counted.events.filter { if case .rep = $0 { true } else { false } }
    #expect(reps.count == counted.count)
    #expect(!counted.events.contains { if case .cue = $0 { true } else { false } })
  }
}
