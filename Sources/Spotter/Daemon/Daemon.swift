import ActionModel
import Foundation
import Poses
import RepCounting

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter serve`: many live streams, one `Session` each, over a Unix socket and/or TCP on
/// loopback (DESIGN §12).
///
/// One thread runs a poll loop over every socket, non-blocking: a session costs a few
/// microseconds a frame, so one thread keeps up with thousands of 30 fps streams, and no lock
/// is needed. Protocol: the client sends a pose-file header line, then frame lines, and reads
/// NDJSON events back; `{"cmd":"stats"}` asks for the server's counters.
///
/// Under pressure: of each connection's unprocessed frames only the newest 15 (half a second)
/// are kept (the rest are counted as dropped); lines longer than `maxLineBytes` get an `error` event and are skipped;
/// a client that does not read its events has them dropped once `maxPendingOutput` waits,
/// so it slows nobody else; idle connections close after `idleSeconds`. A closed or lost
/// connection's session is summarised and appended to the history. SIGTERM stops accepting,
/// summarises every open session, and returns; SIGHUP reloads the exercise definitions.
public final class Daemon {
  public struct Configuration: Sendable {
    public var socketPath: String?
    public var port: UInt16?
    public var maxConnections = 1024
    /// 64 KiB: a frame of 20 people in BODY_25 is under 40 KB.
    public var maxLineBytes = 64 * 1024
    /// Seconds without a line before a connection is closed.
    public var idleSeconds = 60.0
    /// Events waiting for a client beyond this many bytes are dropped (a slow reader).
    public var maxPendingOutput = 1 << 20
    public var historyPath: String?
    public var exercisesFolder: String?

    public init() {}
  }

  let configuration: Configuration
  private var runtime: Runtime
  private var listeners: [Int32] = []
  private var connections: [Int32: Connection] = [:]
  private var stats = Stats()
  private let started = Date()

  struct Stats {
    var connectionsTotal = 0
    var frames = 0
    var dropped = 0
    var errors = 0
    var sessionsFinished = 0
  }

  public init(runtime: Runtime, configuration: Configuration) {
    self.runtime = runtime
    self.configuration = configuration
  }

  /// Binds the listeners. Throws `DaemonError` naming what could not be bound.
  public func listen() throws {
    if let path = configuration.socketPath { listeners.append(try Socket.listenUnix(path: path)) }
    if let port = configuration.port { listeners.append(try Socket.listenTCP(port: port)) }
    guard !listeners.isEmpty else {
      throw DaemonError(message: "nothing to listen on: give a socket path or a port")
    }
  }

  /// Runs until SIGTERM (or SIGINT): the poll loop. Returns after every session is summarised.
  public func run() {
    SignalFlags.install()
    var descriptors: [pollfd] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while !SignalFlags.terminate {
      if SignalFlags.takeReload() { reloadExercises() }
      descriptors.removeAll(keepingCapacity: true)
      for listener in listeners {
        descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
      }
      for (fd, connection) in connections {
        let events =
          (connection.inputEnded ? 0 : Int16(POLLIN))
          | (connection.output.isEmpty ? 0 : Int16(POLLOUT))
        descriptors.append(pollfd(fd: fd, events: events, revents: 0))
      }
      let ready = poll(&descriptors, nfds_t(descriptors.count), 100)
      if ready < 0 && errno != EINTR { break }
      let now = Date().timeIntervalSince1970
      for descriptor in descriptors where descriptor.revents != 0 {
        if listeners.contains(descriptor.fd) {
          accept(on: descriptor.fd, now: now)
        } else if let connection = connections[descriptor.fd] {
          if descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            read(connection, buffer: &buffer, now: now)
          }
          if descriptor.revents & Int16(POLLOUT) != 0 { connection.flush() }
          // A client that has sent everything gets its summary before the socket closes.
          if connection.inputEnded { connection.finish() }
          if connection.closed || (connection.inputEnded && connection.output.isEmpty) {
            close(connection)
          }
        }
      }
      for connection in Array(connections.values)
      where now - connection.lastActivity > configuration.idleSeconds {
        connection.send(
          .error(
            t: nil, line: nil, message: "no line for \(Int(configuration.idleSeconds)) s: closing"))
        close(connection)
      }
    }
    // Drain: stop accepting, summarise every open session.
    for listener in listeners { Glibc.close(listener) }
    if let path = configuration.socketPath { unlink(path) }
    for connection in Array(connections.values) { close(connection) }
  }

  private func accept(on listener: Int32, now: Double) {
    while true {
      let fd = Glibc.accept(listener, nil, nil)
      guard fd >= 0 else { return }
      guard connections.count < configuration.maxConnections else {
        let message =
          SpotterEvent.error(
            t: nil, line: nil,
            message: "too many connections (\(configuration.maxConnections)); try later"
          ).jsonLine + "\n"
        _ = message.withCString { Glibc.write(fd, $0, strlen($0)) }
        Glibc.close(fd)
        continue
      }
      Socket.setNonBlocking(fd)
      stats.connectionsTotal += 1
      connections[fd] = Connection(
        fd: fd, name: "connection \(stats.connectionsTotal)", now: now, daemon: self)
    }
  }

  /// Reads what is there, up to four buffers a round, so one fast sender cannot hold the loop
  /// (poll reports the rest next round).
  private func read(_ connection: Connection, buffer: inout [UInt8], now: Double) {
    for _ in 0..<4 {
      let count = buffer.withUnsafeMutableBytes {
        Glibc.read(connection.fd, $0.baseAddress, $0.count)
      }
      if count > 0 {
        connection.lastActivity = now
        connection.receive(buffer[0..<count], maxLine: configuration.maxLineBytes)
        continue
      }
      if count == 0 {
        connection.endInput()
      } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
        connection.closed = true
      }
      break
    }
    connection.processPending()
  }

  private func close(_ connection: Connection) {
    connection.finish()
    connection.flush()
    Glibc.close(connection.fd)
    connections[connection.fd] = nil
  }

  /// New sessions get the reloaded definitions; open ones keep theirs. A bad definition keeps
  /// the old set and says why on stderr.
  private func reloadExercises() {
    do {
      let catalogue = try ExerciseCatalogue.load(adding: configuration.exercisesFolder)
      runtime = Runtime(
        classifier: runtime.classifier, catalogue: catalogue, options: runtime.options)
      FileHandle.standardError.write(Data("spotter serve: exercise definitions reloaded\n".utf8))
    } catch {
      FileHandle.standardError.write(
        Data("spotter serve: reload failed, keeping the previous definitions: \(error)\n".utf8))
    }
  }

  // MARK: what connections ask of the server

  func makeSession() -> Session { runtime.makeSession() }

  func countFrame() { stats.frames += 1 }
  func countDropped(_ count: Int) { stats.dropped += count }
  func countError() { stats.errors += 1 }

  /// Appends a finished session's summary to the history (atomically).
  func record(_ summary: [(name: String, reps: Int, activeSeconds: Double)], source: String) {
    stats.sessionsFinished += 1
    guard let path = configuration.historyPath else { return }
    try? WorkoutHistory.append(
      WorkoutHistory.record(date: Date(), source: source, summary: summary), to: path)
  }

  /// The `stats` reply.
  func statsLine() -> String {
    let seconds = max(Date().timeIntervalSince(started), 1e-3)
    return
      "{\"type\":\"stats\",\"open_sessions\":\(connections.values.filter { $0.session != nil }.count),\"connections\":\(connections.count),"
      + "\"connections_total\":\(stats.connectionsTotal),\"frames\":\(stats.frames),\"frames_per_second\":\(String(format: "%.1f", Double(stats.frames) / seconds)),"
      + "\"dropped_frames\":\(stats.dropped),\"errors\":\(stats.errors),\"sessions_finished\":\(stats.sessionsFinished)}"
  }
}

public struct DaemonError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// SIGTERM/SIGINT and SIGHUP, noted by the handler and read by the loop.
enum SignalFlags {
  nonisolated(unsafe) static var terminate = false
  nonisolated(unsafe) static var reload = false

  static func install() {
    // A parent (a test runner, a supervisor) may have left these blocked: unblock them.
    var set = sigset_t()
    sigemptyset(&set)
    for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
    sigprocmask(SIG_UNBLOCK, &set, nil)
    signal(SIGTERM) { _ in SignalFlags.terminate = true }
    signal(SIGINT) { _ in SignalFlags.terminate = true }
    signal(SIGHUP) { _ in SignalFlags.reload = true }
    signal(SIGPIPE, SIG_IGN)
  }

  static func takeReload() -> Bool {
    guard reload else { return false }
    reload = false
    return true
  }
}
