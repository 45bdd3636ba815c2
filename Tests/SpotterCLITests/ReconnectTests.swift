import Foundation
import SpotterServer
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Reconnects that lose nothing, through the daemon (README, "Resuming a session"): a session
/// has one owner, a claim is not a loss, no frame is lost around a resume, and one client's
/// backlog of replies takes no other client's time.
@Suite(.serialized) struct ReconnectTests {
  typealias Server = DaemonTests.Server
  typealias Client = DaemonTests.Client

  /// Six squats, the exercise chosen in the header (counted as `spotter count` counts them),
  /// and that count.
  static func squats(seed: Int) throws -> (file: String, whole: [String: Int]) {
    let recorded = try DaemonTests.recording("squat", reps: 6, seed: seed)
    let whole = DaemonTests.summary(
      try DaemonTests.counted(recorded, exercise: "squat").suffix(1).compactMap(DaemonTests.object))
    #expect(whole["squat"] ?? 0 > 0, "\(whole)")
    return (DaemonTests.choosing("squat", in: recorded), whole)
  }

  static func resuming(_ id: String, _ header: String) -> String {
    ResumeTests.header(header, #""resume":"\#(id)""#)
  }

  /// `file` streamed up to `share` of its frames to a daemon with a history of its own, which
  /// is then killed once its last checkpoint is stored: the history, the session's id, and
  /// the reps its client was told.
  static func killedMidSet(_ file: String, after share: Double) throws -> (
    history: String, id: String, reps: Int
  ) {
    let history = Fixtures.temporaryFolder("spotter-reconnect") + "/history.sqlite"
    let first = try Server(history: history)
    let client = try Client(socket: first.socket)
    client.stream(file, speed: 20, stopAfter: share)
    usleep(1_500_000)  // its last checkpoint is written (at most 4 writes a second)
    let id = try #require(ResumeTests.own(client, "session").first?["session"] as? String)
    let reps = client.events.filter { $0["type"] as? String == "rep" }.count
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    _ = client.finish()
    return (history, id, reps)
  }

  /// Waits until `done` holds, for at most 20 s (a machine busy with the rest of the suite).
  static func wait(until done: () -> Bool) {
    for _ in 0..<1000 {
      if done() { return }
      usleep(20_000)
    }
  }

  static func errors(_ events: [[String: Any]]) -> [String] {
    events.filter { $0["type"] as? String == "error" }.compactMap { $0["message"] as? String }
  }

  /// A phone that changed networks reconnects while its old connection still looks open: the
  /// session moves to the new connection whole (same id, every rep so far), the old one is
  /// told and closed, and the workout is stored once with every rep. With two workers, the new
  /// connection goes to the worker the old one is not on, which is handed the session.
  @Test(arguments: [1, 2]) func aResumeOfALiveSessionTakesItOver(workers: Int) throws {
    let (file, whole) = try Self.squats(seed: 43)
    let lines = DaemonTests.lines(of: file)
    let server = try Server(extra: ["--workers", "\(workers)"])
    let old = try Client(socket: server.socket)
    old.stream(file, speed: 20, stopAfter: 0.5)
    usleep(300_000)
    let id = try #require(ResumeTests.own(old, "session").first?["session"] as? String)
    let repsBefore = old.events.filter { $0["type"] as? String == "rep" }.count
    #expect(repsBefore > 0)

    let new = try Client(socket: server.socket)
    new.send(Self.resuming(id, lines[0]))
    Self.wait { old.lines.contains { $0.contains("resumed on another connection") } }
    let oldEvents = old.finish()
    #expect(
      Self.errors(oldEvents).last?.contains("resumed on another connection") == true,
      "\(Self.errors(oldEvents))")
    #expect(!oldEvents.contains { $0["type"] as? String == "summary" }, "the session went on")
    let session = try #require(ResumeTests.own(new, "session").first)
    #expect(session["session"] as? String == id && session["resumed"] as? String == id)
    #expect(session["resend_from"] is Double)
    for line in lines.dropFirst() { new.send(line) }  // the daemon skips those it counted
    let events = new.finish()
    #expect(Self.errors(events).isEmpty, "\(Self.errors(events))")
    #expect(DaemonTests.summary(events) == whole)
    #expect(server.stop() == 0)
    let records = server.records
    #expect(records.count == 1, "\(records)")
    #expect(records.first?["uid"] as? String == id)
    let stored = (records.first?["exercises"] as? [String: [String: Any]])?["squat"]?["reps"]
    #expect(stored as? Int == whole["squat"])
  }

  /// The daemon is killed mid-set; on the next one, two connections resume the session at
  /// once (one client twice): one resumes it, the other is told why and closed, with no
  /// session of its own. The resumed one sends everything in one burst, past the backlog:
  /// no frame is dropped. A resume of a session that has ended is refused the same way.
  @Test func twoResumesAtOnceAreOneWorkout() throws {
    let (file, whole) = try Self.squats(seed: 47)
    let lines = DaemonTests.lines(of: file)
    let (history, id, _) = try Self.killedMidSet(file, after: 0.5)

    let second = try Server(backlog: 15, history: history)
    let a = try Client(socket: second.socket)
    let b = try Client(socket: second.socket)
    a.send(Self.resuming(id, lines[0]))
    b.send(Self.resuming(id, lines[0]))
    Self.wait { !a.allLines.isEmpty && !b.allLines.isEmpty }
    let resumedByA = ResumeTests.own(a, "session").first?["resumed"] as? String == id
    let (winner, loser) = resumedByA ? (a, b) : (b, a)
    let winnerID = try #require(ResumeTests.own(winner, "session").first?["session"] as? String)
    for line in lines.dropFirst() { winner.send(line) }
    let events = winner.finish()
    let refused = loser.finish()
    #expect(ResumeTests.own(loser, "session").isEmpty, "no session for the refused one")
    #expect(
      Self.errors(refused).count == 1
        && Self.errors(refused)[0].contains("resumed already")
        && !Self.errors(refused)[0]
          .contains(id),
      "\(Self.errors(refused))")
    #expect(Self.errors(events).isEmpty, "\(Self.errors(events))")
    #expect(DaemonTests.summary(events) == whole)
    let summary = try #require(events.last)
    #expect(summary["dropped_frames"] as? Int == 0, "\(summary)")

