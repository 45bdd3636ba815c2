import Foundation
import History
import Poses
import Spotter
import TestSupport
import Testing

@testable import SpotterServer

/// What a stream does at its edges: the stats it asks for, the frames beyond its backlog, a
/// client that does not read, and its end, when its record waits until the client has read
/// the summary.
@Suite struct StreamLimitsTests {
  /// Each `{"cmd":"stats"}` stops the stream until the daemon answers, so the reply takes the
  /// command's place: after the events of the lines before it, before those of the lines
  /// after (a stream for a chosen exercise, whose events all come as its frames are pushed).
  /// Commands are not bad lines.
  @Test func statsRepliesTakeTheirCommandsPlace() {
    var lines = Recordings.squats
    lines[0] = Recordings.header(lines[0], #""exercise":"squat""#)
    let middle = lines.count / 2
    let plain = StreamDriver(runtime: Recordings.runtime)
    plain.send(Recordings.text(Array(lines[..<middle])))
    let beforeMiddle = Recordings.withoutCheckpoints(plain.receivedLines).count
    plain.send(Recordings.text(Array(lines[middle...])))
    let beforeEnd = Recordings.withoutCheckpoints(plain.receivedLines).count
    plain.end()

    let stats = #"{"cmd":"stats"}"#
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.send(
      Recordings.text([stats] + lines[..<middle] + [stats] + lines[middle...] + [stats, stats]))
    driver.end()
    let served = Recordings.withoutCheckpoints(driver.receivedLines)
    let replies = served.indices.filter { served[$0].hasPrefix(#"{"type":"stats""#) }
    #expect(replies == [0, beforeMiddle + 1, beforeEnd + 2, beforeEnd + 3], "\(served)")
    #expect(
      served.filter { !$0.hasPrefix(#"{"type":"stats""#) }
        == Recordings.withoutCheckpoints(plain.receivedLines))
    #expect(served.last?.contains(#""bad_lines":0"#) == true)
  }

  /// Frames beyond the backlog that wait together are late: dropped, counted in the summary
  /// and the server's counters. With no backlog every frame is kept.
  @Test(arguments: [2, nil]) func framesBeyondTheBacklogAreDropped(backlog: Int?) {
    let driver = StreamDriver(
      runtime: Recordings.runtime, settings: StreamDriver.settings(backlog: backlog))
    let lines = Array(Recordings.squats.prefix(301))
    driver.send(Recordings.text(lines))
    driver.end()
    let summary = Recordings.object(driver.receivedLines.last!)
    let dropped = summary?["dropped_frames"] as? Int
    if backlog == nil {
      #expect(dropped == 0 && driver.stream.tally.frames == 300)
    } else {
      #expect(dropped == 298, "the newest two are kept")
      #expect(driver.stream.tally.droppedFrames == 298 && driver.stream.tally.frames == 2)
    }
  }

  /// A resumed stream's resent frames come in a burst: none is late until it has caught up.
  @Test func resentFramesAreNotLate() {
    let driver = StreamDriver(
      runtime: Recordings.runtime, settings: StreamDriver.settings(backlog: 2))
    var lines = Recordings.squats
    lines[0] = Recordings.header(lines[0], #""resume":"x""#)
    driver.send(Recordings.text(Array(lines.prefix(1))))
    let uid = driver.stream.uid!
    let checkpoint = Checkpoint(
      uid: "x", t: 1, record: SessionRecord(date: Date(), source: "test", sets: []))
    driver.answerClaim(.success(.resumed(checkpoint)))
    driver.send(Recordings.text(Array(lines.dropFirst())))
    driver.end()
    let summary = Recordings.object(driver.receivedLines.last!)
    #expect(summary?["dropped_frames"] as? Int == 0)
    #expect(driver.records.first?.uid == uid)
  }

  /// A client that reads nothing loses the events of the moment first (predictions), never
  /// its reps nor the events that end its session; the summary says what it lost. Its frames
  /// are still taken: only replies to its commands stop them.
  @Test func aClientThatDoesNotReadLosesTheMomentFirst() {
    let limit = 4096
    let driver = StreamDriver(
      runtime: Recordings.predicting, settings: StreamDriver.settings(maxPendingOutput: limit))
    driver.reads = false
    driver.send(Recordings.text(Recordings.workout), chunk: 4096)
    #expect(driver.output.count < 2 * limit + 1024)
    #expect(driver.output.count > limit)
    #expect(driver.stream.takesLines(pending: driver.output.count, written: 0))
    driver.stream.finish(into: &driver.output)
    let lines = String(decoding: driver.output, as: UTF8.self).split(separator: "\n").map(
      String.init)
    let summary = Recordings.object(lines.last!)
    #expect(summary?["type"] as? String == "summary")
    #expect((summary?["dropped_events"] as? Int ?? 0) > 0)
    let reps = lines.filter { $0.contains(#""type":"rep""#) }.count
    #expect(reps == Recordings.summary(lines).values.reduce(0, +))
    #expect(lines.contains { $0.contains(#""type":"exercise_ended""#) })
  }

  /// A stream's record waits for its summary to be read: stored as delivered once the client
  /// has read its bytes, or as not delivered when the connection closes first.
  @Test(arguments: [true, false]) func aRecordWaitsForItsSummaryToBeRead(read: Bool) {
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.reads = false
    driver.send(Recordings.text(Recordings.squats), chunk: 4096)
    driver.stream.finish(into: &driver.output)
    driver.stream.delivered(driver.output.count - 1)
    #expect(driver.stream.nextRequest() == nil, "a summary not wholly read")
    driver.stream.delivered(read ? driver.output.count : 0, closing: !read)
    guard case .record(let record, let uid)? = driver.stream.nextRequest() else {
      Issue.record("no record")
      return
    }
    #expect(record.summaryDelivered == read)
    #expect(uid == driver.stream.uid)
    #expect(record.totals.first { $0.name == "squat" }?.reps == 6)
    #expect(driver.stream.nextRequest() == nil)
  }

  /// Replies to commands are never dropped, and count against the output limit: past it, while
  /// replies wait, the stream takes no more lines, until the client has read them.
  @Test func repliesPastTheLimitStopTheReadingUntilRead() {
    let limit = 4096
    let driver = StreamDriver(
      runtime: Recordings.runtime, settings: StreamDriver.settings(maxPendingOutput: limit))
    driver.reads = false
    let commands = Array(repeating: #"{"cmd":"stats"}"#, count: 200)
    driver.send(Recordings.text([Recordings.squats[0]] + commands))
    #expect(driver.statsAnswered == 200, "every command answered, none dropped")
    let pending = driver.output.count
    #expect(pending > limit)
    #expect(!driver.stream.takesLines(pending: pending, written: 0))
    #expect(!driver.stream.takesLines(pending: pending, written: pending - 1))
    #expect(driver.stream.takesLines(pending: 0, written: pending))
  }

  /// A round answers at most its share of commands (`commandsPerRound`); the lines after wait,
  /// in order, for the next round, and the stream takes no new lines meanwhile. Every command
  /// is answered in the end, each reply in its command's place.
  @Test func aFloodOfCommandsIsAnsweredAShareARound() {
    let share = ServedStream.commandsPerRound
    var lines = Recordings.squats
    lines[0] = Recordings.header(lines[0], #""exercise":"squat""#)
    let flood = Array(repeating: #"{"cmd":"stats"}"#, count: 3 * share + 5)
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.send(Recordings.text([lines[0]] + flood + lines.dropFirst()))
    driver.end()
    #expect(driver.statsAnswered == flood.count)
    #expect(driver.heldRounds == 3, "\(driver.heldRounds) rounds held lines for the next")
    let served = Recordings.withoutCheckpoints(driver.receivedLines)
    let replies = served.indices.filter { served[$0].hasPrefix(#"{"type":"stats""#) }
    #expect(replies == Array(1...flood.count), "the replies come before the frames' events")
    #expect(Recordings.summary(driver.receivedLines)["squat"] == 6)
  }
}
