import ArgumentParsing
import Foundation
import History

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench fleet`: the README's fleet recipe, checked. A PostgreSQL of its own, several
/// `spotter serve --listen` daemons sharing it, HAProxy in front terminating TLS (a certificate
/// made at run time), and `ServeLoad`'s clients through the balancer over TLS (stunnel). As
/// root, each part runs on a host of its own (`HostNetwork`: network namespaces on a bridge,
/// addresses from 198.18.0.0/15), the daemons ask for a token, and connections without it are
/// tried; elsewhere every part shares loopback. With `--postgres-pause`, PostgreSQL is stopped
/// while sessions end and started again. Every run, one client in ten connects again 40% of
/// the way through its workout while its first connection is still open (a phone that changed
/// networks), and resumes its session wherever the balancer sends it.
///
/// Passes when every client got its summary and the shared history holds each client's session
/// exactly once, with the totals the client was sent; when every connection without the token
/// got one `error` event and then the end of the stream; when 99% of the clients that resumed
/// (reconnected while open, or after their daemon was killed) ended with the counts of an
/// uninterrupted run; and when every daemon exited 0.
/// `make fleet-check` runs it at 300 clients with a 30 s pause; the test suite at a few.
enum Fleet {
  static let command = Command(
    name: "fleet",
    summary: "Daemons behind HAProxy (TLS) sharing one PostgreSQL: is every session stored once?",
    options: [
      .value("clients", "N", "Clients streaming through the balancer at once.", default: "300"),
      .value("daemons", "N", "Daemons behind the balancer.", default: "3"),
      .value("workouts", "K", "Distinct workouts; client i streams workout i mod K.", default: "8"),
      .value("plan", "PLAN", "The workout each client streams.", default: ServeLoad.defaultPlan),
      .value("weights", "FILE", "The model the daemons load.", default: "Weights/default.spotter"),
      .value(
        "postgres-pause", "SECONDS",
        "Stop PostgreSQL this long while sessions end, then start it again (0: never).",
        default: "0"),
      .value(
        "kill-daemon", "SHARE",
        "SIGKILL the first daemon this share of the way through the workouts and start it "
          + "again; its clients resume through the balancer (0: never).", default: "0"),
    ],
    discussion: """
      As root (with iproute2's ip), each part runs on a host of its own: a network namespace
      joined to a bridge, named spf<PID>-…, addressed from 198.18.0.0/15 with no default route,
      all removed when the check ends (and, left by a killed run, when the next one starts).
      Otherwise every part runs on loopback, and the check says so.
      """,
    run: { arguments in
      return try run(
        try ServeLoad.Options(arguments), daemons: try arguments.int("daemons", range: 1...16)!,
        pause: try arguments.double("postgres-pause", range: 0...3600)!,
        killAt: try arguments.double("kill-daemon", range: 0...0.95)!) ? 0 : 1
    })

  /// Where each part runs: on hosts of their own, or all on loopback.
  struct Hosts {
    let clients: Host
    let balancer: Host
    let database: Host
    let daemons: [Host]

    init(loopback count: Int) {
      (clients, balancer, database) = (.loopback("cl"), .loopback("lb"), .loopback("db"))
      daemons = (1...count).map { .loopback("d\($0)") }
    }

    init(on network: HostNetwork, daemons count: Int) throws {
      balancer = try network.host("lb", number: 2)
      database = try network.host("db", number: 3)
      clients = try network.host("cl", number: 4)
      daemons = try (1...count).map { try network.host("d\($0)", number: 10 + $0) }
    }
  }

  /// The check's folder: its PostgreSQL, logs, certificate, token, sockets and the daemons'
  /// state.
  static func folder(of pid: Int32) -> String { NSTemporaryDirectory() + "spotter-fleet-\(pid)" }

  static func run(
    _ options: ServeLoad.Options, daemons count: Int, pause: Double, killAt: Double = 0
  ) throws -> Bool {
    for pid in HostNetwork.removeLeftovers() {
      try? FileManager.default.removeItem(atPath: folder(of: pid))
      print("fleet: removed what a killed run (pid \(pid)) left: namespaces, links, folder")
    }
    let folder = folder(of: getpid())
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    ChildProcesses.atStop("folder \(folder)") {
      try? FileManager.default.removeItem(atPath: folder)
    }
    defer {
      ChildProcesses.forget("folder \(folder)")
      try? FileManager.default.removeItem(atPath: folder)
    }
    var network: HostNetwork?
    let hosts: Hosts
    do {
      let made = try HostNetwork()
      network = made
      hosts = try Hosts(on: made, daemons: count)
      print(
        "fleet: a host each: network namespaces \(made.name)-* on \(made.subnet).0/24, "
          + "bridge \(made.name)-br, no default route")
    } catch {
      network?.remove()
      network = nil
      hosts = Hosts(loopback: count)
      let reason = "\(error)".split(separator: "\n").joined(separator: " ")
      print("fleet: every part on loopback: \(reason)")
    }
    defer { network?.remove() }

    let postgres = try LocalPostgres(
      folder: folder + "/postgres", host: hosts.database,
      clients: network == nil ? nil : HostNetwork.range)
    defer { postgres.stop() }
    // A listener beyond loopback asks for the token; one on loopback would not check it.
    let tokenFile = folder + "/token"
    let token = network == nil ? nil : try makeToken(at: tokenFile)
    let keepsState =
      (try? LocalServers.run([options.spotter, "serve", "--help"]))?.contains("--state-dir")
      ?? false
    let daemons = try hosts.daemons.enumerated().map { index, host in
      try FleetDaemon(
        number: index + 1, host: host, spotter: options.spotter, folder: folder,
        options: [
          "--history", postgres.url, "--weights", options.weights, "--max-connections",
          "\(options.clients + 64)", "--predictions",
        ], token: token == nil ? nil : tokenFile, keepsState: keepsState)
    }
    defer { for daemon in daemons { daemon.kill() } }
    for daemon in daemons { try daemon.start() }
    let (certificate, bundle) = try TLSTunnel.certificate(
      for: hosts.balancer.address, folder: folder)
    let balancer = try LocalHAProxy(
      folder: folder, host: hosts.balancer,
      backends: daemons.map { ($0.host.address, $0.port, $0.metricsPort) }, token: token,
      certificate: bundle)
    defer { balancer.stop() }
    let tunnel = try TLSTunnel(
      folder: folder, on: hosts.clients, to: hosts.balancer.address, port: balancer.port,
      certificate: certificate)
    defer { tunnel.stop() }
    print(
      "fleet: PostgreSQL \(hosts.database.address):\(postgres.port); daemons "
        + daemons.map { "\($0.host.address):\($0.port)" }.joined(separator: ", ")
        + (token == nil ? "" : " (token)") + "; HAProxy (TLS) \(hosts.balancer.address):"
        + "\(balancer.port); clients through stunnel"
        + (hosts.clients.isLoopback ? "" : " on \(hosts.clients.address)"))
    print(
      keepsState
        ? "fleet: each daemon keeps its state in its own --state-dir"
        : "fleet: this spotter serve has no --state-dir: sessions the history cannot take are lost"
    )

    let refused =
      token == nil
      ? true : checkRefusals(rounds: daemons.count, connect: tunnel.connect)
    let postgresPause = PostgresPause(postgres, seconds: pause, daemons: daemons)
    defer { _ = postgresPause.wait() }
    var load = options
    load.connect = tunnel.connect
    load.token = token
    let crash = DaemonCrash(daemons[0], at: killAt)
    defer { _ = crash.wait() }
    load.resume = true
    load.handovers = true
    load.streaming = { workouts in
      if pause > 0 { postgresPause.schedule(workouts, clients: options.clients) }
      if killAt > 0 { crash.schedule(workouts) }
    }
    let (outcome, workouts) = try ServeLoad.load(load)
    let away = postgresPause.wait()
    let crashed = crash.wait()
    let caughtUp = waitForHistory(daemons, seconds: max(60, 2 * pause))
    let finals = daemons.map { $0.stats() }
    let figures = daemons.map { $0.figures() }
    let exits = daemons.map { $0.stop() }
    ServeLoad.report(outcome, workouts: workouts)
    print(
      "daemons' CPU, peak         "
        + figures.enumerated().map { index, figure in
          figure.map {
            String(format: "d%d %.1f s %d MiB", index + 1, $0.cpuSeconds, $0.peakKiB / 1024)
          }
            ?? "d\(index + 1) not running"
        }.joined(separator: ", ") + (killAt > 0 ? " (d1 since its restart)" : ""))
    let shares = finals.map { "\($0["sessions_finished"] as? Int ?? -1)" }
    print("sessions per daemon        \(shares.joined(separator: ", "))")
    if pause > 0 {
      print(
        String(
          format: "PostgreSQL away            %.0f s from %.1f s: %d sessions ended meanwhile",
          pause, away.stoppedAt, away.endedWhileAway) + (away.failure.map { " (\($0))" } ?? ""))
    }
    let resumedEqual = resumed(outcome, workouts: workouts, crash: killAt > 0 ? crashed : nil)
    let errors = finals.reduce(0) { $0 + ($1["history_errors"] as? Int ?? 0) }
    print("history errors (daemons)   \(errors)")
    if exits.contains(where: { $0 != 0 }) {
      print("daemons' exit statuses     \(exits.map(String.init).joined(separator: ", "))")
    }
    let stored = try check(outcome, history: postgres.url)
    let passed =
      stored && refused && caughtUp && away.failure == nil && resumedEqual
      && exits.allSatisfy { $0 == 0 }
    print("fleet check                \(passed ? "passed" : "FAILED")")
    return passed
  }

  /// Prints how the clients that resumed fared (those of the killed daemon, if one was, and
  /// those that connected again while their connection was open), and returns whether at
  /// least 99% of them ended with the counts of an uninterrupted run (the same lines
  /// in-process).
  static func resumed(
    _ outcome: ServeLoad.Outcome, workouts: [ServeLoad.Workout], crash: DaemonCrash.Report?
  ) -> Bool {
    let resumed = outcome.clients.enumerated().filter { $0.element.resumes > 0 }
    let equal = resumed.filter { $0.element.summary == workouts[$0.element.workout].inProcess }
    if let crash {
      print(
        String(
          format: "daemon killed               at %.1f s with %d sessions open%@", crash.killedAt,
          crash.sessions, crash.failure.map { " (restart failed: \($0))" } ?? ""))
    }
    let handedOver = outcome.clients.filter(\.handedOver)
    let handedOverEqual = handedOver.filter { $0.summary == workouts[$0.workout].inProcess }
    print(
      "reconnected while open      \(handedOverEqual.count) of \(handedOver.count) = "
        + "uninterrupted")
    print(
      "resumed = uninterrupted     \(equal.count) of \(resumed.count) clients that resumed "
        + "(\(resumed.reduce(0) { $0 + $1.element.resumes }) resumes)")
    for (index, client) in resumed where client.summary != workouts[client.workout].inProcess {
      print(
        "  \(ServeLoad.clientName(index)): \(client.summary.map { "\($0)" } ?? "no summary"), "
          + "uninterrupted \(workouts[client.workout].inProcess)")
    }
    return crash?.failure == nil && !resumed.isEmpty
      && Double(equal.count) >= 0.99 * Double(resumed.count)
  }

  /// A random token, 64 hex digits as `openssl rand -hex 32` makes one, written to `path`.
  static func makeToken(at path: String) throws -> String {
    var generator = SystemRandomNumberGenerator()
    let token = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }
      .map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
    try (token + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return token
  }

  /// Waits until no daemon holds a session the history has not taken (none queued, none
  /// spooled), for at most `seconds`. Prints how long that took, or what is still held.
  static func waitForHistory(_ daemons: [FleetDaemon], seconds: Double) -> Bool {
    let start = ServeLoad.now()
    var spooled = 0
    while true {
      let stats = daemons.map { $0.stats() }
      let queued = stats.reduce(0) { $0 + ($1["history_queued"] as? Int ?? 0) }
      let spool = stats.reduce(0) { $0 + ($1["history_spooled"] as? Int ?? 0) }
      spooled = max(spooled, spool)
      let waited = ServeLoad.now() - start
      if queued + spool == 0 {
        print(
          String(
            format: "history caught up          in %.1f s (spooled at most %d sessions)", waited,
            spooled))
        return true
      }
      if waited > seconds {
        print(
          String(
            format: "history behind             after %.0f s: %d queued, %d spooled", waited,
            queued, spool))
        return false
      }
      usleep(250_000)
    }
  }

  /// Each client's session stored once, with the totals its summary gave.
  static func check(_ outcome: ServeLoad.Outcome, history: String) throws -> Bool {
    let store = try HistoryStore(HistoryLocation(history))
    var stored: [String: [StoredSession]] = [:]
    for session in try store.recentSessions(limit: Int.max) {
      stored[session.record.person ?? "", default: []].append(session)
    }
    var once = 0
    var equal = 0
    var missed: [String] = []
    for (index, client) in outcome.clients.enumerated() {
      let sessions = stored[ServeLoad.clientName(index)] ?? []
      guard sessions.count == 1 else {
        missed.append("\(ServeLoad.clientName(index)) (\(sessions.count))")
        continue
      }
      once += 1
      var reps: [String: Int] = [:]
      for total in sessions[0].record.totals where total.reps > 0 { reps[total.name] = total.reps }
      if client.summary == reps { equal += 1 }
    }
    let clients = outcome.clients.count
    let summarised = outcome.clients.filter { $0.summary != nil }.count
    let total = stored.values.reduce(0) { $0 + $1.count }
    print("sessions stored            \(total) (clients: \(clients))")
    print(
      "stored exactly once        \(once) of \(clients) clients"
        + (missed.isEmpty
          ? ""
          : "; not: \(missed.prefix(4).joined(separator: ", "))"
            + (missed.count > 4 ? " and \(missed.count - 4) more" : "")))
    print("stored totals = summary    \(equal) of \(clients) clients")
    return summarised == clients && once == clients && equal == clients && total == clients
  }
}
