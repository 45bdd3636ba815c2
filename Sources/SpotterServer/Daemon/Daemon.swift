import Foundation
import History
import RepCounting
import Spotter
import Synchronization

/// `spotter serve`: many live streams, one `Session` each, over a Unix socket and/or TCP.
///
/// `Configuration.workers` poll loops (`Worker`), each on a thread of its own, serve the
/// connections; this thread accepts them and gives each to the worker with the fewest, serves
/// the metrics, and hears the signals. The workers share the model, the exercise definitions,
/// the history writer and its state folder; each has its own connections, its own batch of
/// predictions and its own counters, which it publishes for the others (`Workers`), so a
/// frame's path takes no lock. A client that resumes a session live on another worker is
/// handed the session from there. Protocol: the client sends a pose-file header line, then
/// frame lines, and reads NDJSON events back; `{"cmd":"stats"}` asks for the server's counters,
/// summed over the workers.
///
/// The protocol is each connection's `ServedStream`, which knows neither sockets nor the
/// daemon: a `Connection` holds the descriptor, the bytes read and those to write; its worker
/// reads and writes them, hands the stream its lines (and the history's answers), and does
/// what the stream asks.
///
/// Under pressure: of each connection's unprocessed frames only the newest `backlog` (15, half
/// a second; nil keeps them all) are kept, the rest counted as dropped; lines longer than
/// `maxLineBytes` get an `error` event and are skipped; a client that does not read its events
/// has them dropped once `maxPendingOutput` waits, so it slows nobody else; idle connections
/// close after `idleSeconds`. A closed or lost connection's session is summarised and handed to
/// the history writer (`Configuration.history`), which stores it off the workers' threads.
/// SIGTERM stops accepting, has every worker summarise its open sessions, waits for the
/// history writer to store what it holds, and returns; SIGHUP reloads the exercise definitions
/// for every worker.
///
/// The daemon never prints: what an operator should know (a reload, a history write that
/// failed) goes to `Configuration.notify`, and failed history writes are counted in the stats.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
public final class Daemon {
  public struct Configuration: Sendable {
    public var socketPath: String?
    /// Where to listen for TCP. One that is not loopback needs `token`.
    public var address: ListenAddress?
    /// The key every TCP client sends in its header (`"token": "…"`), loopback included (any
    /// user of the machine can reach a loopback port), compared in constant time; its header
    /// is refused without it. Required for an address that is not loopback; nil leaves
    /// loopback open. Clients of the Unix socket, which its mode keeps to this user, send none.
    public var token: [UInt8]?
    /// Where to serve the counters in Prometheus' text format (`MetricsEndpoint`), asking for
    /// `token` as a bearer token when there is one. One that is not loopback needs `token`.
    public var metricsAddress: ListenAddress?
    /// Poll loops serving the connections, each on a thread of its own: one keeps a core
    /// busy, so one a core the process may use.
    public var workers = 1
    /// Connections at once, over every worker.
    public var maxConnections = 1024
    /// 64 KiB: a frame of 20 people in BODY_25 is under 40 KB.
    public var maxLineBytes = 64 * 1024
    /// Seconds without a line before a connection is closed.
    public var idleSeconds = 60.0
    /// Frames a connection may have waiting when it is served: the older ones are late and
    /// dropped, so a server that fell behind catches up with live streams. Nil keeps every
    /// frame (recorded streams, and tests whose results must not depend on the machine's load).
    /// At least 1 when given.
    public var backlog: Int? = 15
    /// Events waiting for a client beyond this many bytes are dropped (a slow reader).
    public var maxPendingOutput = 1 << 20
    /// Stores each finished session, off the workers' threads; nil keeps no history.
    public var history: HistoryWriter?
    public var exercisesFolder: String?
    /// People followed in a stream whose header does not say (`"people": N`): 1 follows the
    /// most prominent person, as a stream of one; more follow each on their own
    /// (a session of several people), every event saying whose.
    public var people = 1
    /// Hears what an operator should know; called on the daemon's accepting thread, or the
    /// history writer's.
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
  @exclusivity(unchecked) private var runtime: Runtime
  private let workers: Workers
  /// Made by `listen()`, each run by a thread of its own in `run()`.
  @exclusivity(unchecked) private var loops: [Worker] = []
  @exclusivity(unchecked) private var listeners: [FileDescriptor] = []
  /// The Unix socket this daemon made: removed at exit only if it is still the one at its path.
  @exclusivity(unchecked) private var unixSocket: UnixListener?
  /// The listener whose clients must send the token (TCP, when there is a token).
  @exclusivity(unchecked) private var tokenListener: FileDescriptor?
  /// The metrics listener, and its connections until each has sent its request (its bytes so
  /// far, and when it is closed at the latest).
  @exclusivity(unchecked) private var metricsListener: FileDescriptor?
  @exclusivity(unchecked) private var metricsRequests:
    [FileDescriptor: (bytes: [UInt8], deadline: Double)] = [:]
  /// Made by `listen()`.
  @exclusivity(unchecked) private var poller: Poller!
  /// Clients refused here, over `maxConnections`.
  @exclusivity(unchecked) private var refusals: Refusals!

