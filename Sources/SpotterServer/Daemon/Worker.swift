import Foundation
import History
import Spotter

/// One of the daemon's poll loops: the connections the daemon gave it, each a `Connection`
/// whose `ServedStream` it drives, on a thread of its own. Everything here is the worker's
/// alone; what the threads share is in `Workers`.
///
/// A session costs a few microseconds a frame, so one loop keeps up with thousands of 30 fps
/// streams. Predictions are batched: sessions leave them to the worker
/// (`Runtime.makeSession(batchingPredictions:)`), and at the end of each poll round the
/// network states of every session whose prediction is due catch up together, one GEMM a
/// layer over all of them (`PredictionBatch`), so each weight read serves them all; then each
/// makes its prediction (`Session.predictionDue`). A stream with several people runs a session
/// of several people, whose predictions are made in-line: such streams are few.
///
/// The worker reads and writes each connection's bytes, hands its stream the lines (and the
/// history's answers), and does what the stream asks (`drive`): answer its stats, claim a
/// resume, keep a checkpoint, store a record.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class Worker {
  let index: Int
  private let workers: Workers
  private let slot: Workers.Slot
  private let configuration: Daemon.Configuration
  /// What every stream is told of the server.
  private let streamSettings: ServedStream.Settings
  @exclusivity(unchecked) private var runtime: Runtime
  private let poller: Poller
  @exclusivity(unchecked) private var connections: [FileDescriptor: Connection] = [:]
  /// The lines of the connection being served, and the frame decoded from one: shared, as
  /// each connection's are handled before the next is served.
  private let lines = WaitingLines()
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
  /// When idle connections were last looked for, and the counters last published.
  @exclusivity(unchecked) private var lastIdleCheck = 0.0
  @exclusivity(unchecked) private var lastPublished = 0.0
  /// A connection came or went since the counters were last published.
  @exclusivity(unchecked) private var connectionsChanged = false
  @exclusivity(unchecked) private var refusals: Refusals
  /// Connections by their session's uid (checkpoints stored are told to them), and those
  /// waiting for an answer to a resume (the history's, or another worker's), by serial.
  @exclusivity(unchecked) private var bySessionID: [String: Connection] = [:]
  @exclusivity(unchecked) private var awaitingClaims: [Int: Connection] = [:]
  /// The counters of the connections gone, and the worker's own.
  @exclusivity(unchecked) private var closedStreams = ServedStream.Tally()
  @exclusivity(unchecked) private var refusedForToken = 0
  @exclusivity(unchecked) private var sessionsFinished = 0

  /// How long SIGTERM gives the summaries to reach their clients before closing.
  static let drainSeconds = 2.0
  /// The longest the counters another thread reads of this worker (a `stats` asked on another
  /// worker, the metrics) lag behind: they are published this often, and when a connection
  /// comes or goes.
  static let publishSeconds = 0.01

  init(index: Int, workers: Workers, configuration: Daemon.Configuration, runtime: Runtime)
    throws(SystemError)
  {
    self.index = index
    self.workers = workers
    slot = workers.slots[index]
    self.configuration = configuration
    self.runtime = runtime
    streamSettings = ServedStream.Settings(
      backlog: configuration.backlog, maxPendingOutput: configuration.maxPendingOutput,
      maxLineBytes: configuration.maxLineBytes, people: configuration.people,
      keepsHistory: configuration.history != nil)
    poller = try Poller()
    refusals = Refusals(poller: poller)
    poller.set(slot.mailbox.wakeReader, read: true, write: false, adding: true)
  }

  /// Runs until the daemon stops, then finishes every session (`drain`) and returns.
  func run() {
    var roundStarted = 0.0
    while !workers.stopping.load(ordering: .relaxed) {
      // Rounds are spaced by the number of connections, so each gathers more frames (and more
      // due predictions to make together) instead of paying a poll over every socket for a few.
      let wait = roundStarted + Self.roundSpacing(connections: connections.count) - uptime()
      if wait > 0 { Thread.sleep(forTimeInterval: wait) }
      roundStarted = uptime()
      rounds += 1
      statsThisRound = nil
      do { try poller.wait(milliseconds: heldQueue.isEmpty ? 100 : 0) } catch { break }
      let now = Date().timeIntervalSince1970
      roundTime = now
      poller.forEachReady { descriptor, readiness in
        if let connection = connections[descriptor] {
          serve(connection, readiness, now: now)
        } else if descriptor == slot.mailbox.wakeReader {
          slot.mailbox.drainWakes()
        } else {
          _ = refusals.serve(descriptor)
        }
      }
      readMailbox(now: now)
      handleHeldLines()
      predictDue()
      flushQueued()
      // Idle connections, looked for once a second: a scan of every connection per round
      // would cost more than the round's work.
      if now - lastIdleCheck >= 1 {
        lastIdleCheck = now
        refusals.closeExpired(now: now)
        for connection in Array(connections.values)
        where now - connection.lastActivity > configuration.idleSeconds {
          let message = "no line for \(Int(configuration.idleSeconds)) s: closing"
          drive(connection) { $0.send(.error(t: nil, line: nil, message: message), into: &$1) }
          close(connection)
        }
      }
      if connectionsChanged || now - lastPublished >= Self.publishSeconds { publish(now: now) }
    }
    drain()
    for connection in Array(connections.values) { close(connection) }
    refusals.closeExpired(now: nil)
    publish(now: Date().timeIntervalSince1970)
    poller.close()
  }

  /// The shortest time between the starts of two poll rounds: 4 µs per connection, at most
  /// 2 ms. Each round has a fixed cost (a wait, the weights brought into cache for its
  /// predictions, a write per connection with events), and frames gathered over 2 ms share it:
  /// more due predictions share the weights, and a connection's lines come in one read. 2 ms
  /// adds at most that to a frame's latency (a fifteenth of a frame's interval at 30 fps), and
  /// a server with a few connections still wakes for each frame.
  static func roundSpacing(connections: Int) -> Double { min(0.002, Double(connections) * 4e-6) }

  private func uptime() -> Double { ProcessInfo.processInfo.systemUptime }

  // MARK: counters

  /// The worker's counters now: those of its connections gone and open, and its own.
  private func tally() -> Workers.Tally {
    var tally = Workers.Tally(
      connections: connections.count, streams: closedStreams, refusals: refusedForToken,
      sessionsFinished: sessionsFinished)
    for connection in connections.values {
      tally.streams.add(connection.stream.tally)
      if connection.stream.isOpen { tally.openSessions += 1 }
    }
    return tally
  }

  /// Leaves the counters where the other threads read them.
  private func publish(now: Double) {
    let tally = tally()
    slot.published.withLock { $0 = tally }
    (lastPublished, connectionsChanged) = (now, false)
  }

  /// The `stats` reply: this worker's counters as they are, the others' as last published.
  private func statsLine() -> String {
    let current = workers.counters(live: tally(), of: index)
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
      (
        "worker_connections",
        "[" + current.workerConnections.map(String.init).joined(separator: ",") + "]"
      ),
    ]
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }

  // MARK: messages

  /// Does what the other threads asked: new connections, the history's answers, hand-overs of
  /// live sessions between workers, a reloaded runtime.
  private func readMailbox(now: Double) {
    for message in slot.mailbox.take() {
      switch message {
      case .connection(let descriptor, let serial, let needsToken):
        slot.handed.wrappingSubtract(1, ordering: .relaxed)
        poller.set(descriptor, read: true, write: false, adding: true)
        let stream = ServedStream(
          name: "connection \(serial)", settings: streamSettings,
          token: needsToken ? configuration.token : nil)
        connections[descriptor] = Connection(
          descriptor: descriptor, serial: serial, now: now, stream: stream)
        connectionsChanged = true
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
      case .handOver(let id, let to, let serial, let resumer):
        let live = handOver(id)
        workers.slots[to].mailbox.post(
          .handedOver(id: id, serial: serial, resumer: resumer, live))
      case .handedOver(let id, let serial, let resumer, let live):
        guard let connection = awaitingClaims.removeValue(forKey: serial), isOpen(connection)
        else {
          if let live { store(live, serial: serial) }
          continue
        }
        if let live {
          connection.stream.takeOver(live, into: &connection.output)
          flushAtEndOfRound(connection)
          own(live.uid, connection)
          handleLines(of: connection)
          afterLines(connection)
        } else {
          askHistory(id, resumer: resumer, for: connection)
        }
      case .runtime(let reloaded):
        // New sessions get the reloaded definitions; open ones keep theirs.
        runtime = reloaded
      }
    }
  }

  // MARK: the loop's parts

  /// Finishes every session and writes their last events while the clients take them, for
  /// up to `drainSeconds` (a session waiting for an answer to its resume gets it first, and
  /// is finished then).
  private func drain() {
    let deadline = uptime() + Self.drainSeconds
    readMailbox(now: Date().timeIntervalSince1970)
    while !awaitingClaims.isEmpty && uptime() < deadline {
      usleep(10_000)
      readMailbox(now: Date().timeIntervalSince1970)
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
    refusedForToken += 1
    closedStreams.add(connection.stream.tally)
    poller.remove(connection.descriptor)
    forget(connection)
    refusals.refuse(connection.descriptor, message: refusal, now: now)
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

  private func close(_ connection: Connection) {
    drive(connection) { $0.finish(into: &$1) }
    flush(connection)
    connection.stream.delivered(connection.bytesWritten, closing: true)
    applyRequests(of: connection)
    closedStreams.add(connection.stream.tally)
    poller.remove(connection.descriptor)
    connection.descriptor.close()
    forget(connection)
  }

  /// The connection is no longer this worker's.
  private func forget(_ connection: Connection) {
    connections[connection.descriptor] = nil
    slot.connections.wrappingSubtract(1, ordering: .relaxed)
    connectionsChanged = true
    if let uid = connection.stream.uid, bySessionID[uid] === connection {
      bySessionID[uid] = nil
      workers.disown(uid, worker: index)
    }
    awaitingClaims[connection.serial] = nil
  }

  /// Session `uid` is live on `connection`, here: checkpoints stored are told to it, and a
  /// resume on another worker asks this one for it.
  private func own(_ uid: String, _ connection: Connection) {
    guard bySessionID[uid] !== connection else { return }
    bySessionID[uid] = connection
    workers.own(uid, worker: index)
  }

  // MARK: what streams ask of the server

  /// Calls into a connection's stream, then does what it asked (`applyRequests`), and queues
  /// what it sent for the end of the round: every call into a stream comes through here, so
  /// no stream needs the worker.
  private func drive(_ connection: Connection, _ call: (ServedStream, inout [UInt8]) -> Void) {
    let stream = connection.stream
    let appended = stream.bytesAppended
    call(stream, &connection.output)
    applyRequests(of: connection)
    if stream.bytesAppended != appended { flushAtEndOfRound(connection) }
  }

  /// Has the connection's stream handle the lines waiting (and those it held while a resume
  /// waited for an answer), answering each stats command as it comes; then lets their bytes
  /// go.
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
      case .live(let uid): own(uid, connection)
      case .checkpoint(let checkpoint):
        // Checkpoints stored are told to the stream that took them.
        own(checkpoint.uid, connection)
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
    sessionsFinished += 1
    configuration.history?.submit(session, uid: uid)
  }

  // MARK: resuming

  /// Resumes session `id` for the connection, whose own session is `resumer`. A session live
  /// on another connection (its client reconnected before the old connection was seen to
  /// fail) moves to this one whole (`ServedStream.handOver`), and the old connection is told
  /// and closed: at once when it is this worker's, else in a later round, when its worker
  /// answers (`readMailbox`). Any other session is asked of the history, whose answer also
  /// comes in a later round.
  private func claim(_ id: String, resumer: String, for connection: Connection) {
    if let owner = bySessionID[id], owner !== connection {
      if let live = handOver(id) {
        connection.stream.takeOver(live, into: &connection.output)
        own(live.uid, connection)
        return
      }
    } else if let other = workers.owner(of: id), other != index {
      awaitingClaims[connection.serial] = connection
      workers.slots[other].mailbox.post(
        .handOver(id: id, to: index, serial: connection.serial, resumer: resumer))
      return
    }
    askHistory(id, resumer: resumer, for: connection)
  }

  /// Gives up live session `id`, if it is live here, closing the connection it was on.
  private func handOver(_ id: String) -> ServedStream.LiveSession? {
    guard let owner = bySessionID[id], isOpen(owner) else { return nil }
    var live: ServedStream.LiveSession?
    drive(owner) { live = $0.handOver(into: &$1) }
    if live != nil { close(owner) }
    return live
  }

  private func askHistory(_ id: String, resumer: String, for connection: Connection) {
    guard let history = configuration.history else {
      drive(connection) { $0.claimed(nil, into: &$1) }
      return
    }
    awaitingClaims[connection.serial] = connection
    let (mailbox, serial) = (slot.mailbox, connection.serial)
    history.claim(id, for: resumer) {
      mailbox.post(.claimed(serial: serial, resumer: resumer, $0))
    }
  }

  /// A live session handed over for a client that left before it came: finished and stored
  /// as its own connection would have.
  private func store(_ live: ServedStream.LiveSession, serial: Int) {
    let stream = ServedStream(name: "connection \(serial)", settings: streamSettings, token: nil)
    var output: [UInt8] = []
    stream.takeOver(live, into: &output)
    stream.finish(into: &output)
    stream.delivered(stream.bytesAppended, closing: true)
    while let request = stream.nextRequest() {
      if case .record(let session, let uid) = request { record(session, uid: uid) }
    }
  }
}
