import Foundation
import History
import RepCounting
import Spotter
import Synchronization

/// `spotter serve`: many live streams, one `Session` each, over a Unix socket and/or TCP on
/// loopback.
///
/// One thread runs a poll loop over every socket, non-blocking: a session costs a few
/// microseconds a frame, so one thread keeps up with thousands of 30 fps streams, and no lock
/// is needed. Predictions are batched: sessions leave them to the daemon
/// (`Runtime.makeSession(batchingPredictions:)`), and at the end of each poll round the
/// network states of every session whose prediction is due catch up together, one GEMM a
/// layer over all of them (`PredictionBatch`), so each weight read serves them all; then each
/// makes its prediction (`Session.predictionDue`). A stream with several people
/// (`"people": N` in its header, or `Configuration.people`) runs a session of several people,
/// whose predictions are made in-line: such streams are few (a gym mirror, a class). Protocol: the
/// client sends a pose-file header line, then frame lines, and reads NDJSON events back;
/// `{"cmd":"stats"}` asks for the server's counters.
///
/// The protocol is each connection's `ServedStream`, which knows neither sockets nor the
/// daemon: a `Connection` holds the descriptor, the bytes read and those to write; the daemon
/// reads and writes them, hands each stream its lines (and the history's answers), and does
/// what the stream asks (`drive`): answer its stats, claim a resume, keep a checkpoint, store
/// a record.
///
/// Under pressure: of each connection's unprocessed frames only the newest `backlog` (15, half
/// a second; nil keeps them all) are kept, the rest counted as dropped; lines longer than
/// `maxLineBytes` get an `error` event and are skipped; a client that does not read its events
/// has them dropped once `maxPendingOutput` waits, so it slows nobody else; idle connections
/// close after `idleSeconds`. A closed or lost connection's session is summarised and handed to
/// the history writer (`Configuration.history`), which stores it off this thread. SIGTERM
/// stops accepting, summarises every open session, waits for the history writer to store what
/// it holds, and returns; SIGHUP reloads the exercise definitions.
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
    /// Stores each finished session, off the daemon's thread; nil keeps no history.
    public var history: HistoryWriter?
    public var exercisesFolder: String?
    /// People followed in a stream whose header does not say (`"people": N`): 1 follows the
    /// most prominent person, as a stream of one; more follow each on their own
    /// (a session of several people), every event saying whose.
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
  @exclusivity(unchecked) private var runtime: Runtime
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
  @exclusivity(unchecked) private var connections: [FileDescriptor: Connection] = [:]
  /// The lines of the connection being served, and the frame decoded from one: shared, as
  /// each connection's are handled before the next is served.
  private let lines = WaitingLines()
  /// What every stream is told of the server.
  private let streamSettings: ServedStream.Settings
  /// Made by `listen()`.
  @exclusivity(unchecked) private var poller: Poller!
  @exclusivity(unchecked) private var stats = Stats()
  private let started = Date()
  /// Connections whose session has a prediction due, in the order they became due; and those
  /// with events to write at the end of the round. Each connection is queued once
  /// (`Connection.queuedForPrediction`, `queuedForFlush`), so a round never scans every
  /// connection to find the few with something to do.
  @exclusivity(unchecked) private var dueQueue: [Connection] = []
  @exclusivity(unchecked) private var flushQueue: [Connection] = []
  /// Connections whose streams hold lines read in an earlier round (past their share of
  /// commands, or held while a resume was answered): handled next round, before any new
  /// lines are read from them.
  @exclusivity(unchecked) private var heldQueue: [Connection] = []
  /// The `stats` reply of this round: made once however many clients ask.
  @exclusivity(unchecked) private var statsThisRound: String?
  /// Poll rounds so far: a stream's share of a round (`ServedStream.beginRound`) is one a
  /// round, however often its lines are handled in it.
  @exclusivity(unchecked) private var rounds = 0
  /// When the round began (Unix seconds): a connection that takes its output counts as active.
  @exclusivity(unchecked) private var roundTime = 0.0
  /// The due predictions being made, and their sessions' batch, reused round to round.
  @exclusivity(unchecked) private var dueRound: [Connection] = []
  @exclusivity(unchecked) private var dueBatch = PredictionBatch()
  /// When idle connections were last looked for.
  @exclusivity(unchecked) private var lastIdleCheck = 0.0
  /// Refused connections not yet closed, each with the time it is closed at the latest
  /// (`refuse`).
  @exclusivity(unchecked) private var refused: [FileDescriptor: Double] = [:]
  /// What the history writer's thread tells this one, taken each round.
  private let inbox = Inbox()
  /// Connections by their session's uid (checkpoints stored are told to them), and those
  /// waiting for the history's answer to a resume, by serial.
  @exclusivity(unchecked) private var bySessionID: [String: Connection] = [:]
  @exclusivity(unchecked) private var awaitingClaims: [Int: Connection] = [:]

  /// How long SIGTERM gives the summaries to reach their clients before closing.
  static let drainSeconds = 2.0

  /// The server's counters: those of the connections gone (`closedStreams`) and its own; an
  /// open connection's are its stream's (`ServedStream.tally`), added when asked.
  struct Stats {
    var connectionsTotal = 0
    var closedStreams = ServedStream.Tally()
    /// Connections refused for their token.
    var refusals = 0
    var sessionsFinished = 0
  }

  public init(runtime: Runtime, configuration: Configuration) {
    precondition((configuration.backlog ?? 1) >= 1, "Daemon: a backlog keeps at least 1 frame")
    self.runtime = runtime
    self.configuration = configuration
    streamSettings = ServedStream.Settings(
      backlog: configuration.backlog, maxPendingOutput: configuration.maxPendingOutput,
      maxLineBytes: configuration.maxLineBytes, people: configuration.people,
      keepsHistory: configuration.history != nil)
    // The plan (measured, or read from its cache) before the first client, not in the first
    // round that has a prediction to make.
    _ = runtime.classifier?.plan
    let inbox = inbox
    configuration.history?.whenCheckpointsStored { inbox.post(.stored($0)) }
  }

  /// Messages from the history writer's thread: answers to resumes, checkpoints stored.
  final class Inbox: Sendable {
    enum Message: Sendable {
      case claimed(serial: Int, resumer: String, Result<Checkpoint.Claim, HistoryError>)
      case stored([Checkpoint])
    }
    private let messages = Mutex<[Message]>([])

    func post(_ message: Message) { messages.withLock { $0.append(message) } }

    /// Every message posted since the last call, oldest first.
    func take() -> [Message] {
      messages.withLock { waiting in
        guard !waiting.isEmpty else { return [] }
        defer { waiting.removeAll() }
        return waiting
      }
    }
  }

  /// Hands each message of the history's to its connection.
  private func readInbox() {
    for message in inbox.take() {
      switch message {
      case .claimed(let serial, let resumer, let answer):
        guard let connection = awaitingClaims.removeValue(forKey: serial), isOpen(connection)
        else {
          // Its client left before the answer came: the sets the claim took are stored as
          // they were, under the session that took them.
          if case .success(.resumed(let checkpoint)) = answer {
            record(checkpoint.lastWord, uid: resumer)
          }
          continue
        }
        drive(connection) { $0.claimed(answer, into: &$1) }
        handleLines(of: connection)  // those held while the history was asked
        afterLines(connection)
      case .stored(let checkpoints):
        for checkpoint in checkpoints {
          guard let connection = bySessionID[checkpoint.uid] else { continue }
          drive(connection) { $0.checkpointStored(checkpoint, into: &$1) }
        }
      }
    }
  }

  /// Binds the listeners. Throws `SystemError` naming what could not be bound.
  public func listen() throws(SystemError) {
    poller = try Poller()
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

  /// Runs until SIGTERM (or SIGINT): the poll loop. Returns after every session is summarised.
  public func run() {
    SignalFlags.install()
    var roundStarted = 0.0
    while !SignalFlags.terminate {
      if SignalFlags.takeReload() { reloadExercises() }
      // Rounds are spaced by the number of connections, so each gathers more frames (and more
      // due predictions to make together) instead of paying a poll over every socket for a few.
      let wait = roundStarted + roundSpacing(connections: connections.count) - uptime()
      if wait > 0 { Thread.sleep(forTimeInterval: wait) }
      roundStarted = uptime()
      rounds += 1
      statsThisRound = nil
      do { try poller.wait(milliseconds: heldQueue.isEmpty ? 100 : 0) } catch { break }
      let now = Date().timeIntervalSince1970
      roundTime = now
      poller.forEachReady { descriptor, readiness in
        if descriptor == metricsListener {
          acceptMetrics(now: now)
        } else if metricsRequests[descriptor] != nil {
          serveMetrics(descriptor, now: now)
        } else if listeners.contains(descriptor) {
          acceptSome(on: descriptor, now: now)
        } else if let connection = connections[descriptor] {
          serve(connection, readiness, now: now)
        } else if refused[descriptor] != nil, Self.discardInput(of: descriptor) {
          closeRefused(descriptor)
        }
      }
      readInbox()
      handleHeldLines()
      predictDue()
      flushQueued()
      // Idle connections, looked for once a second: a scan of every connection per round
      // would cost more than the round's work.
      if now - lastIdleCheck >= 1 {
        lastIdleCheck = now
        for (descriptor, deadline) in refused where now >= deadline { closeRefused(descriptor) }
        for (descriptor, request) in metricsRequests where now >= request.deadline {
          closeMetrics(descriptor)
        }
        for connection in Array(connections.values)
        where now - connection.lastActivity > configuration.idleSeconds {
          let message = "no line for \(Int(configuration.idleSeconds)) s: closing"
          drive(connection) { $0.send(.error(t: nil, line: nil, message: message), into: &$1) }
          close(connection)
        }
      }
    }
    // Drain: stop accepting, summarise every open session, give the summaries a moment to
    // reach their clients, then close.
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
    drain()
    for connection in Array(connections.values) { close(connection) }
    for descriptor in Array(refused.keys) { closeRefused(descriptor) }
    poller.close()
    // What the history writer still holds is written before `run` returns.
    configuration.history?.finish()
  }

  /// Finishes every session and writes their last events while the clients take them, for
  /// up to `drainSeconds` (a session waiting for the history's answer to its resume gets it
  /// first, and is finished then).
  private func drain() {
    let deadline = uptime() + Self.drainSeconds
    while !awaitingClaims.isEmpty && uptime() < deadline {
      readInbox()
      usleep(10_000)
    }
    // Lines held past a round's share are handled first: the summaries count them.
    while !heldQueue.isEmpty { handleHeldLines() }
    for connection in connections.values {
      drive(connection) { $0.finish(into: &$1) }
      flush(connection)
    }
    while uptime() < deadline {
      let unsent = connections.values.filter { $0.hasOutput && !$0.closed }
      guard !unsent.isEmpty else { return }
      for connection in unsent {
        poller.set(connection.descriptor, read: false, write: true, adding: false)
      }
      guard (try? poller.wait(milliseconds: 50)) != nil else { return }
      poller.forEachReady { descriptor, readiness in
        if readiness.writable || readiness.closed, let connection = connections[descriptor] {
          flush(connection)
        }
      }
    }
  }

  /// The shortest time between the starts of two poll rounds: 4 µs per connection, at most
  /// 2 ms. Each round has a fixed cost (a wait, the weights brought into cache for its
  /// predictions, a write per connection with events), and frames gathered over 2 ms share it:
  /// more due predictions share the weights, and a connection's lines come in one read. 2 ms
  /// adds at most that to a frame's latency (a fifteenth of a frame's interval at 30 fps), and
  /// a server with a few connections still wakes for each frame.
  func roundSpacing(connections: Int) -> Double { min(0.002, Double(connections) * 4e-6) }

  private func uptime() -> Double { ProcessInfo.processInfo.systemUptime }

  /// Makes every due prediction: the network states of all sessions with one due catch up
  /// together, sharing each weight read, then each session makes its prediction and goes on
  /// with the ticks it held, which may make another due (another pass).
  private func predictDue() {
    while !dueQueue.isEmpty {
      swap(&dueQueue, &dueRound)
      for connection in dueRound where isOpen(connection) {
        if let session = connection.stream.session { dueBatch.add(session) }
      }
      dueBatch.catchUp()
      for connection in dueRound {
        connection.queuedForPrediction = false
        // A connection closed meanwhile made its predictions in `finish`.
        guard isOpen(connection) else { continue }
        drive(connection) { $0.makeDuePrediction(into: &$1) }
        queueIfDue(connection)
      }
      dueRound.removeAll(keepingCapacity: true)
    }
  }

  /// Queues the connection for the round's predictions if its session has one due.
  private func queueIfDue(_ connection: Connection) {
    guard !connection.queuedForPrediction, connection.stream.predictionDue else {
      return
    }
    connection.queuedForPrediction = true
    dueQueue.append(connection)
  }

  /// Writes the events of every connection that has some, one write each.
  private func flushQueued() {
    for connection in flushQueue {
      connection.queuedForFlush = false
      guard isOpen(connection) else { continue }
      flush(connection)
      if connection.closed || (connection.stream.ended && !connection.hasOutput) {
        close(connection)
      } else {
        updateInterest(connection)
      }
    }
    flushQueue.removeAll(keepingCapacity: true)
  }

  /// Handles the lines streams held from earlier rounds, each stream its round's share.
  private func handleHeldLines() {
    guard !heldQueue.isEmpty else { return }
    let held = heldQueue
    heldQueue.removeAll(keepingCapacity: true)
    for connection in held {
      connection.queuedForLines = false
      guard isOpen(connection) else { continue }
      handleLines(of: connection)
      if refused(connection, now: roundTime) { continue }
      afterLines(connection)
    }
  }

  /// Tells the poller what the connection waits for, when that changed: lines until its input
  /// ended, and room to write while events wait.
  private func updateInterest(_ connection: Connection) {
    let interest = (read: connection.wantsInput, write: connection.hasOutput)
    guard interest != connection.interest else { return }
    connection.interest = interest
    poller.set(connection.descriptor, read: interest.read, write: interest.write, adding: false)
  }

  /// Whether the connection is still served (its descriptor may since serve another).
  private func isOpen(_ connection: Connection) -> Bool {
    connections[connection.descriptor] === connection
  }

  private func serve(_ connection: Connection, _ readiness: Poller.Readiness, now: Double) {
    if readiness.readable || readiness.closed, connection.wantsInput {
      connection.receive(into: lines, now: now)
      handleLines(of: connection)
    }
    if refused(connection, now: now) { return }
    if readiness.writable { flush(connection) }
    afterLines(connection)
  }

  /// Whether the connection's stream refused its client (a line without the token): then the
  /// refusal, and nothing else, goes out before the connection ends.
  private func refused(_ connection: Connection, now: Double) -> Bool {
    guard let refusal = connection.stream.refusal else { return false }
    stats.refusals += 1
    stats.closedStreams.add(connection.stream.tally)
    poller.remove(connection.descriptor)
    connections[connection.descriptor] = nil
    refuse(connection.descriptor, message: refusal, now: now)
    return true
  }

  /// After a connection's lines were handled or its events written: a client that has sent
  /// everything (and has no lines held) gets its summary; a connection that is done closes,
  /// any other waits for what it waits for.
  private func afterLines(_ connection: Connection) {
    let stream = connection.stream
    if connection.inputEnded && !stream.holdsLines {
      drive(connection) { $0.finish(into: &$1) }
      flush(connection)
    }
    let done =
      stream.ended || (connection.inputEnded && !stream.awaitingClaim && !stream.holdsLines)
    if connection.closed || (done && !connection.hasOutput) {
      close(connection)
    } else {
      updateInterest(connection)
      queueIfDue(connection)
    }
  }

  /// At most this many new connections a round: clients connecting faster than the loop accepts
  /// them (a reconnect storm) must not keep it from serving the connections it has. The
  /// listener stays readable, so the rest are accepted in the rounds that follow.
  static let acceptsPerRound = 64

  private func acceptSome(on listener: FileDescriptor, now: Double) {
    for _ in 0..<Self.acceptsPerRound {
      guard let descriptor = Socket.accept(on: listener) else { return }
      guard connections.count < configuration.maxConnections else {
        refuse(
          descriptor,
          message: "too many connections (\(configuration.maxConnections)); try later", now: now)
        continue
      }
      stats.connectionsTotal += 1
      poller.set(descriptor, read: true, write: false, adding: true)
      let stream = ServedStream(
        name: "connection \(stats.connectionsTotal)", settings: streamSettings,
        token: listener == tokenListener ? configuration.token : nil)
      connections[descriptor] = Connection(
        descriptor: descriptor, serial: stats.connectionsTotal, now: now, stream: stream)
    }
  }

  /// Refused connections kept open at once, each for at most `refusalSeconds`: enough for a
  /// burst of clients over the limit, and a bound on the descriptors a storm of them holds.
  static let refusalsKept = 64
  static let refusalSeconds = 1.0

  /// Tells a client it is refused (over `maxConnections`, or without the token), and ends the
  /// connection so that it reads the refusal and then the end of the stream. Closing a socket with the client's lines unread
  /// resets the connection instead: the client's read fails (ECONNRESET) where it should end,
  /// and a client that sent its header before it was accepted always has lines unread. So the
  /// refusal is followed by a shutdown of the sending side, and what the client sends is read
  /// and thrown away until it hangs up, for at most `refusalSeconds` (beyond `refusalsKept`,
  /// only what is there now), never waiting on it.
  private func refuse(_ descriptor: FileDescriptor, message: String, now: Double) {
    let refusal = SpotterEvent.error(t: nil, line: nil, message: message)
    descriptor.writeAll(refusal.jsonLine + "\n")
    descriptor.shutdownWriting()
    guard !Self.discardInput(of: descriptor), refused.count < Self.refusalsKept else {
      descriptor.close()
      return
    }
    refused[descriptor] = now + Self.refusalSeconds
    poller.set(descriptor, read: true, write: false, adding: true)
  }

  private func closeRefused(_ descriptor: FileDescriptor) {
    poller.remove(descriptor)
    descriptor.close()
    refused[descriptor] = nil
  }

  /// Reads and throws away what a refused client sent, up to 64 KiB: true once it has hung up
  /// (or the socket failed).
  private static func discardInput(of descriptor: FileDescriptor) -> Bool {
    withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { buffer in
      for _ in 0..<16 {
        switch try? descriptor.read(into: buffer) {
        case .bytes?: continue
        case .wouldBlock?: return false
        case .end?, nil: return true
        }
      }
      return false
    }
  }

  private func close(_ connection: Connection) {
    drive(connection) { $0.finish(into: &$1) }
    flush(connection)
    connection.stream.delivered(connection.bytesWritten, closing: true)
    applyRequests(of: connection)
    stats.closedStreams.add(connection.stream.tally)
    poller.remove(connection.descriptor)
    connection.descriptor.close()
    connections[connection.descriptor] = nil
    if let uid = connection.stream.uid, bySessionID[uid] === connection { bySessionID[uid] = nil }
    awaitingClaims[connection.serial] = nil
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

  // MARK: what streams ask of the server

  /// Calls into a connection's stream, then does what it asked (`applyRequests`), and queues
  /// what it sent for the end of the round: every call into a stream comes through here, so
  /// no stream needs the daemon.
  private func drive(_ connection: Connection, _ call: (ServedStream, inout [UInt8]) -> Void) {
    let stream = connection.stream
    let appended = stream.bytesAppended
    call(stream, &connection.output)
    applyRequests(of: connection)
    if stream.bytesAppended != appended { flushAtEndOfRound(connection) }
  }

  /// Has the connection's stream handle the lines waiting (and those it held while a resume
  /// waited for the history), answering each stats command as it comes; then lets their
  /// bytes go.
  private func handleLines(of connection: Connection) {
    connection.stream.beginRound(rounds)
    var handled = false
    while !handled {
      drive(connection) { handled = $0.receive(lines, runtime: runtime, into: &$1) }
    }
    lines.clear()
    connection.releaseLines()
    if connection.stream.holdsLines && !connection.queuedForLines {
      connection.queuedForLines = true
      heldQueue.append(connection)
    }
  }

  /// Does what the connection's stream asked, in the order it asked.
  private func applyRequests(of connection: Connection) {
    let stream = connection.stream
    while let request = stream.nextRequest() {
      switch request {
      case .stats:
        let line = statsThisRound ?? statsLine()
        statsThisRound = line
        stream.answer(stats: line, into: &connection.output)
      case .claim(let id, let resumer): claim(id, resumer: resumer, for: connection)
      case .live(let uid): bySessionID[uid] = connection
      case .checkpoint(let checkpoint):
        // Checkpoints stored are told to the stream that took them.
        bySessionID[checkpoint.uid] = connection
        configuration.history?.checkpoint(checkpoint)
      case .record(let session, let uid): record(session, uid: uid)
      }
    }
  }

  /// Writes the connection's events that the socket takes now; records whose summaries are
  /// now written go to the history.
  private func flush(_ connection: Connection) {
    let written = connection.bytesWritten
    connection.flush()
    if connection.bytesWritten > written { connection.lastActivity = roundTime }
    connection.stream.delivered(connection.bytesWritten)
    applyRequests(of: connection)
  }

  /// The connection has events to write: at the end of this round, with the rest.
  private func flushAtEndOfRound(_ connection: Connection) {
    connection.hasOutput = true
    guard !connection.queuedForFlush else { return }
    connection.queuedForFlush = true
    flushQueue.append(connection)
  }

  /// Hands a finished session to the history writer, which stores it off this thread. A
  /// write that fails is counted (`history_errors`) and reported, never dropped silently.
  private func record(_ session: SessionRecord, uid: String) {
    stats.sessionsFinished += 1
    configuration.history?.submit(session, uid: uid)
  }

  /// Resumes session `id` for the connection, whose own session is `resumer`. A session live
  /// on another connection of this daemon (its client reconnected before the old connection
  /// was seen to fail) moves here whole (`ServedStream.handOver`), and the old connection is
  /// told and closed; any other is asked of the history, whose answer comes in a later round
  /// (`readInbox`).
  private func claim(_ id: String, resumer: String, for connection: Connection) {
    if let owner = bySessionID[id], owner !== connection, isOpen(owner) {
      var live: ServedStream.LiveSession?
      drive(owner) { live = $0.handOver(into: &$1) }
      if let live {
        connection.stream.takeOver(live, into: &connection.output)
        bySessionID[live.uid] = connection
        close(owner)
        return
      }
    }
    guard let history = configuration.history else {
      connection.stream.claimed(nil, into: &connection.output)
      return
    }
    awaitingClaims[connection.serial] = connection
    let (inbox, serial) = (inbox, connection.serial)
    history.claim(id, for: resumer) {
      inbox.post(.claimed(serial: serial, resumer: resumer, $0))
    }
  }

  /// The server's counters: those of the connections gone and its own, with those of the
  /// open ones.
  private func counters() -> MetricsEndpoint.Counters {
    var streams = stats.closedStreams
    var open = 0
    for connection in connections.values {
      streams.add(connection.stream.tally)
      if connection.stream.isOpen { open += 1 }
    }
    let history = configuration.history?.current ?? HistoryWriter.Counters()
    return MetricsEndpoint.Counters(
      openSessions: open, connections: connections.count,
      connectionsTotal: stats.connectionsTotal, frames: streams.frames,
      droppedFrames: streams.droppedFrames, errors: streams.errors + stats.refusals,
      sessionsFinished: stats.sessionsFinished, historyWritten: history.written,
      historyQueued: history.queued, historySpooled: history.spooled,
      historyErrors: history.failures, uptimeSeconds: Date().timeIntervalSince(started))
  }

  /// The `stats` reply.
  private func statsLine() -> String {
    let current = counters()
    let seconds = max(current.uptimeSeconds, 1e-3)
    let fields: [(String, String)] = [
      ("type", JSONText.quote("stats")), ("open_sessions", "\(current.openSessions)"),
      ("connections", "\(current.connections)"),
      ("connections_total", "\(current.connectionsTotal)"), ("frames", "\(current.frames)"),
      ("frames_per_second", String(format: "%.1f", Double(current.frames) / seconds)),
      ("dropped_frames", "\(current.droppedFrames)"), ("errors", "\(current.errors)"),
      ("sessions_finished", "\(current.sessionsFinished)"),
      ("history_written", "\(current.historyWritten)"),
      ("history_queued", "\(current.historyQueued)"),
      ("history_spooled", "\(current.historySpooled)"),
      ("history_errors", "\(current.historyErrors)"),
    ]
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
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
      to: request.bytes, token: configuration.token, counters: counters)
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
