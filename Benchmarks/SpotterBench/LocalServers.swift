import ArgumentParsing
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's PostgreSQL and HAProxy, started for a check or a benchmark (on loopback, or on a
/// `Host` of the check's own network), each with its own folder, and stopped afterwards.
/// Nothing outside the folder is touched: no system service, no system data directory.
/// `make test-deps` installs the programs.
enum LocalServers {
  /// `spotter-bench postgres`: a server for the tests, for as long as they keep its standard
  /// input open (a test process that dies closes it, and the server stops with it).
  static let postgres = Command(
    name: "postgres",
    summary: "Start a PostgreSQL of its own on loopback; stop it when standard input closes.",
    options: [
      .value("folder", "DIR", "Where its data directory and socket go (made, then removed).")
    ],
    discussion: "Prints the server's postgresql:// URL on the first line once it accepts.",
    run: { arguments in
      let folder = try arguments.required("folder")
      let server = try LocalPostgres(folder: folder)
      print(server.url)
      fflush(nil)
      while FileHandle.standardInput.availableData.count > 0 {}
      server.stop()
      try? FileManager.default.removeItem(atPath: folder)
      return 0
    })

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Runs a program to its end and returns its output (standard output and error); throws
  /// with that output when it fails.
  ///
  /// By `posix_spawn` and `waitpid`, not `Process`: Foundation's `Process` learns that a
  /// child ended from a descriptor the child inherits, and a server the program leaves
  /// running (`pg_ctl start`) would hold that open, so `waitUntilExit` would never return.
  /// For the same reason the output goes to a file, not a pipe.
  @discardableResult static func run(_ arguments: [String]) throws -> String {
    let path = NSTemporaryDirectory() + "spotter-bench-run-\(getpid())-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = arguments.map { strdup($0) } + [nil]
    let environment = ProcessInfo.processInfo.environment.map { strdup("\($0)=\($1)") } + [nil]
    defer { for pointer in argv + environment { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environment)
    guard spawned == 0 else {
      throw Failure(
        description: "posix_spawn \(arguments[0]) failed: \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exited = status & 0x7F == 0
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    guard exited && (status >> 8) & 0xFF == 0 else {
      throw Failure(
        description: "\(arguments.joined(separator: " ")) "
          + (exited ? "exited with \((status >> 8) & 0xFF)" : "was killed") + ": \(text)")
    }
    return text
  }

  /// A TCP port on 127.0.0.1 that nothing listens on now.
  static func freePort() throws -> UInt16 {
    guard let port = Fixtures.freeTCPPort() else {
      throw Failure(description: "cannot bind a port on 127.0.0.1")
    }
    return port
  }

  /// Waits until something accepts connections at `address`:`port` (up to `seconds`).
  static func waitForPort(_ port: UInt16, at address: String = "127.0.0.1", seconds: Double)
    throws
  {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if let fd = connect(to: address, port: port) {
        close(fd)
        return
      }
      usleep(50_000)
    }
    throw Failure(
      description: "nothing accepted connections on \(address):\(port) in \(seconds) s")
  }

  /// A blocking TCP connection to an IPv4 `address`:`port`, or nil when none is made.
  static func connect(to address: String, port: UInt16) -> Int32? {
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_port = port.bigEndian
    guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else { return nil }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    let connected = withUnsafePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    return fd
  }

  /// The first of `paths` that exists and can be run.
  static func program(_ name: String, in paths: [String], install: String) throws -> String {
    guard let found = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      throw Failure(
        description: "\(name) is not installed (looked in \(paths.joined(separator: ", "))); "
          + "'make test-deps' installs \(install)")
    }
    return found
  }
}

/// A PostgreSQL server of its own: `initdb` into `folder/data`, listening on its host's address
/// (127.0.0.1 at a free port, or a host of the check's network at 5432) and on a Unix socket in
/// `folder`, trust authentication for the user `spotter` from loopback and from `clients` (an
/// address range). As root it runs as the `postgres` user, since PostgreSQL refuses to run as
/// root. Durability is off (`fsync=off`): a throwaway server for checks, not for keeping data.
final class LocalPostgres {
  let folder: String
  let host: Host
  let port: UInt16
  /// `postgresql://spotter@ADDRESS:PORT/postgres`
  let url: String
  private let binaries: String
  private let asOwner: [String]
  /// `pg_ctl start` on its host, and `pg_ctl stop`, as the server's owner.
  private let startCommand: [String]
  private let stopCommand: [String]

