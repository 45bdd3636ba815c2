import Foundation
import Poses
import Spotter
import TestSupport
import Testing

@testable import SpotterServer

/// A served stream's events are its session's, byte for byte and in the same order (as
/// `spotter classify` writes them for the same file), its predictions made in the daemon's
/// batch; the stream adds only its own lines, and its drop counters to the summary.
@Suite struct SessionEventsTests {
  /// The event lines of a session that predicts on its own over `lines`, finished with the
  /// drop counters a stream adds.
  static func sessionEvents(_ lines: [String], people: Int = 1) throws -> [String] {
    let file = Fixtures.file(named: "stream.jsonl", Recordings.text(lines))
    let source = try PoseFiles.open(file)
    let session = Recordings.predicting.makeSession(people: people)
    var events: [String] = []
    let emit = { (person: Int?, event: SpotterEvent) in
      events.append(event.jsonLine(person: person))
    }
    try source.readAll(
      frame: { session.push($0, emit: emit) }, skipped: { session.reportBadLine($0, emit: emit) },
      afterFrame: {})
    session.finish(emit: emit, counters: StreamCounters(droppedFrames: 0, droppedEvents: 0))
    return events
  }

  /// Sent a frame at a time, and in bursts far longer than a session holds while its
  /// prediction waits for the daemon's batch.
  @Test(arguments: [1500, 1 << 20])
  func aStreamOfOnePersonGetsItsSessionsEvents(chunk: Int) throws {
    let lines = Recordings.workout
    let driver = StreamDriver(runtime: Recordings.predicting)
    driver.send(Recordings.text(lines), chunk: chunk)
    driver.end()
    let expected = try Self.sessionEvents(lines)
    #expect(expected.filter { $0.contains(#""type":"rep""#) }.count >= 10)
    #expect(driver.eventLines == expected)
    #expect(driver.receivedLines.first == #"{"type":"session","session":"<uid>"}"#)
  }

  /// Several people: every event says whose, and each person's are their session's.
  @Test func aStreamOfTwoPeopleGetsItsSessionsEvents() throws {
    var lines = Recordings.group(["squat:6, rest:3", "jumping_jack:10, rest:3"], seed: 31)
    let expected = try Self.sessionEvents(lines, people: 2)
    lines[0] = Recordings.header(lines[0], #""people":2,"client":"mirror""#)
    let driver = StreamDriver(runtime: Recordings.predicting)
    driver.send(Recordings.text(lines), chunk: 4096)
    driver.end()
    #expect(driver.receivedLines == expected, "no session line: such streams are not resumed")
    #expect(Set(expected.compactMap { Recordings.object($0)?["person"] as? Int }) == [1, 2])
    // A record for each person, named after the header's client.
    let names = driver.records.map { $0.record.person }
    #expect(names.sorted { ($0 ?? "") < ($1 ?? "") } == ["mirror/1", "mirror/2"])
    #expect(driver.records.allSatisfy { $0.record.summaryDelivered == true })
    #expect(driver.checkpoints.isEmpty)
  }
}