  public init(runtime: Runtime, configuration: Configuration) throws(SystemError) {
    precondition((configuration.backlog ?? 1) >= 1, "Daemon: a backlog keeps at least 1 frame")
    precondition(configuration.workers >= 1, "Daemon: at least 1 worker")
    self.runtime = runtime
    self.configuration = configuration
    workers = try Workers(count: configuration.workers, history: configuration.history)
    // The plan (measured, or read from its cache) before the first client, not in the first
    // round that has a prediction to make.
    _ = runtime.classifier?.plan
    let slots = workers.slots
    configuration.history?.whenCheckpointsStored { stored in
      for slot in slots { slot.mailbox.post(.stored(stored), wake: false) }
    }
  }

  /// Binds the listeners and makes the workers. Throws `SystemError` naming what could not be
  /// bound.
  public func listen() throws(SystemError) {
    poller = try Poller()
    refusals = Refusals(poller: poller)
    if let path = configuration.socketPath {
      let unix = try Socket.listenUnixOwned(path: path)
      unixSocket = unix
      listeners.append(unix.descriptor)
    }
    if let address = configuration.address {
      let listener = try listenTCP(address, "listening on", "stream into it")
      listeners.append(listener)
      if configuration.token != nil { tokenListener = listener }
    }
    if let address = configuration.metricsAddress {
      let listener = try listenTCP(address, "serving metrics on", "read them")
      metricsListener = listener
      poller.set(listener, read: true, write: false, adding: true)
    }
    guard !listeners.isEmpty else {
      throw SystemError("nothing to listen on: give a socket path or a port", code: EINVAL)
    }
    for listener in listeners { poller.set(listener, read: true, write: false, adding: true) }
    for index in 0..<configuration.workers {
      loops.append(
        try Worker(
          index: index, workers: workers, configuration: configuration, runtime: runtime))
    }
  }

  /// A TCP listener on `address`: one beyond loopback only with a token, as anyone who can
  /// reach it could use what the daemon serves there.
  private func listenTCP(
    _ address: ListenAddress, _ doing: String, _ could: String
  ) throws(SystemError) -> FileDescriptor {
    guard address.isLoopback || configuration.token?.isEmpty == false else {
      throw SystemError(
        "\(doing) \(address) needs a token: anyone who can reach it could \(could)", code: EINVAL)
    }
    return try Socket.listenTCP(address)
  }

  /// Runs until SIGTERM (or SIGINT): the workers serve, this thread accepts. Returns after
  /// every worker has summarised its sessions and the history writer has stored them.
  public func run() {
    SignalFlags.install()
    let finished = DispatchGroup()
    for made in loops {
      // Made here, touched only by its thread from now on.
      nonisolated(unsafe) let worker = made
      finished.enter()
      Thread.detachNewThread {
        ThreadName.set("worker \(worker.index)")
        worker.run()
        finished.leave()
      }
    }
    var lastIdleCheck = 0.0
    var workersBusy = false
    while !SignalFlags.terminate {
      if SignalFlags.takeReload() { reloadExercises() }
      // Connections wait on the listener while every worker has enough handed to it: polled
      // again in a millisecond, as the listener stays ready.
      if workersBusy { usleep(1000) }
      workersBusy = false
      do { try poller.wait(milliseconds: 100) } catch { break }
      let now = Date().timeIntervalSince1970
      poller.forEachReady { descriptor, _ in
        if descriptor == metricsListener {
          acceptMetrics(now: now)
        } else if metricsRequests[descriptor] != nil {
          serveMetrics(descriptor, now: now)
        } else if listeners.contains(descriptor) {
          if !acceptSome(on: descriptor, now: now) { workersBusy = true }
        } else {
          _ = refusals.serve(descriptor)
        }
      }
      if now - lastIdleCheck >= 1 {
        lastIdleCheck = now
        refusals.closeExpired(now: now)
        for (descriptor, request) in metricsRequests where now >= request.deadline {
          closeMetrics(descriptor)
        }
      }
    }
    // Drain: stop accepting, have every worker summarise its sessions and give the summaries
    // a moment to reach their clients, then close.
    // While its listener is open, the socket's inode is not another file's: checked first.
    if let path = configuration.socketPath, let unix = unixSocket {
      Socket.removeUnix(path: path, made: unix.file)
    }
    for listener in listeners { listener.close() }
    for descriptor in Array(metricsRequests.keys) { closeMetrics(descriptor) }
    if let metricsListener {
      poller.remove(metricsListener)
      metricsListener.close()
    }
    workers.stop()
    finished.wait()
    refusals.closeExpired(now: nil)
    poller.close()
    // What the history writer still holds is written before `run` returns.
    configuration.history?.finish()
  }

