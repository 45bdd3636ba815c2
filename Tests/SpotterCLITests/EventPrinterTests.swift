import Poses
import RepCounting
import Spotter
import Testing

@testable import SpotterCLI

/// The timeline's lines, as `classify`, `count` and `demo` print them.
@Suite struct EventPrinterTests {
  /// A printer for the built-in definitions, as `classify` makes one.
  static func printer() throws -> EventPrinter {
    let catalogue = try ExerciseCatalogue.load()
    return EventPrinter(
      output: .standardOutput(), definition: { catalogue.definition(forLabel: $0) })
  }

  static func rep(_ exercise: String, range: Double) -> SpotterEvent {
    let rep = Rep(
      count: 4, start: 1, end: 2, rangeOfMotion: range, timeDown: 0.5, timeUp: 0.5)
    return .rep(t: 2, exercise: exercise, rep: rep, backfilled: false)
  }

  /// A rep's range says its units, from the definition that counts it: degrees for an angle,
  /// body sizes for a height; a definition counting on signals in different units (a knee
  /// raise's height and lean) gives the bare number.
  @Test(arguments: [
    ("push_up", 159.24, "    2.0 s    rep 4  1.0 s, range 159.2°"),
    ("squat", 0.581, "    2.0 s    rep 4  1.0 s, range 0.58 body sizes"),
    ("knee_raise", 0.5, "    2.0 s    rep 4  1.0 s, range 0.50"),
    ("no_such_exercise", 0.5, "    2.0 s    rep 4  1.0 s, range 0.50"),
  ])
  func aRepsRangeSaysItsUnits(_ exercise: String, _ range: Double, _ line: String) throws {
    #expect(try Self.printer().line(Self.rep(exercise, range: range)) == line)
  }

  @Test func aRefusedMovementsRangeSaysItsUnits() throws {
    let refused = SpotterEvent.repRejected(
      t: 3, exercise: "squat",
      rejection: Rejection(reason: .tooFast, start: 2.8, end: 3, rangeOfMotion: 0.2))
    #expect(
      try Self.printer().line(refused)
        == "    3.0 s    not counted: too fast, range 0.20 body sizes")
  }
}
