import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The history in PostgreSQL, against a real server: Debian's PostgreSQL, started for this
/// test process on loopback with a data directory of its own (`spotter-bench postgres`), and
/// stopped when the process ends. `make test` installs PostgreSQL and HAProxy when missing.
@Suite(.serialized) struct PostgresHistoryTests {
  /// The server's helper process, whose standard input this test process holds open: when the
  /// test process ends, however it ends, the helper stops the server and removes its folder.
  final class Server: Sendable {
    let url: String
    let port: String
    private let helper: Process
    private let input: Pipe

    init() throws {
      helper = Process()
      helper.executableURL = URL(fileURLWithPath: HistoryCommandTests.bench)
      helper.arguments = [
        "postgres", "--folder", NSTemporaryDirectory() + "spotter-pg-tests-\(getpid())",
      ]
      input = Pipe()
      let output = Pipe()
      helper.standardInput = input
      helper.standardOutput = output
      try helper.run()
      var line = Data()
      while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { break }
        line.append(chunk)
      }
      url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      guard url.hasPrefix("postgresql://") else {
        throw PostgresTestError.noServer("spotter-bench postgres gave no URL: '\(url)'")
      }
      port = String(url.split(separator: ":").last!.split(separator: "/").first!)
    }

    /// A new, empty database; returns its URL.
    func database() throws -> String {
      let name = "spotter_test_\(UUID().uuidString.prefix(8).lowercased())"
      let psql = Process()
      psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
      psql.arguments = [
        "-q", "-h", "127.0.0.1", "-p", port, "-U", "spotter", "-d", "postgres", "-c",
        "CREATE DATABASE \(name)",
      ]
      try psql.run()
      psql.waitUntilExit()
      guard psql.terminationStatus == 0 else { throw PostgresTestError.noServer("createdb") }
      return url.replacingOccurrences(of: "/postgres", with: "/\(name)")
    }

    /// Runs SQL on the server's own database (as its superuser).
    func run(_ sql: String) throws {
      let psql = Process()
      psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
      psql.arguments = ["-q", "-h", "127.0.0.1", "-p", port, "-U", "spotter", "-d", "postgres"]
      psql.arguments! += ["-v", "ON_ERROR_STOP=1", "-c", sql]
      psql.standardOutput = FileHandle.nullDevice
      try psql.run()
      psql.waitUntilExit()
      guard psql.terminationStatus == 0 else { throw PostgresTestError.noServer(sql) }
    }

    /// Takes the database of `url` away from its clients, as a failover or a restart would:
    /// new connections are refused and open ones are ended. `back` lets them in again.
    func takeAway(_ url: String, back: Bool = false) throws {
      let name = String(url.split(separator: "/").last!)
      try run("ALTER DATABASE \(name) ALLOW_CONNECTIONS \(back)")
      if !back {
        try run(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
      }
    }
  }

  enum PostgresTestError: Error { case noServer(String) }

  static let server = Result { try Server() }

  @Test func thirtyTwoProcessesAppendingAtOnceLeaveEverySessionWhole() throws {
    try HistoryCommandTests.thirtyTwoWritersAtOnce(into: try Self.server.get().database())
  }

  /// The demo's session in PostgreSQL, read back whole: its sets, each with its reps, add up to
  /// its totals, which are those the demo printed (whatever the model made of the workout).
  @Test func aDemoStoresItsSetsAndRepsAndHistoryReadsThemBack() throws {
    let history = try Self.server.get().database()
    let demo = try SpotterProcess.run([
      "demo", "--seed", "5", "--history", history, "--weights",
      repositoryRoot + "/Weights/default.spotter",
    ])
    #expect(demo.status == 0, "\(demo.stderr)")
    let session = try SpotterProcess.run([
      "history", "--history", history, "--session", "1", "--json",
    ])
    #expect(session.status == 0, "\(session.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(session.stdout.utf8)) as? [String: Any])
    #expect(object["source"] as? String == "spotter demo (seed 5)")
    let sets = try #require(object["sets"] as? [[String: Any]])
    var fromSets: [String: Int] = [:]
    for set in sets {
      let reps = try #require(set["reps"] as? [[String: Any]])
      #expect(reps.allSatisfy { $0["t"] is Double && $0["range_of_motion"] is Double })
      fromSets[set["exercise"] as? String ?? "?", default: 0] += reps.count
    }
    let totals = try #require(object["exercises"] as? [String: [String: Any]])
    let stored = totals.mapValues { $0["reps"] as? Int ?? -1 }
    #expect(stored.filter { $0.value > 0 } == fromSets.filter { $0.value > 0 }, "\(object)")
    // The demo's table: a line per exercise, its truth and its count.
    var printed: [String: Int] = [:]
    for line in demo.stdout.split(separator: "\n").drop(while: { !$0.hasPrefix("exercise ") })
      .dropFirst()
    {
      let fields = line.split(separator: " ")
      guard !line.hasSuffix("counted exactly."), fields.count >= 3, let counted = Int(fields[2])
      else { break }
      printed[String(fields[0]), default: 0] = counted
    }
    #expect(!printed.isEmpty, "\(demo.stdout)")
    #expect(stored.filter { $0.value > 0 } == printed.filter { $0.value > 0 }, "\(demo.stdout)")
    let days = try SpotterProcess.run([
      "history", "--history", history, "--totals", "day", "--csv",
    ])
    #expect(days.stdout.split(separator: "\n").count == 1 + totals.count)
  }