  /// At most this many new connections a round: clients connecting faster than they are
  /// accepted (a reconnect storm) must not keep this thread from the signals and the metrics.
  /// The listener stays readable, so the rest are accepted in the rounds that follow.
  static let acceptsPerRound = 64

  /// Accepts waiting connections and gives each to the worker with the fewest, while a worker
  /// may be handed more (`Workers.handedAtMost`). Returns false when none may: the rest wait.
  private func acceptSome(on listener: FileDescriptor, now: Double) -> Bool {
    for _ in 0..<Self.acceptsPerRound {
      guard let slot = workers.leastLoaded() else { return false }
      guard let descriptor = Socket.accept(on: listener) else { return true }
      guard workers.connectionCount < configuration.maxConnections else {
        refusals.refuse(
          descriptor,
          message: "too many connections (\(configuration.maxConnections)); try later", now: now)
        workers.refusals.add(1, ordering: .relaxed)
        continue
      }
      let serial = workers.connectionsTotal.add(1, ordering: .relaxed).newValue
      slot.connections.add(1, ordering: .relaxed)
      slot.handed.add(1, ordering: .relaxed)
      slot.mailbox.post(
        .connection(descriptor, serial: serial, needsToken: listener == tokenListener))
    }
    return true
  }

  /// New sessions get the reloaded definitions; open ones keep theirs. A bad definition keeps
  /// the old set, and the operator hears why.
  private func reloadExercises() {
    do {
      let catalogue = try ExerciseCatalogue.load(adding: configuration.exercisesFolder)
      runtime = Runtime(
        classifier: runtime.classifier, catalogue: catalogue, options: runtime.options)
      for slot in workers.slots { slot.mailbox.post(.runtime(runtime)) }
      configuration.notify(.exercisesReloaded)
    } catch {
      configuration.notify(.reloadFailed("\(error)"))
    }
  }

  // MARK: metrics

  private func acceptMetrics(now: Double) {
    guard let metricsListener else { return }
    for _ in 0..<Self.acceptsPerRound {
      guard let descriptor = Socket.accept(on: metricsListener) else { return }
      guard metricsRequests.count < MetricsEndpoint.connectionsKept else {
        descriptor.close()
        continue
      }
      metricsRequests[descriptor] = ([], now + MetricsEndpoint.requestSeconds)
      poller.set(descriptor, read: true, write: false, adding: true)
    }
  }

  /// Reads what a metrics connection sent; once its request is whole, replies and closes. One
  /// that ends, fails, or sends more than a request's head is closed.
  private func serveMetrics(_ descriptor: FileDescriptor, now: Double) {
    guard var request = metricsRequests[descriptor] else { return }
    var ended = false
    withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { buffer in
      while request.bytes.count <= MetricsEndpoint.maxRequestBytes {
        switch try? descriptor.read(into: buffer) {
        case .bytes(let count)?: request.bytes += buffer[..<count]
        case .wouldBlock?: return
        case .end?, nil:
          ended = true
          return
        }
      }
    }
    if let reply = MetricsEndpoint.reply(
      to: request.bytes, token: configuration.token, counters: { workers.counters() })
    {
      descriptor.writeAll(reply)
      closeMetrics(descriptor)
    } else if ended || request.bytes.count > MetricsEndpoint.maxRequestBytes {
      closeMetrics(descriptor)
    } else {
      metricsRequests[descriptor] = request
    }
  }

  private func closeMetrics(_ descriptor: FileDescriptor) {
    poller.remove(descriptor)
    descriptor.close()
    metricsRequests[descriptor] = nil
  }
}
