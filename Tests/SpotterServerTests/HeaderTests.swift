import Foundation
import Poses
import Spotter
import TestSupport
import Testing

@testable import SpotterServer

/// The header starts the stream's session: its own options (`HeaderOptions`), read once, a
/// bad one told on the header's line while the stream goes on; lines before it each named;
/// and on a listener that asks for a token, the token or nothing.
@Suite struct HeaderTests {
  /// The errors a client reads (each as `line: message`) and its summary's reps, for the
  /// squats recording with `keys` added to its header.
  static func served(
    _ keys: String, lines: [String] = Recordings.squats, people: Int = 1, keepsHistory: Bool = true
  ) -> (errors: [String], reps: [String: Int], driver: StreamDriver) {
    var lines = lines
    lines[0] = Recordings.header(lines[0], keys)
    let driver = StreamDriver(
      runtime: Recordings.runtime,
      settings: StreamDriver.settings(people: people, keepsHistory: keepsHistory))
    driver.send(Recordings.text(lines), chunk: 4096)
    driver.end()
    let errors = driver.receivedLines.compactMap(Recordings.object).filter {
      $0["type"] as? String == "error"
    }.map { "\($0["line"] as? Int ?? 0): \($0["message"] as? String ?? "")" }
    return (errors, Recordings.summary(driver.receivedLines), driver)
  }

  /// Each option a client may get wrong: an error for line 1 saying what was found, what was
  /// expected and what the stream does instead; the squats are counted all the same.
  @Test(arguments: [
    (
      #""goal":"squat:lots""#,
      #"1: header "goal" "squat:lots" is not a goal; expected squat:20, 60s or lunge:45s; the "#
        + "stream goes on without it"
    ),
    (
      #""goal":7"#,
      #"1: header "goal" is 7; expected a goal such as "squat:20" or a list; the stream goes "#
        + "on without it"
    ),
    (
      #""people":"lots""#,
      #"1: header "people" is "lots"; expected a whole number from 1 to 64; the stream goes on "#
        + "with one person"
    ),
    (
      #""exercise":"nope""#,
      #"1: header "exercise" is "nope"; expected one of "#
    ),
    (
      #""client":"a\u0000b""#,
      #"1: header "person"/"client" holds a control character; the session is stored without "#
        + "a name"
    ),
  ])
  func aBadOptionIsToldAndTheStreamGoesOn(keys: String, error: String) {
    let served = Self.served(keys)
    #expect(served.errors.count == 1 && served.errors[0].hasPrefix(error), "\(served.errors)")
    #expect(served.reps["squat"] == 6, "\(served.reps)")
    #expect(served.driver.records.count == 1)
    #expect(served.driver.records.first?.record.person == nil)
  }

