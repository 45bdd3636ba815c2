import ArgumentParsing
import Foundation
import History
import Spotter
import SpotterServer

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter serve`: the daemon. `spotter status`: its counters.
enum ServeCommand {
  static let command = Command(
    name: "serve",
    summary:
      "Run the daemon: one session per connection over a Unix socket and/or TCP.",
    options: RuntimeOptions.options + [
      RuntimeOptions.predictions,
      .value(
        "socket", "PATH", "Unix socket to listen on.",
        default: "$XDG_RUNTIME_DIR/spotter.sock, else /tmp/spotter-UID.sock"),
      .value(
        "listen", "HOST:PORT",
        "Also (or, with --no-socket, only) listen for TCP there: 127.0.0.1 for this machine only, "
          + "0.0.0.0 for every interface (then --token-file is required)."),
      .value("port", "N", "The same as --listen 127.0.0.1:N."),
      .value(
        "token-file", "FILE",
        "The key every TCP client sends in its header (\"token\": \"…\"), loopback included: "
          + "any local user can reach a loopback port, and only the Unix socket's mode (0600) "
          + "keeps others out. Read once, never logged; required for a --listen or --metrics "
          + "address other than loopback. Without it, loopback is open to every local user."),
      .value(
        "metrics", "HOST:PORT",
        "Serve the counters of {\"cmd\":\"stats\"} in Prometheus' text format over HTTP there "
          + "(GET /metrics), e.g. for HAProxy's health check; with --token-file, asked for "
          + "Authorization: Bearer <token>."),
      .flag("no-socket", "Do not listen on a Unix socket."),
      .value(
        "workers", "N",
        "Poll loops serving the connections, each on a thread of its own, sharing the model, "
          + "the exercise definitions, the history and the state folder; new connections go "
          + "to the one with the fewest.",
        default: "the CPUs the process may use"),
      .value(
        "max-connections", "N", "Connections at once; more are refused with an error event.",
        default: "1024"),
      .value(
        "max-line", "BYTES", "Longest line accepted; longer ones get an error event.",
        default: "65536"),
      .value("idle", "SECONDS", "Close connections silent for this long.", default: "60"),
      .value(
        "max-output", "BYTES",
        "Events waiting for a client that does not read them; beyond, its events are dropped "
          + "(dropped_events), never those that end its session nor replies to commands.",
        default: "1048576"),
      .value(
        "backlog", "FRAMES",
        "Frames a connection may have waiting; older ones are dropped, so a server that fell "
          + "behind catches up with live streams. 0 keeps every frame (recorded streams).",
        default: "15"),
      .value(
        "history", "FILE|URL",
        "Workout history each finished session is stored in: an SQLite file, or a "
          + "postgresql:// URL shared by several daemons.",
        default: HistoryLocation.standardDescription),
      .flag("no-history", "Keep no workout history."),
      .value(
        "state-dir", "DIR",
        "Where the daemon keeps what must outlive it: the spool of sessions the history could "
          + "not take yet (spool.sqlite), moved into the history when it answers again, also "
          + "by the next start. One folder per daemon.",
        default: HistorySpool.standardFolderDescription),
      .value(
        "people", "N",
        "Follow up to N people in a stream whose header does not say (\"people\": N), each "
          + "with their own exercises and counts (events carry person).",
        default: "1"),
    ],
    discussion: """
      Protocol: send a pose-file header line, then frame lines (README, "Pose files"); read NDJSON
      events back. {"cmd":"stats"} on any connection returns the server's counters. SIGTERM
      stops accepting, summarises the open sessions, writes every queued session to the history
      and exits 0; SIGHUP reloads the exercise definitions. A "person" or "client" key in a
      stream's header is stored with its session; with several people, each person is a session
      of the history, their id added to it ("gym-3/2").
      """,
    run: run
  )

  /// `--listen HOST:PORT`, or `--port N` for 127.0.0.1:N (not both).
  static func listenAddress(_ arguments: ParsedArguments) throws -> ListenAddress? {
    let port = try arguments.int("port", range: 1...65535)
    guard let text = arguments.string("listen") else {
      return port.map { ListenAddress(loopbackPort: UInt16($0)) }
    }
    guard port == nil else {
      throw CLIError.usage("give --listen or --port, not both", command: command)
    }
    guard let address = ListenAddress(text) else {
      throw CLIError.usage(
        "--listen \(text): expected HOST:PORT, an IPv4 address and a port from 1 to 65535 "
          + "(127.0.0.1:7000, 0.0.0.0:7000)", command: command)
    }
    return address
  }

  /// The token in `path`: its first line, without surrounding white space; 16 to 1,024 bytes,
  /// none of them white space or quotes (it travels in a JSON header).
  static func readToken(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CLIError.failure(
        "cannot read the token file \(path)", hint: "give a readable file: --token-file FILE.")
    }
    let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first ?? ""
    let token = Array(line.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    guard (16...1024).contains(token.count),
      !token.contains(where: { $0 <= 0x20 || $0 == 0x22 || $0 == 0x5C || $0 >= 0x7F })
    else {
      throw CLIError.failure(
        "the token file \(path) must hold one line of 16 to 1,024 printable ASCII characters, "
          + "without spaces, quotes or backslashes",
        hint: "make one with: openssl rand -hex 32 > FILE")
    }
    return token
  }

  /// What to do when the daemon cannot listen, by what stood in the way (the `errno` of its
  /// error); nil when there is no better advice than the error itself.
  static func listenHint(_ code: Int32?) -> String? {
    switch code {
    case EADDRINUSE: "another server may be running; pick another --socket or --port."
    case EEXIST: "move what is there away, or pick another --socket."
    case ENOENT: "make the folder first, or pick another --socket."
    case ENOTDIR: "pick a --socket in a folder."
    case ENAMETOOLONG: "pick a shorter --socket path."
    default: nil
    }
  }

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    var configuration = Daemon.Configuration()
    configuration.socketPath =
      arguments.flag("no-socket") ? nil : (arguments.values["socket"] ?? Socket.defaultPath)
    configuration.address = try listenAddress(arguments)
    if let path = arguments.string("token-file") { configuration.token = try readToken(path) }
    if let address = configuration.address, !address.isLoopback, configuration.token == nil {
      throw CLIError.usage(
        "--listen \(address) is reachable from other machines: give --token-file, so that only "
          + "clients with the token can stream into it", command: command)
    }
    if let text = arguments.string("metrics") {
      guard let address = ListenAddress(text) else {
        throw CLIError.usage(
          "--metrics \(text): expected HOST:PORT, an IPv4 address and a port from 1 to 65535 "
            + "(127.0.0.1:9300)", command: command)
      }
      guard address.isLoopback || configuration.token != nil else {
        throw CLIError.usage(
          "--metrics \(address) is reachable from other machines: give --token-file, so that "
            + "only a scraper with the token can read the counters", command: command)
      }
      configuration.metricsAddress = address
    }
    configuration.workers =
      arguments.values["workers"] == nil
      ? ProcessInfo.processInfo.activeProcessorCount
      : try arguments.int("workers", range: 1...1024)!
    configuration.maxConnections = try arguments.int("max-connections", range: 1...100_000)!
    configuration.maxLineBytes = try arguments.int("max-line", range: 1024...(16 << 20))!
    configuration.idleSeconds = try arguments.double("idle", range: 1...86_400)!
    configuration.maxPendingOutput = try arguments.int("max-output", range: 1024...(1 << 30))!
    let backlog = try arguments.int("backlog", range: 0...1_000_000)!
    configuration.backlog = backlog == 0 ? nil : backlog
    configuration.exercisesFolder = arguments.string("exercises")
    configuration.people = try arguments.int("people", range: PeopleLimit.range)!
    let notify: @Sendable (Daemon.Notice) -> Void = { Terminal.error("spotter serve: \($0)") }
    configuration.notify = notify
    if !arguments.flag("no-history") {
      let store = try HistoryCommand.open(arguments.values["history"])
      let folder = arguments.values["state-dir"] ?? HistorySpool.standardFolder
      let spool: HistorySpool
      do {
        spool = try HistorySpool(folder: folder)
      } catch {
        throw CLIError.failure(
          "the spool cannot be opened: \(error)",
          hint: "give --state-dir a folder this user may write.")
      }
      configuration.history = HistoryWriter(store: store, spool: spool) {
        notify(.historyWriteFailed($0))
      }
    }
    let daemon: Daemon
    do {
      daemon = try Daemon(runtime: runtime, configuration: configuration)
      try daemon.listen()
    } catch {
      throw CLIError.failure("\(error)", hint: listenHint(error.code))
    }
    var places: [String] = []
    if let path = configuration.socketPath { places.append(path) }
    if let address = configuration.address {
      places.append("\(address)" + (configuration.token == nil ? "" : " (token required)"))
    }
    if let address = configuration.metricsAddress {
      places.append(
        "http://\(address)/metrics" + (configuration.token == nil ? "" : " (token required)"))
    }
    Terminal.error(
      "spotter serve: listening on \(places.joined(separator: " and ")); history "
        + (configuration.history.map { "\($0.location)" } ?? "off")
    )
    daemon.run()
    Terminal.error("spotter serve: stopped")
    return 0
  }
}

enum StatusCommand {
  static let command = Command(
    name: "status",
    summary: "Ask a running 'spotter serve' for its counters.",
    options: [
      .value(
        "socket", "PATH", "The server's Unix socket.",
        default: "$XDG_RUNTIME_DIR/spotter.sock, else /tmp/spotter-UID.sock"),
      .value("port", "N", "The server's TCP port on 127.0.0.1, instead of the socket."),
      .value(
        "token-file", "FILE", "The server's token (its --token-file), sent with the request."),
    ],
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let fd: Int32
    do {
      if let port = try arguments.int("port", range: 1...65535) {
        fd = try Socket.connectTCP(port: UInt16(port))
      } else {
        fd = try Socket.connectUnix(path: arguments.values["socket"] ?? Socket.defaultPath)
      }
    } catch {
      throw CLIError.failure("\(error)", hint: "is 'spotter serve' running?")
    }
    defer { close(fd) }
    let token = try arguments.string("token-file").map { try ServeCommand.readToken($0) }
    let request =
      "{\"cmd\":\"stats\""
      + (token.map { ",\"token\":\"\(String(decoding: $0, as: UTF8.self))\"" } ?? "")
      + "}\n"
    _ = request.withCString { write(fd, $0, strlen($0)) }
    var reply: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1 {
      if byte == 0x0A { break }
      reply.append(byte)
    }
    print(String(decoding: reply, as: UTF8.self))
    return 0
  }
}
