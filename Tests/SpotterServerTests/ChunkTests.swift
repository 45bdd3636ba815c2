import Foundation
import History
import Poses
import Spotter
import TestSupport
import Testing

@testable import SpotterServer

/// A served stream's bytes depend on its lines, never on how they were cut into reads: the
/// same stream sent in chunks of any size (lines split anywhere, several in one chunk) gives
/// the client the same events, and the history the same record. Two kinds of line may move: a
/// stats reply goes out when its command is read, and the events of a prediction the daemon
/// makes at the end of the round come after it (`StreamLimitsTests` places it exactly); a
/// `checkpoint` line goes out when the history has stored it. The checkpoints themselves take
/// the session as it stands when they are taken, which a session that holds its frames'
/// events for the daemon's batch reaches later in a longer read (`ResumeClaimTests` resumes
/// from them).
@Suite struct ChunkTests {
  /// A stream with a bit of everything before and after its header: a frame before it, blank
  /// lines, stats commands (before the header, among frames, with spaces), lines that are not
  /// frames, a line over the limit, a frame whose time goes back, and a last line without its
  /// newline.
  static let stream: String = {
    var lines = Recordings.workout
    lines[0] = Recordings.header(lines[0], #""client":"chunks""#)
    lines.insert(#"{"t":0,"pose":null}"#, at: 0)
    lines.insert(#"{"cmd":"stats"}"#, at: 1)
    lines.insert("", at: 2)
    for (offset, extra) in [
      "oops", #"  {"cmd":"stats"} "#, "   ", String(repeating: "x", count: 5000),
      #"{"t":0.5,"pose":null}"#, #"{"cmd":"nope"}"#, #"{"cmd":"stats"}"#,
    ].enumerated() {
      lines.insert(extra, at: 40 + 111 * offset)
    }
    return Recordings.text(lines) + #"{"t":1e9,"pose":[oops"#
  }()

  /// What a client reads, and the history is asked to keep, for `stream` sent in `chunk`s.
  static func served(chunk: Int) -> (
    lines: [String], statsReplies: Int, checkpoints: Int, records: [SessionRecord]
  ) {
    let driver = StreamDriver(
      runtime: Recordings.predicting, settings: StreamDriver.settings(maxLineBytes: 4096))
    driver.send(Array(stream.utf8), chunk: chunk)
    driver.end()
    // The records as the history gets them, but for the time they were made.
    let records = driver.records.map {
      var record = $0.record
      record.date = Date(timeIntervalSince1970: 0)
      return record
    }
    let lines = Recordings.withoutCheckpoints(driver.receivedLines)
    return (
      lines.filter { !$0.hasPrefix(#"{"type":"stats""#) },
      lines.filter { $0.hasPrefix(#"{"type":"stats""#) }.count, driver.checkpoints.count, records
    )
  }

  static let whole = served(chunk: .max)

  /// The whole stream, then every chunk size from 1 to 16 bytes, sizes around a frame line's
  /// length and a read's, and a few primes between.
  @Test(arguments: Array(1...16) + [61, 509, 1021, 1500, 4095, 4096, 4097, 65536])
  func aStreamCutAnywhereGivesTheSameBytes(chunk: Int) {
    let served = Self.served(chunk: chunk)
    #expect(served.lines == Self.whole.lines)
    #expect(served.statsReplies == 3)
    #expect(served.records == Self.whole.records)
  }

  /// The stream itself is what the test means it to be: every kind of line answered.
  @Test func theStreamHasEveryKindOfLine() {
    let lines = Self.whole.lines
    #expect(Self.whole.statsReplies == 3, "before the header too")
    let errors = lines.compactMap(Recordings.object).filter { $0["type"] as? String == "error" }
    // The frame before the header, "oops", the line too long, the frame whose time goes
    // back, the command that is no frame, and the last line; the stats commands and blank
    // lines are none.
    let last = Self.stream.split(separator: "\n", omittingEmptySubsequences: false).count
    #expect(
      errors.compactMap { $0["line"] as? Int } == [1, 41, 374, 485, 596, last], "\(errors)")
    #expect(lines.contains { $0.contains("the limit is 4096 bytes") })
    #expect(lines.last?.contains(#""bad_lines":6"#) == true, "\(lines.last ?? "")")
    #expect(lines.contains { $0.contains(#""type":"prediction""#) })
    #expect(Recordings.summary(lines) == ["squat": 5, "jumping_jack": 8])
    #expect(Self.whole.checkpoints > 10)
    #expect(Self.whole.records.count == 1)
    #expect(Self.whole.records.first?.person == "chunks")
    #expect(Self.whole.records.first?.summaryDelivered == true)
  }
}
