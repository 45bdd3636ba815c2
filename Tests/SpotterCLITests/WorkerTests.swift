import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter serve --workers N`: connections spread over the workers, the counters add up over
/// them, and the signals reach every one. (A stream's events are the same with one worker and
/// two: `DaemonTests.streamsGetTheEventsOfClassify`; a session moves between workers:
/// `ReconnectTests.aResumeOfALiveSessionTakesItOver`.)
@Suite(.serialized) struct WorkerTests {
  typealias Server = DaemonTests.Server
  typealias Client = DaemonTests.Client

  static func stats(_ server: Server) -> [String: Any] {
    (try? PostgresHistoryTests.stats(server.socket)) ?? [:]
  }

  /// Two clients, one on each worker (the second goes to the worker with fewer), send frames;
  /// `stats`, asked on a third connection, counts both.
  @Test func connectionsSpreadAndTheCountersAddUp() throws {
    let server = try Server(extra: ["--workers", "2"])
    let file = DaemonTests.choosing(
      "squat", in: try DaemonTests.recording("squat", reps: 4, seed: 391))
    let lines = DaemonTests.lines(of: file)
    let clients = try (0..<2).map { _ in try Client(socket: server.socket) }
    let frames = [lines.count - 1, (lines.count - 1) / 2]
    for (client, count) in zip(clients, frames) {
      for line in lines.prefix(count + 1) { client.send(line) }
    }
    var stats: [String: Any] = [:]
    ReconnectTests.wait {
      stats = Self.stats(server)
      return stats["frames"] as? Int == frames.reduce(0, +)
    }
    #expect(stats["frames"] as? Int == frames.reduce(0, +), "\(stats)")
    #expect(stats["open_sessions"] as? Int == 2, "\(stats)")
    // The status request's own connection went to the first worker (each held one).
    #expect(stats["worker_connections"] as? [Int] == [2, 1], "\(stats)")
    #expect(stats["connections"] as? Int == 3, "\(stats)")
    for client in clients { #expect(client.finish().last?["type"] as? String == "summary") }
    #expect(server.stop() == 0)
    #expect(server.records.count == 2)
  }

  /// SIGHUP reloads the definitions of every worker: a definition added to the folder is
  /// counted on both. SIGTERM summarises the sessions open on both, stores them, and the
  /// daemon exits 0.
  @Test func signalsReachEveryWorker() throws {
    let folder = Fixtures.temporaryFolder("spotter-workers-exercises")
    let server = try Server(extra: ["--workers", "2", "--exercises", folder])
    let file = try DaemonTests.recording("squat", reps: 6, seed: 331)
    let open = try (0..<2).map { _ in try Client(socket: server.socket) }
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      open[index].stream(DaemonTests.choosing("squat", in: file), speed: 20, stopAfter: 0.5)
    }
    #expect(Self.stats(server)["worker_connections"] as? [Int] == [2, 1])

    let squat = String(
      decoding: FileManager.default.contents(
        atPath: repositoryRoot + "/Sources/RepCounting/Definitions/squat.json")!, as: UTF8.self)
    try squat.replacingOccurrences(of: "\"name\": \"squat\"", with: "\"name\": \"deep_squat\"")
      .replacingOccurrences(of: "\"label\": \"squat\"", with: "\"label\": \"deep_squats\"")
      .write(toFile: folder + "/deep_squat.json", atomically: true, encoding: .utf8)
    kill(server.process.processIdentifier, SIGHUP)
    usleep(500_000)  // read within 0.1 s, and told to each worker at once
    // One more client on each worker (the first goes to the first worker, which then holds
    // more), each choosing the new definition.
    let chosen = DaemonTests.choosing("deep_squat", in: file)
    let added = try (0..<2).map { _ in try Client(socket: server.socket) }
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      added[index].stream(chosen, speed: 20)
    }
    for client in added {
      let events = client.finish()
      #expect(ReconnectTests.errors(events).isEmpty, "\(ReconnectTests.errors(events))")
      #expect(DaemonTests.summary(events)["deep_squat"] ?? 0 > 0, "\(DaemonTests.summary(events))")
    }

    #expect(server.stop() == 0)  // the first two still open
    for client in open { #expect(client.finish().last?["type"] as? String == "summary") }
    #expect(server.records.count == 4)
  }
}
