import Foundation
import SpotterServer
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Sessions that survive their daemon: a client whose daemon is killed mid-workout reconnects
/// to another daemon on the same history with `"resume": "<id>"`, resends its frames, and ends
/// with the totals of a run that was never interrupted, stored once.
@Suite(.serialized) struct ResumeTests {
  typealias Server = DaemonTests.Server
  typealias Client = DaemonTests.Client

  /// A workout of three sets (front camera), as a pose file.
  static func workout(seed: Int) throws -> String {
    let folder = Fixtures.temporaryFolder("spotter-resume-data")
    let result = try SpotterProcess.run([
      "synth", "--output", folder, "--workout", "squat:6, rest:4, jumping_jack:10, rest:3, lunge:6",
      "--camera", "front", "--seed", "\(seed)",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return folder + "/synth-\(String(format: "%06d", seed)).jsonl"
  }

  /// The header line with `keys` (`"resume":"…"`) added.
  static func header(_ line: String, _ keys: String) -> String {
    String(line.dropLast()) + "," + keys + "}"
  }

  /// The daemon's own lines of a client (`session`, `checkpoint`), as objects.
  static func own(_ client: Client, _ type: String) -> [[String: Any]] {
    client.allLines.compactMap(DaemonTests.object).filter { $0["type"] as? String == type }
  }

  /// Streams `file` through a server of its own, uninterrupted; returns the summary's reps.
  static func uninterrupted(_ file: String) throws -> [String: Int] {
    let server = try Server()
    defer { _ = server.stop() }
    let client = try Client(socket: server.socket)
    client.stream(file, speed: 20)
    return DaemonTests.summary(client.finish())
  }

  @Test(arguments: [0.3, 0.55, 0.8])
  func aSessionWhoseDaemonIsKilledGoesOnOnAnotherWithTheSameTotals(killedAt share: Double) throws {
    let file = try Self.workout(seed: 41)
    let expected = try Self.uninterrupted(file)
    // Whatever the model counts of the three sets, so long as it counts: else the totals
    // compared below would say nothing.
    #expect(expected.values.reduce(0, +) > 0, "\(expected)")

    let history = Fixtures.temporaryFolder("spotter-resume") + "/history.sqlite"
    let first = try Server(history: history)
    let client = try Client(socket: first.socket)
    client.stream(file, speed: 20, stopAfter: share)
    usleep(600_000)  // the last checkpoint is written (4 writes a second), and told
    let id = try #require(Self.own(client, "session").first?["session"] as? String)
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    _ = client.finish()

    let second = try Server(history: history)
    let resumed = try Client(socket: second.socket)
    let lines = DaemonTests.lines(of: file)
    resumed.send(Self.header(lines[0], #""resume":"\#(id)""#))
    // A client keeps its frames since the last checkpoint it was told of; this one kept them
    // all, and the daemon skips those it counted before.
    for line in lines.dropFirst() {
      resumed.send(line)
      usleep(1_000_000 / 30 / 20)
    }
    let events = resumed.finish()
    let session = try #require(Self.own(resumed, "session").first)
    #expect(session["resumed"] as? String == id)
    #expect(session["resend_from"] is Double)
    #expect(!events.contains { $0["type"] as? String == "error" }, "\(events)")
    #expect(DaemonTests.summary(events) == expected)
    second.waitForRecords(atLeast: 1)
    let records = second.records
    #expect(records.count == 1, "\(records)")
    #expect(records.first?["uid"] as? String == session["session"] as? String)
    let stored = (records.first?["exercises"] as? [String: [String: Any]])?.mapValues {
      $0["reps"] as? Int ?? -1
    }
    #expect(stored?.filter { $0.value > 0 } == expected.filter { $0.value > 0 })
    #expect(second.stop() == 0)
  }

  /// A session live on the daemon is resumed by moving it (`ReconnectTests` has the rest); a
  /// resume of a session nobody knows is a new session counted whole (squats chosen in the
  /// header: as `spotter count` counts them), told why.
  @Test func aLiveSessionMovesAndAnUnknownOneIsANewSession() throws {
    let recorded = try DaemonTests.recording("squat", reps: 6, seed: 43)
    let whole = DaemonTests.summary(
      try DaemonTests.counted(recorded, exercise: "squat").suffix(1).compactMap(DaemonTests.object))
    let file = DaemonTests.choosing("squat", in: recorded)
    let server = try Server()
    let lines = DaemonTests.lines(of: file)
    // A session under way, with a checkpoint: its client disappears without a word.
    let first = try Client(socket: server.socket)
    first.stream(file, speed: 20, stopAfter: 0.5)
    usleep(300_000)
    let id = try #require(Self.own(first, "session").first?["session"] as? String)

    // Resumed while its daemon still serves it (a client that lost its connection, say):
    // this one goes on with it, under its id.
    let second = try Client(socket: server.socket)
    second.send(Self.header(lines[0], #""resume":"\#(id)""#))
    ReconnectTests.wait { !Self.own(second, "session").isEmpty }
    #expect(Self.own(second, "session").first?["resumed"] as? String == id)
    #expect(Self.own(second, "session").first?["session"] as? String == id)

    let other = try Client(socket: server.socket)
    other.send(Self.header(lines[0], #""resume":"no-such-session""#))
    for line in lines.dropFirst() { other.send(line) }
    let events = other.finish()
    let session = try #require(Self.own(other, "session").first)
    #expect(session["resumed"] == nil)
    let errors = events.filter { $0["type"] as? String == "error" }
    #expect(
      errors.count == 1
        && (errors.first?["message"] as? String)?.contains("no such session") == true,
      "\(errors)")
    #expect(
      DaemonTests.summary(events) == whole && whole["squat"] ?? 0 > 0, "counted as a new session")
    _ = first.finish()
    _ = second.finish()
    #expect(server.stop() == 0)
  }

  /// A client that reads nothing until it has sent everything loses events beyond the
  /// server's output limit, predictions first, but not its sets and reps, nor the end of its
  /// session: the summary says what it lost. What it keeps is what `spotter classify` prints of
  /// the workout's story (sets, reps, goals, errors), line for line, whatever the model makes of
  /// the squats.
  @Test func aSlowReaderStillGetsTheEndOfItsSession() throws {
    let port = try TokenTests.freePort()
    let server = try Server(extra: ["--port", "\(port)", "--max-output", "16384", "--predictions"])
    let file = try DaemonTests.recording("squat", reps: 20, seed: 47)
    let fd = try Socket.connectTCP(port: port)
    var small: Int32 = 1024  // a small window: the server's writes soon wait for the client
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    let client = Client(connected: fd, read: false)
    for line in DaemonTests.lines(of: file) { client.send(line) }
    shutdown(fd, Int32(SHUT_WR))
    usleep(500_000)
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(fd, &buffer, buffer.count)
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    close(fd)
    let lines = String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
    let events = lines.compactMap(DaemonTests.object)
    let summary = try #require(events.last)
    #expect(summary["type"] as? String == "summary")
    let dropped = try #require(summary["dropped_events"] as? Int)
    #expect(dropped > 0, "the client read too fast for this test to mean anything")
    // What was dropped is of the moment: the workout's own events all came.
    let story = ["exercise_started", "rep", "exercise_ended", "goal_reached", "error"]
    func told(_ lines: [String]) -> [String] {
      lines.filter { story.contains(DaemonTests.object($0)?["type"] as? String ?? "") }
    }
    let classified = try DaemonTests.classified(file)
    #expect(told(lines) == told(classified))
    #expect(
      DaemonTests.summary(events)
        == DaemonTests.summary(classified.suffix(1).compactMap(DaemonTests.object)))
    #expect(server.stop() == 0)
    #expect(server.records.first?["summary_delivered"] as? Bool == true)
  }

  @Test func everyCommandGetsItsReplyHoweverManyComeAtOnce() throws {
    let server = try Server()
    let client = try Client(socket: server.socket)
    client.send(Array(repeating: #"{"cmd":"stats"}"#, count: 10_000).joined(separator: "\n"))
    _ = client.finish()
    let replies = client.allLines.filter { $0.hasPrefix(#"{"type":"stats""#) }
    #expect(replies.count == 10_000)
    #expect(server.stop() == 0)
  }
}