  /// Good options are the session's: its own goal (reached, it ends the set), the exercise
  /// counted from the first frame, and the name it is stored under.
  @Test func goodOptionsAreTheSessionsOwn() {
    let served = Self.served(#""goal":["squat:3"],"exercise":"squat","person":"ada""#)
    #expect(served.errors.isEmpty, "\(served.errors)")
    #expect(served.driver.receivedLines.contains { $0.contains(#""type":"goal_reached""#) })
    #expect(
      served.driver.eventLines.first?.hasPrefix(
        #"{"t":0.000,"type":"exercise_started","exercise":"squat""#) == true)
    #expect(served.reps["squat"] == 3)
    #expect(served.driver.records.first?.record.person == "ada")
  }

  /// A stream of several people cannot be resumed, and a server without a history has nothing
  /// to resume from: the stream goes on as a new one, told why.
  @Test(arguments: [
    (#""people":2,"resume":"abc""#, true, "a stream of several people cannot be resumed"),
    (#""resume":"abc""#, false, "this server keeps no history"),
  ])
  func aResumeThatCannotBeIsTold(keys: String, keepsHistory: Bool, error: String) {
    let served = Self.served(keys, keepsHistory: keepsHistory)
    #expect(served.errors.count == 1 && served.errors[0].contains(error), "\(served.errors)")
    #expect(!served.errors[0].contains("abc"), "an error never quotes a session's id")
    #expect(served.driver.checkpoints.isEmpty)
    #expect(served.driver.records.count == 1)
  }

  /// Until a header comes, each line is tried as one: the first says what is wrong with it as
  /// a header; frames after it, that the stream has no header. Once a header comes, the
  /// summary counts them.
  @Test func linesBeforeTheHeaderAreEachNamed() {
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.send(
      Recordings.text([
        #"{"t":0.1,"pose":null}"#, "", #"{"t":0.2,"pose":null}"#, "not json",
        Recordings.squats[0], #"{"t":0.4,"pose":null}"#,
      ]))
    driver.end()
    let lines = driver.receivedLines
    let errors = lines.compactMap(Recordings.object).filter { $0["type"] as? String == "error" }
    #expect(errors.map { $0["line"] as? Int } == [1, 3, 4])
    #expect((errors[0]["message"] as? String)?.contains("the stream starts with a frame") == true)
    #expect((errors[1]["message"] as? String)?.contains("the stream has no header (line 1") == true)
    #expect((errors[2]["message"] as? String)?.contains("the first line must be") == true)
    #expect(lines.last?.contains(#""bad_lines":3"#) == true, "\(lines)")
  }

  static let token: [UInt8] = Array("3f9c2a7be1d84c06a5b7e2f19d3c8a40".utf8)

  /// On a listener that asks for a token, the first line that is not blank must be a header
  /// that carries it: anything else is refused before a frame is read, and nothing is sent.
  @Test(arguments: [
    (String?.none, String?.some("this listener needs a token")),
    (#""wrong""#, "wrong token"),
    (#""3f9c2a7be1d84c06a5b7e2f19d3c8a4""#, "wrong token"),
    (#""3f9c2a7be1d84c06a5b7e2f19d3c8a40""#, nil),
  ])
  func aTokenIsAskedOfTheFirstLine(token: String?, refusal: String?) {
    let driver = StreamDriver(runtime: Recordings.runtime, token: Self.token)
    var lines = Recordings.squats
    if let token { lines[0] = Recordings.header(lines[0], #""token":\#(token)"#) }
    driver.send(Recordings.text(["", "  "] + lines), chunk: 1000)
    if let refusal {
      #expect(driver.stream.refusal?.contains(refusal) == true, "\(driver.stream.refusal ?? "")")
      #expect(driver.received.isEmpty)
      #expect(!driver.stream.isOpen)
    } else {
      #expect(driver.stream.refusal == nil)
      driver.end()
      #expect(Recordings.summary(driver.receivedLines)["squat"] == 6)
      #expect(!String(decoding: driver.received, as: UTF8.self).contains("3f9c2a7b"))
    }
  }

  /// A first line that is neither a header nor a counters request with the token is refused;
  /// a counters request without it is told the listener needs one.
  @Test(arguments: [
    (#"{"t":0,"pose":null}"#, "the first line must be a pose-file header"),
    (#"{"cmd":"stats"}"#, "this listener needs a token"),
    (#"{"cmd":"stats","token":"nope"}"#, "wrong token"),
  ])
  func aFirstLineThatIsNoHeaderIsRefused(line: String, refusal: String) {
    let driver = StreamDriver(runtime: Recordings.runtime, token: Self.token)
    driver.send(Recordings.text([line] + Recordings.squats))
    #expect(driver.stream.refusal?.hasPrefix(refusal) == true, "\(driver.stream.refusal ?? "")")
    #expect(driver.received.isEmpty && driver.statsAnswered == 0)
  }

  /// A counters request carrying the token is answered (`spotter status --token-file`), and
  /// the header after it must carry the token too.
  @Test func aCountersRequestWithTheTokenIsAnswered() {
    let token = String(decoding: Self.token, as: UTF8.self)
    let driver = StreamDriver(runtime: Recordings.runtime, token: Self.token)
    driver.send(Recordings.text([#"{"cmd":"stats","token":""# + token + #""}"#]))
    #expect(driver.stream.refusal == nil && driver.statsAnswered == 1)
    driver.send(Recordings.text(Recordings.squats))
    #expect(driver.stream.refusal?.contains("needs a token") == true)
  }
}