  init(folder: String, host: Host = .loopback("db"), clients: String? = nil) throws {
    let versions =
      ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
      .compactMap(Int.init).sorted(by: >)
    let initdb = try LocalServers.program(
      "PostgreSQL's initdb", in: versions.map { "/usr/lib/postgresql/\($0)/bin/initdb" },
      install: "postgresql-15")
    binaries = (initdb as NSString).deletingLastPathComponent
    self.folder = folder
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    if getuid() == 0 {
      asOwner = ["/usr/sbin/runuser", "-u", "postgres", "--"]
      try LocalServers.run(["/bin/chown", "-R", "postgres:postgres", folder])
    } else {
      asOwner = []
    }
    try LocalServers.run(
      asOwner + [
        initdb, "-D", folder + "/data", "-U", "spotter", "-A", "trust", "-E", "UTF8",
        "--no-sync",
      ])
    if let clients {
      let rules = folder + "/data/pg_hba.conf"
      let text = try String(contentsOfFile: rules, encoding: .utf8)
      try (text + "host all all \(clients) trust\n").write(
        toFile: rules, atomically: false, encoding: .utf8)
    }
    self.host = host
    port = try host.port(5432)
    startCommand =
      host.launcher + asOwner + [
        binaries + "/pg_ctl", "-D", folder + "/data", "-l", folder + "/server.log", "-w",
        "-o",
        "-p \(port) -k \(folder) -c listen_addresses=\(host.address) -c fsync=off "
          + "-c max_connections=100",
        "start",
      ]
    try LocalServers.run(startCommand)
    url = "postgresql://spotter@\(host.address):\(port)/postgres"
    let stopCommand =
      asOwner + [binaries + "/pg_ctl", "-D", folder + "/data", "-m", "fast", "-w", "stop"]
    self.stopCommand = stopCommand
    ChildProcesses.atStop(folder) { _ = try? LocalServers.run(stopCommand) }
  }

  /// Stops the server (`pg_ctl stop -m fast`: open connections are ended) until `resume()`.
  func pause() throws { try LocalServers.run(stopCommand) }

  /// Starts the server again, on the same address and data.
  func resume() throws { try LocalServers.run(startCommand) }

  /// A new, empty database on this server; returns its URL.
  func createDatabase(_ name: String) throws -> String {
    try LocalServers.run([
      "/usr/bin/psql", "-q", "-h", host.address, "-p", "\(port)", "-U", "spotter", "-d",
      "postgres", "-c", "CREATE DATABASE \(name)",
    ])
    return "postgresql://spotter@\(host.address):\(port)/\(name)"
  }

  func stop() {
    ChildProcesses.forget(folder)
    _ = try? LocalServers.run(stopCommand)
  }
}

/// HAProxy in TCP mode on its host (127.0.0.1 at a free port, or a host of the check's network
/// at 7300), spreading connections over `backends` by fewest connections, with a health check
/// (each daemon's metrics, `GET /metrics` with the `token` as a bearer token) that takes a
/// stopped daemon out of the rotation; with a `certificate` (certificate and key in one file),
/// it terminates TLS and forwards plain TCP. The configuration is the README's fleet recipe.
final class LocalHAProxy {
  let host: Host
  let port: UInt16
  private let process: Process

  init(
    folder: String, host: Host = .loopback("lb"),
    backends: [(address: String, port: UInt16, metricsPort: UInt16)], token: String?,
    certificate: String? = nil
  ) throws {
    let haproxy = try LocalServers.program(
      "HAProxy", in: ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"],
      install: "haproxy")
    self.host = host
    port = try host.port(7300)
    let configuration = Self.configuration(
      bind: "\(host.address):\(port)",
      backends: backends.map { ("\($0.address):\($0.port)", $0.metricsPort) }, token: token,
      certificate: certificate)
    let path = folder + "/haproxy.cfg"
    try configuration.write(toFile: path, atomically: true, encoding: .utf8)
    process = host.process([haproxy, "-f", path, "-db"])
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try ChildProcesses.run(process)
    try LocalServers.waitForPort(port, at: host.address, seconds: 10)
  }

  static func configuration(
    bind: String, backends: [(address: String, metricsPort: UInt16)], token: String?,
    certificate: String?
  ) -> String {
    var lines = [
      "global", "  maxconn 4000", "defaults", "  mode tcp", "  timeout connect 5s",
      // A connection to a daemon that died before the health check noticed goes to another.
      "  retries 3", "  option redispatch",
      // A workout is a long, mostly one-way stream: hours, not seconds, of silence allowed.
      "  timeout client 2h", "  timeout server 2h",
      "frontend spotter", "  bind \(bind)" + (certificate.map { " ssl crt \($0)" } ?? ""),
      "  default_backend daemons",
      "backend daemons", "  balance leastconn", "  option httpchk",
      "  http-check send meth GET uri /metrics"
        + (token.map { " hdr Authorization \"Bearer \($0)\"" } ?? ""),
      "  http-check expect status 200",
    ]
    for (index, backend) in backends.enumerated() {
      lines.append(
        "  server daemon\(index + 1) \(backend.address) check port \(backend.metricsPort) inter 1s")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
  }
}