  /// A session that ends while the database is away is spooled on the daemon's disk; the
  /// daemon is stopped, the database comes back, and the next daemon on the same state folder
  /// stores the session, once.
  @Test func aSpoolIsStoredAfterTheDaemonRestarts() throws {
    let postgres = try Self.server.get()
    let history = try postgres.database()
    let state = Fixtures.temporaryFolder("spotter-spool")
    let first = try DaemonTests.Server(history: history, stateFolder: state)
    try postgres.takeAway(history)
    // Squats chosen in the header: the count is the rep engine's.
    let file = DaemonTests.choosing(
      "squat", in: try DaemonTests.recording("squat", reps: 5, seed: 17))
    let client = try DaemonTests.Client(socket: first.socket)
    client.stream(file, speed: 20)
    let summary = DaemonTests.summary(client.finish())
    #expect(summary["squat"] ?? 0 >= 4, "\(summary)")
    // The writer tries for about two seconds, then spools.
    var stats: [String: Any] = [:]
    for _ in 0..<100 {
      stats = try Self.stats(first.socket)
      if stats["history_spooled"] as? Int == 1 { break }
      usleep(100_000)
    }
    #expect(stats["history_spooled"] as? Int == 1, "\(stats)")
    #expect(stats["history_errors"] as? Int == 0, "\(stats)")
    #expect(first.stop() == 0)
    let spooled = try SpotterProcess.run([
      "history", "--history", state + "/spool.sqlite", "--json",
    ])
    #expect(spooled.stdout.split(separator: "\n").count == 1, "\(spooled.stdout)")

    try postgres.takeAway(history, back: true)
    let second = try DaemonTests.Server(history: history, stateFolder: state)
    second.waitForRecords(atLeast: 1)
    usleep(300_000)  // a second copy, were there one, would come with the first
    let records = second.records
    #expect(records.count == 1, "\(records)")
    let stored = (records.first?["exercises"] as? [String: [String: Any]])?["squat"]?["reps"]
    #expect(stored as? Int == summary["squat"])
    #expect(try Self.stats(second.socket)["history_spooled"] as? Int == 0)
    #expect(second.stop() == 0)
  }

  /// The daemon's `stats` reply.
  static func stats(_ socket: String) throws -> [String: Any] {
    let result = try SpotterProcess.run(["status", "--socket", socket])
    return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
      ?? [:]
  }

  /// The fleet recipe, small: two daemons behind HAProxy, which terminates TLS, share one
  /// PostgreSQL (the check's own); a few clients stream through the balancer over TLS, one
  /// daemon is killed half-way and its clients resume on the other, and PostgreSQL is away for
  /// 4 s while they end; each session is stored once. As root, each part
  /// runs on a host of its own, where the daemons ask for a token, and connections without it
  /// get the error alone. `make fleet-check` runs it with 300 clients, three daemons and
  /// PostgreSQL away for 30 s.
  @Test func daemonsBehindHAProxyStoreEverySessionOnce() throws {
    let fleet = try HistoryCommandTests.runBench([
      "fleet", "--clients", "6", "--daemons", "2", "--workouts", "2", "--plan", "squat:4",
      "--postgres-pause", "4", "--kill-daemon", "0.5", "--weights",
      repositoryRoot + "/Weights/default.spotter",
    ])
    #expect(fleet.status == 0, "\(fleet.stdout)")
    #expect(fleet.stdout.contains("stored exactly once        6 of 6 clients"))
    #expect(fleet.stdout.contains("PostgreSQL away            4 s"))
    #expect(fleet.stdout.contains("resumed = uninterrupted"))
    #expect(fleet.stdout.contains("fleet check                passed"))
    if fleet.stdout.contains("fleet: a host each: network namespaces") {
      #expect(fleet.stdout.contains("no connection without the token got anything but the error"))
    } else {
      #expect(fleet.stdout.contains("fleet: every part on loopback"))
    }
  }
}
