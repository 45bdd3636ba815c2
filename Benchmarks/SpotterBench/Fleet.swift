import ArgumentParsing
import Foundation
import History
import SpotterServer

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench fleet`: the README's fleet recipe on loopback, checked. A PostgreSQL of its
/// own, several `spotter serve --port` daemons sharing it, HAProxy in front (TCP mode); then
/// `ServeLoad`'s clients through the balancer. Passes when every client got its summary and
/// the shared history holds each client's session exactly once, with the totals the client
/// was sent. `make fleet-check` runs it at 200 clients; the test suite at a few.
enum Fleet {
  static let command = Command(
    name: "fleet",
    summary: "Daemons behind HAProxy sharing one PostgreSQL: is every session stored once?",
    options: [
      .value("clients", "N", "Clients streaming through the balancer at once.", default: "200"),
      .value("daemons", "N", "Daemons behind the balancer.", default: "2"),
      .value("workouts", "K", "Distinct workouts; client i streams workout i mod K.", default: "8"),
      .value("plan", "PLAN", "The workout each client streams.", default: ServeLoad.defaultPlan),
      .value("weights", "FILE", "The model the daemons load.", default: "Weights/default.spotter"),
    ],
    run: { arguments in
      return try run(
        try ServeLoad.Options(arguments), daemons: try arguments.int("daemons", range: 1...16)!)
        ? 0 : 1
    })

  static func run(_ options: ServeLoad.Options, daemons count: Int) throws -> Bool {
    let folder = NSTemporaryDirectory() + "spotter-fleet-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let postgres = try LocalPostgres(folder: folder + "/postgres")
    defer { postgres.stop() }
    var daemons: [(process: Process, port: UInt16)] = []
    defer {
      for daemon in daemons where daemon.process.isRunning {
        kill(daemon.process.processIdentifier, SIGKILL)
      }
    }
    for index in 0..<count {
      let port = try LocalServers.freePort()
      let process = Process()
      process.executableURL = URL(fileURLWithPath: options.spotter)
      process.arguments = [
        "serve", "--no-socket", "--port", "\(port)", "--history", postgres.url, "--weights",
        options.weights, "--max-connections", "\(options.clients + 16)", "--predictions",
      ]
      _ = FileManager.default.createFile(atPath: folder + "/daemon\(index + 1).log", contents: nil)
      process.standardError = FileHandle(forWritingAtPath: folder + "/daemon\(index + 1).log")
      try ChildProcesses.run(process)
      daemons.append((process, port))
    }
    for daemon in daemons { try LocalServers.waitForPort(daemon.port, seconds: 60) }
    let balancer = try LocalHAProxy(folder: folder, backends: daemons.map(\.port))
    defer { balancer.stop() }
    print(
      "fleet: \(count) daemons on 127.0.0.1:\(daemons.map { "\($0.port)" }.joined(separator: ",")) "
        + "behind HAProxy on 127.0.0.1:\(balancer.port), history \(postgres.url)")
    var load = options
    load.port = balancer.port
    let (outcome, workouts) = try ServeLoad.load(load)
    let shares = daemons.map { stats(port: $0.port)["sessions_finished"] as? Int ?? -1 }
    for daemon in daemons {
      kill(daemon.process.processIdentifier, SIGTERM)
      daemon.process.waitUntilExit()
    }
    ServeLoad.report(outcome, workouts: workouts)
    print("sessions per daemon        \(shares.map(String.init).joined(separator: ", "))")
    let exits = daemons.map(\.process.terminationStatus)
    return try check(outcome, history: postgres.url) && exits.allSatisfy { $0 == 0 }
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
    for (index, client) in outcome.clients.enumerated() {
      let sessions = stored[ServeLoad.clientName(index)] ?? []
      guard sessions.count == 1 else { continue }
      once += 1
      var reps: [String: Int] = [:]
      for total in sessions[0].record.totals where total.reps > 0 { reps[total.name] = total.reps }
      if client.summary == reps { equal += 1 }
    }
    let clients = outcome.clients.count
    let summarised = outcome.clients.filter { $0.summary != nil }.count
    let total = stored.values.reduce(0) { $0 + $1.count }
    print("sessions stored            \(total) (clients: \(clients))")
    print("stored exactly once        \(once) of \(clients) clients")
    print("stored totals = summary    \(equal) of \(clients) clients")
    let passed = summarised == clients && once == clients && equal == clients && total == clients
    print("fleet check                \(passed ? "passed" : "FAILED")")
    return passed
  }

  /// A daemon's `stats` reply.
  static func stats(port: UInt16) -> [String: Any] {
    guard let fd = try? Socket.connectTCP(port: port) else { return [:] }
    defer { close(fd) }
    _ = "{\"cmd\":\"stats\"}\n".withCString { write(fd, $0, strlen($0)) }
    var reply: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1 && byte != 0x0A { reply.append(byte) }
    return (try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any]) ?? [:]
  }
}
