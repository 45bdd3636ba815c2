import ActionModel
import Foundation
import RepCounting
import Spotter

/// `spotter serve`: many live streams, one `Session` each, over a Unix socket and/or TCP on
/// loopback.
///
/// One thread runs a poll loop over every socket, non-blocking: a session costs a few
/// microseconds a frame, so one thread keeps up with thousands of 30 fps streams, and no lock
/// is needed. Predictions are batched: sessions leave them to the daemon
/// (`Runtime.makeSession(batchingPredictions:)`), and at the end of each poll round the
/// windows of every session whose prediction is due go through the network together, each
/// computing only the frames it added since its last window (`SlidingWindowState`). A stream
/// with several people (`"people": N` in its header, or `Configuration.people`) runs a
/// `PeopleSession`, whose sessions predict in-line, unbatched: batching them would need a
/// sliding state per person and a due list that names people, for streams that are few (a gym
/// mirror, a class) and cost a streaming step per person a frame. Protocol: the client sends a
/// pose-file header line, then frame lines, and reads NDJSON events back; `{"cmd":"stats"}`
/// asks for the server's counters.
///
/// Under pressure: of each connection's unprocessed frames only the newest 15 (half a second)
/// are kept (the rest are counted as dropped); lines longer than `maxLineBytes` get an `error`
/// event and are skipped; a client that does not read its events has them dropped once
/// `maxPendingOutput` waits, so it slows nobody else; idle connections close after
/// `idleSeconds`. A closed or lost connection's session is summarised and handed to the
/// history writer (`Configuration.history`), which stores it off this thread. SIGTERM stops
/// accepting, summarises every open session, waits for the history writer to store what it
/// holds, and returns; SIGHUP reloads the exercise definitions.
///
/// The daemon never prints: what an operator should know (a reload, a history write that
/// failed) goes to `Configuration.notify`, and failed history writes are counted in the stats.
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
    /// Stores each finished session, off the daemon's thread; nil keeps no history.
    public var history: HistoryWriter?
    public var exercisesFolder: String?
    /// People followed in a stream whose header does not say (`"people": N`): 1 follows the
    /// most prominent person, as a stream of one; more follow each on their own
    /// (`PeopleSession`), every event saying whose.
    public var people = 1
    /// Hears what an operator should know; called on the daemon's thread, or the history
    /// writer's.
    public var notify: @Sendable (Notice) -> Void = { _ in }

    public init() {}
  }

  /// What the daemon tells its operator.
  public enum Notice: Sendable, CustomStringConvertible {
    case exercisesReloaded
    case reloadFailed(String)
    case historyWriteFailed(String)

    public var description: String {
      switch self {
      case .exercisesReloaded: "exercise definitions reloaded"
      case .reloadFailed(let reason):
        "reload failed, keeping the previous definitions: \(reason)"
      case .historyWriteFailed(let reason): "workout history: \(reason)"
      }
    }
  }

  let configuration: Configuration
  private var runtime: Runtime
  private var listeners: [FileDescriptor] = []
  private var connections: [FileDescriptor: Connection] = [:]
  private var poller = Poller()
  private var stats = Stats()
  private let started = Date()
  /// The round's due predictions: their sessions, windows (B, T, F) and probabilities (B, K),
  /// reused from round to round (grown, never shrunk).
  private var due: [Connection] = []
  private var dueStates: [SlidingWindowState] = []
  private var windows: [Float] = []
  private var probabilities: [Float] = []

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
    // The plan (measured, or read from its cache) before the first client, not in the first
    // round that has a prediction to make.
    _ = runtime.classifier.plan
  }

  /// Binds the listeners. Throws `SystemError` naming what could not be bound.
  public func listen() throws(SystemError) {
    if let path = configuration.socketPath { listeners.append(try Socket.listenUnix(path: path)) }
    if let port = configuration.port { listeners.append(try Socket.listenTCP(port: port)) }
    guard !listeners.isEmpty else {
      throw SystemError("nothing to listen on: give a socket path or a port", code: EINVAL)
    }
  }

  /// Runs until SIGTERM (or SIGINT): the poll loop. Returns after every session is summarised.
  public func run() {
    SignalFlags.install()
    var roundStarted = 0.0
    while !SignalFlags.terminate {
      if SignalFlags.takeReload() { reloadExercises() }
      // Rounds are spaced by the number of connections, so each gathers more frames (and
      // more due predictions to batch) instead of paying a poll over every socket for a few.
      let wait = roundStarted + roundSpacing(connections: connections.count) - uptime()
      if wait > 0 { Thread.sleep(forTimeInterval: wait) }
      roundStarted = uptime()
      poller.removeAll()
      for listener in listeners { poller.add(listener, read: true, write: false) }
      for (descriptor, connection) in connections {
        poller.add(descriptor, read: !connection.inputEnded, write: !connection.output.isEmpty)
      }
      do { try poller.wait(milliseconds: 100) } catch { break }
      let now = Date().timeIntervalSince1970
      poller.forEachReady { descriptor, readiness in
        if listeners.contains(descriptor) {
          acceptAll(on: descriptor, now: now)
        } else if let connection = connections[descriptor] {
          serve(connection, readiness, now: now)
        }
      }
      predictDue()
      for connection in Array(connections.values)
      where now - connection.lastActivity > configuration.idleSeconds {
        connection.send(
          .error(
            t: nil, line: nil, message: "no line for \(Int(configuration.idleSeconds)) s: closing"))
        close(connection)
      }
    }
    // Drain: stop accepting, summarise every open session.
    for listener in listeners { listener.close() }
    if let path = configuration.socketPath { unlink(path) }
    for connection in Array(connections.values) { close(connection) }
    // What the history writer still holds is written before `run` returns.
    configuration.history?.finish()
  }

  /// The shortest time between the starts of two poll rounds: 4 µs per connection, at most
  /// 2 ms. A round's poll costs about 0.1 µs per socket in the kernel however few frames are
  /// ready, and a profile of 500 clients had the poll at 17% of the server's CPU once the
  /// network was cheap; 2 ms between rounds bounds that to a few percent, adds at most 2 ms to
  /// a frame's latency (a fifteenth of a frame's interval at 30 fps), and a server with a few
  /// connections still wakes for each frame.
  func roundSpacing(connections: Int) -> Double { min(0.002, Double(connections) * 4e-6) }

  private func uptime() -> Double { ProcessInfo.processInfo.systemUptime }

  /// Makes every due prediction in batches: the windows of all sessions waiting for one go
  /// through the network together; resuming a session may make another due (frames held
  /// meanwhile), so this repeats until none is.
  private func predictDue() {
    let classifier = runtime.classifier
    let frameFloats = classifier.config.window * classifier.config.inputFeatures
    let classes = classifier.config.classes
    while true {
      due.removeAll(keepingCapacity: true)
      dueStates.removeAll(keepingCapacity: true)
      for connection in connections.values where connection.session?.predictionDue == true {
        due.append(connection)
        dueStates.append(connection.slidingState)
      }
      guard !due.isEmpty else { return }
      if windows.count < due.count * frameFloats {
        windows = [Float](repeating: 0, count: 2 * due.count * frameFloats)
        probabilities = [Float](repeating: 0, count: 2 * due.count * classes)
      }
      windows.withUnsafeMutableBufferPointer { windows in
        for (index, connection) in due.enumerated() {
          connection.session!.copyWindow(
            into: UnsafeMutableBufferPointer(
              rebasing: windows[index * frameFloats..<(index + 1) * frameFloats]))
        }
      }
      windows.withUnsafeBufferPointer { windows in
        probabilities.withUnsafeMutableBufferPointer {
          classifier.predict(
            windows: UnsafeBufferPointer(rebasing: windows[0..<due.count * frameFloats]),
            count: due.count,
            into: UnsafeMutableBufferPointer(rebasing: $0[0..<due.count * classes]),
            states: dueStates)
        }
      }
      probabilities.withUnsafeBufferPointer { probabilities in
        for (index, connection) in due.enumerated() {
          connection.session!.resume(
            with: UnsafeBufferPointer(
              rebasing: probabilities[index * classes..<(index + 1) * classes])
          ) { connection.send($0) }
        }
      }
    }
  }

  private func serve(_ connection: Connection, _ readiness: Poller.Readiness, now: Double) {
    if readiness.readable || readiness.closed { connection.receive(now: now) }
    if readiness.writable { connection.flush() }
    // A client that has sent everything gets its summary before the socket closes.
    if connection.inputEnded { connection.finish() }
    if connection.closed || (connection.inputEnded && connection.output.isEmpty) {
      close(connection)
    }
  }

  private func acceptAll(on listener: FileDescriptor, now: Double) {
    while let descriptor = Socket.accept(on: listener) {
      guard connections.count < configuration.maxConnections else {
        let refusal = SpotterEvent.error(
          t: nil, line: nil,
          message: "too many connections (\(configuration.maxConnections)); try later")
        descriptor.writeAll(refusal.jsonLine + "\n")
        descriptor.close()
        continue
      }
      stats.connectionsTotal += 1
      connections[descriptor] = Connection(
        descriptor: descriptor, name: "connection \(stats.connectionsTotal)", now: now,
        maxLine: configuration.maxLineBytes, daemon: self)
    }
  }

  private func close(_ connection: Connection) {
    connection.finish()
    connection.flush()
    connection.descriptor.close()
    connections[connection.descriptor] = nil
  }

  /// New sessions get the reloaded definitions; open ones keep theirs. A bad definition keeps
  /// the old set, and the operator hears why.
  private func reloadExercises() {
    do {
      let catalogue = try ExerciseCatalogue.load(adding: configuration.exercisesFolder)
      runtime = Runtime(
        classifier: runtime.classifier, catalogue: catalogue, options: runtime.options)
      configuration.notify(.exercisesReloaded)
    } catch {
      configuration.notify(.reloadFailed("\(error)"))
    }
  }

  // MARK: what connections ask of the server

  var classifier: Classifier { runtime.classifier }

  /// The runtime a new stream's sessions come from: the server's, or with `goals` in place of
  /// its goals when the stream's header names its own.
  func runtime(goals: [Goal]?) -> Runtime {
    guard let goals else { return runtime }
    var options = runtime.options
    options.goals = goals
    return Runtime(classifier: runtime.classifier, catalogue: runtime.catalogue, options: options)
  }

  func countFrame() { stats.frames += 1 }
  func countDropped(_ count: Int) { stats.dropped += count }
  func countError() { stats.errors += 1 }

  /// Hands a finished session to the history writer, which stores it off this thread. A
  /// write that fails is counted (`history_errors`) and reported, never dropped silently.
  func record(_ session: SessionRecord) {
    stats.sessionsFinished += 1
    configuration.history?.submit(session)
  }

  /// The `stats` reply.
  func statsLine() -> String {
    let seconds = max(Date().timeIntervalSince(started), 1e-3)
    let open = connections.values.filter(\.isOpen).count
    let history = configuration.history?.current ?? HistoryWriter.Counters()
    let fields: [(String, String)] = [
      ("type", JSONText.quote("stats")), ("open_sessions", "\(open)"),
      ("connections", "\(connections.count)"), ("connections_total", "\(stats.connectionsTotal)"),
      ("frames", "\(stats.frames)"),
      ("frames_per_second", String(format: "%.1f", Double(stats.frames) / seconds)),
      ("dropped_frames", "\(stats.dropped)"), ("errors", "\(stats.errors)"),
      ("sessions_finished", "\(stats.sessionsFinished)"),
      ("history_written", "\(history.written)"), ("history_queued", "\(history.queued)"),
      ("history_errors", "\(history.failures)"),
    ]
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }
}