    second.waitForRecords(atLeast: 1)
    let ended = try Client(socket: second.socket)
    ended.send(Self.resuming(winnerID, lines[0]))
    let endedEvents = ended.finish()
    #expect(ResumeTests.own(ended, "session").isEmpty)
    #expect(Self.errors(endedEvents).first?.contains("has ended") == true, "\(endedEvents)")
    #expect(second.stop() == 0)
    let records = second.records
    #expect(records.count == 1, "one workout, nothing empty: \(records)")
    #expect(records.first?["uid"] as? String == winnerID)
  }

  /// The daemon is killed after some reps; a client resumes on the next one, and its
  /// connection ends before it sends a frame: the reps of the checkpoint are stored, under the
  /// session that resumed it.
  @Test func aResumeClosedBeforeItsFirstFrameKeepsTheReps() throws {
    let (file, _) = try Self.squats(seed: 53)
    let lines = DaemonTests.lines(of: file)
    let (history, id, reps) = try Self.killedMidSet(file, after: 0.6)
    #expect(reps > 0)

    let second = try Server(history: history)
    let resumed = try Client(socket: second.socket)
    resumed.send(Self.resuming(id, lines[0]))
    usleep(300_000)
    let events = resumed.finish()
    let session = try #require(ResumeTests.own(resumed, "session").first)
    #expect(DaemonTests.summary(events)["squat"] == reps, "\(events.last ?? [:])")
    #expect(second.stop() == 0)
    let records = second.records
    #expect(records.count == 1, "\(records)")
    #expect(records.first?["uid"] as? String == session["session"] as? String)
    let stored = (records.first?["exercises"] as? [String: [String: Any]])?["squat"]?["reps"]
    #expect(stored as? Int == reps)
  }

  /// Frames that come while the history is asked for a resume (here one it does not know: a
  /// new session) wait and are counted, however many: none is dropped as late.
  @Test func framesDuringTheClaimAreCounted() throws {
    let (file, whole) = try Self.squats(seed: 59)
    let lines = DaemonTests.lines(of: file)
    let server = try Server(backlog: 15)
    let client = try Client(socket: server.socket)
    client.send(Self.resuming("no-such-session", lines[0]))
    for line in lines.dropFirst() { client.send(line) }
    let events = client.finish()
    let summary = try #require(events.last)
    #expect(summary["dropped_frames"] as? Int == 0, "\(summary)")
    #expect(DaemonTests.summary(events) == whole)
    #expect(Self.errors(events).count == 1 && Self.errors(events)[0].contains("no such session"))
    #expect(server.stop() == 0)
  }

  /// A client sends 100,000 commands without reading, then reads every reply, while another
  /// streams at twice real time: each round answers the flood its share, so the healthy
  /// stream's frames are never late enough to be dropped (a backlog of 30 frames: half a second
  /// at this pace, room for a machine busy with the rest of the suite; the share itself is
  /// `StreamLimitsTests`'), and every command gets its reply.
  @Test func aClientDrainingRepliesStallsNoHealthyStream() throws {
    let (file, whole) = try Self.squats(seed: 61)
    let server = try Server(backlog: 30)
    let flooder = try Client(socket: server.socket, read: false)
    let commands = 100_000
    let sent = DispatchGroup()
    sent.enter()
    Thread.detachNewThread {
      let burst = String(repeating: #"{"cmd":"stats"}"# + "\n", count: 1000)
      for _ in 0..<commands / 1000 { flooder.send(String(burst.dropLast())) }
      sent.leave()
    }
    let healthy = try Client(socket: server.socket)
    Thread.sleep(forTimeInterval: 0.5)
    let replies = Counter()
    let drained = DispatchGroup()
    drained.enter()
    Thread.detachNewThread {
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while replies.value < commands {
        let count = Glibc.read(flooder.fd, &buffer, buffer.count)
        if count <= 0 { break }
        replies.add(buffer[0..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
      }
      drained.leave()
    }
    healthy.stream(file, speed: 2)
    let events = healthy.finish()
    #expect(drained.wait(timeout: .now() + 120) == .success)
    #expect(sent.wait(timeout: .now() + 10) == .success)
    #expect(replies.value == commands)
    close(flooder.fd)
    let summary = try #require(events.last)
    #expect(summary["dropped_frames"] as? Int == 0, "\(summary)")
    #expect(DaemonTests.summary(events) == whole)
    #expect(server.stop() == 0)
  }

  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ more: Int) { lock.withLock { count += more } }
  }

  /// A second daemon on a socket where one answers refuses to start, says so, and leaves the
  /// first reachable.
  @Test func aSecondDaemonOnALiveSocketRefuses() throws {
    let server = try Server()
    let second = try SpotterProcess.run([
      "serve", "--socket", server.socket, "--no-history", "--weights",
      repositoryRoot + "/Weights/default.spotter",
    ])
    #expect(second.status != 0)
    #expect(second.stderr.contains(server.socket), "\(second.stderr)")
    let client = try Client(socket: server.socket)
    client.send(#"{"cmd":"stats"}"#)
    #expect(client.finish().first?["type"] as? String == "stats")
    #expect(server.stop() == 0)
  }
}
