import Foundation
import SpotterServer

#if canImport(Glibc)
  import Glibc
#endif

/// One `spotter serve` of the fleet, on its host: started, stopped as an operator stops it
/// (SIGTERM), or killed and started again with the same address, port and state directory, as
/// a crash and its restart would be (`restart()`).
///
/// Besides its TCP listener, which the balancer's clients reach, each daemon listens on a Unix
/// socket in the check's folder: the check's own door for `stats`. A path is the file system's,
/// not a network's, so it reaches into the daemon's namespace, and the TCP listener asks every
/// first line for the token, a stats command's too.
final class FleetDaemon {
  /// `daemon1`, `daemon2`…: also its log's and its socket's names.
  let name: String
  let host: Host
  let port: UInt16
  /// Where it serves its metrics: the balancer's health check.
  let metricsPort: UInt16
  let socket: String
  /// Where it keeps its state (the spool of sessions the history could not take yet), when
  /// this `spotter serve` has `--state-dir`.
  let stateDirectory: String?
  private let command: [String]
  private let log: String
  private(set) var process: Process?

  /// - Parameters:
  ///   - options: the options every daemon of the fleet shares (history, weights, limits).
  ///   - token: the file with the token, for a listener beyond loopback.
  ///   - keepsState: whether to give it `--state-dir` (in `folder`).
  init(
    number: Int, host: Host, spotter: String, folder: String, options: [String],
    token: String?, keepsState: Bool
  ) throws {
    name = "daemon\(number)"
    self.host = host
    port = try host.port(7301)
    metricsPort = try host.port(9301)
    socket = folder + "/\(name).sock"
    log = folder + "/\(name).log"
    stateDirectory = keepsState ? folder + "/\(name)-state" : nil
    command =
      [
        spotter, "serve", "--socket", socket, "--listen", "\(host.address):\(port)",
        "--metrics", "\(host.address):\(metricsPort)",
      ] + (token.map { ["--token-file", $0] } ?? [])
      + (stateDirectory.map { ["--state-dir", $0] } ?? []) + options
  }

  /// Starts it, and returns once it answers `stats` (the listeners are bound by then).
  func start() throws {
    if !FileManager.default.fileExists(atPath: log) {
      _ = FileManager.default.createFile(atPath: log, contents: nil)
    }
    let output = FileHandle(forWritingAtPath: log)
    _ = try output?.seekToEnd()  // a restart's lines follow the ones before
    let process = host.process(command)
    process.standardError = output
    process.standardOutput = output
    try ChildProcesses.run(process)
    self.process = process
    let deadline = Date().addingTimeInterval(60)
    while stats().isEmpty {
      guard process.isRunning, Date() < deadline else {
        throw LocalServers.Failure(
          description: "\(name) did not start: \(tail(ofLog: 5).joined(separator: " | "))")
      }
      usleep(50_000)
    }
  }

  /// Kills it (SIGKILL: no summaries, no goodbye), as a crash or an OOM kill would.
  func kill() {
    guard let process, process.isRunning else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Kills it and starts it again on the same address and port, with the same state directory;
  /// the balancer's health check takes it out of the rotation meanwhile, and back in after.
  func restart() throws {
    kill()
    try start()
  }

  /// Stops it as an operator would (SIGTERM: it summarises its open sessions and stores what it
  /// holds); returns its exit status.
  func stop() -> Int32 {
    guard let process else { return -1 }
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Its CPU time and peak resident memory so far, from its /proc (since its last start),
  /// or nil when it is not running.
  func figures() -> (cpuSeconds: Double, peakKiB: Int)? {
    guard let process, process.isRunning else { return nil }
    let pid = process.processIdentifier
    return (ProcessFigures.cpuSeconds(pid), ProcessFigures.peakResidentKiB(pid))
  }

  /// Its `stats` reply, or nothing when it does not answer in 5 s.
  func stats() -> [String: Any] { ServeSoak.stats { try Socket.connectUnix(path: socket) } }

  /// The last `count` lines of its log.
  func tail(ofLog count: Int) -> [String] {
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").suffix(count).map(String.init)
  }
}
