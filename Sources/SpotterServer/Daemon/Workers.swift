import Foundation
import History
import Spotter
import Synchronization

/// What the daemon's threads share: each worker's mailbox, its connection count and its
/// published counters; which worker holds each live session; the counters the accepting
/// thread keeps; whether the daemon is stopping. Everything else of a worker is its own.
final class Workers: Sendable {
  let slots: [Slot]
  /// Connections accepted since the start (each connection's serial).
  let connectionsTotal = Atomic<Int>(0)
  /// Clients refused by the accepting thread (over `maxConnections`).
  let refusals = Atomic<Int>(0)
  let stopping = Atomic<Bool>(false)
  let history: HistoryWriter?
  private let started = Date()
  /// Which worker holds each live session of one person, by its uid: a client resuming on
  /// another worker is handed the session from there (`Worker.claim`).
  private let sessions = Mutex<[String: Int]>([:])

  /// One worker as the other threads see it.
  final class Slot: Sendable {
    let mailbox: Mailbox
    /// Connections the worker holds or was handed and has not yet taken: the accepting thread
    /// gives each new one to the worker with the fewest.
    let connections = Atomic<Int>(0)
    /// Connections handed to the worker and not yet taken (`Worker.readMailbox`).
    let handed = Atomic<Int>(0)
    /// The worker's counters as it last published them (`Worker.publish`).
    let published = Mutex(Tally())

    init() throws(SystemError) { mailbox = try Mailbox() }
  }

  /// A worker's counters: those of its connections gone and open, and its own.
  struct Tally: Sendable {
    var openSessions = 0
    var connections = 0
    var streams = ServedStream.Tally()
    /// Clients refused for their token.
    var refusals = 0
    var sessionsFinished = 0

    mutating func add(_ other: Tally) {
      openSessions += other.openSessions
      connections += other.connections
      streams.add(other.streams)
      refusals += other.refusals
      sessionsFinished += other.sessionsFinished
    }
  }

  init(count: Int, history: HistoryWriter?) throws(SystemError) {
    var slots: [Slot] = []
    for _ in 0..<count { slots.append(try Slot()) }
    self.slots = slots
    self.history = history
  }

  /// The worker holding live session `uid`, if any.
  func owner(of uid: String) -> Int? { sessions.withLock { $0[uid] } }

  /// Session `uid` is live on worker `index`.
  func own(_ uid: String, worker index: Int) { sessions.withLock { $0[uid] = index } }

  /// Session `uid` is no longer live on worker `index` (another may hold it since).
  func disown(_ uid: String, worker index: Int) {
    sessions.withLock { if $0[uid] == index { $0[uid] = nil } }
  }

  /// Connections a worker may be handed before it takes them: clients connecting faster than
  /// the workers serve them (a storm of reconnects) wait to be accepted, instead of being
  /// accepted by the hundred and refused as too many while nobody serves them.
  static let handedAtMost = 64

  /// The worker to give a new connection to: the one with the fewest of those not handed
  /// `handedAtMost` already; nil when every worker is.
  func leastLoaded() -> Slot? {
    slots.lazy.filter { $0.handed.load(ordering: .relaxed) < Self.handedAtMost }
      .min { $0.connections.load(ordering: .relaxed) < $1.connections.load(ordering: .relaxed) }
  }

  /// Connections held or being handed to a worker.
  var connectionCount: Int {
    slots.reduce(0) { $0 + $1.connections.load(ordering: .relaxed) }
  }

  /// The daemon's counters: worker `index`'s as `live` (exact, for its own `stats`), the
  /// others' as they last published them (at most `Worker.publishSeconds` old).
  func counters(live: Tally? = nil, of index: Int? = nil) -> MetricsEndpoint.Counters {
    var total = live ?? Tally()
    for (other, slot) in slots.enumerated() where other != index {
      total.add(slot.published.withLock { $0 })
    }
    let history = history?.current ?? HistoryWriter.Counters()
    return MetricsEndpoint.Counters(
      openSessions: total.openSessions, connections: total.connections,
      connectionsTotal: connectionsTotal.load(ordering: .relaxed), frames: total.streams.frames,
      droppedFrames: total.streams.droppedFrames,
      errors: total.streams.errors + total.refusals + refusals.load(ordering: .relaxed),
      sessionsFinished: total.sessionsFinished,
      historyWritten: history.written, historyQueued: history.queued,
      historySpooled: history.spooled, historyErrors: history.failures,
      uptimeSeconds: Date().timeIntervalSince(started),
      workerConnections: slots.map { $0.connections.load(ordering: .relaxed) })
  }

  /// Wakes every worker to stop.
  func stop() {
    stopping.store(true, ordering: .relaxed)
    for slot in slots { slot.mailbox.wake() }
  }
}

/// A worker's messages from the daemon's other threads, and a pipe whose read end the worker
/// polls, so that a message wakes it.
final class Mailbox: Sendable {
  /// What comes to a worker. A live session handed over moves with its message: only one
  /// thread touches it at a time (the one that gave it up never again).
  enum Message: @unchecked Sendable {
    /// A new connection, accepted by the daemon, with its serial.
    case connection(FileDescriptor, serial: Int, needsToken: Bool)
    /// The history's answer to a resume this worker asked (`HistoryWriter.claim`).
    case claimed(serial: Int, resumer: String, Result<Checkpoint.Claim, HistoryError>)
    /// Checkpoints the history stored (told to every worker; each tells its own streams).
    case stored([Checkpoint])
    /// Worker `to` asks for live session `id` for its connection `serial`.
    case handOver(id: String, to: Int, serial: Int, resumer: String)
    /// The answer to `handOver`: the session, or nil when it is not live here (any more).
    case handedOver(id: String, serial: Int, resumer: String, ServedStream.LiveSession?)
    /// The exercise definitions were reloaded: new sessions use this runtime.
    case runtime(Runtime)
  }

  private let messages = Mutex<[Message]>([])
  let wakeReader: FileDescriptor
  private let wakeWriter: FileDescriptor

  init() throws(SystemError) { (wakeReader, wakeWriter) = try FileDescriptor.pipe() }

  deinit {
    wakeReader.close()
    wakeWriter.close()
  }

  /// Leaves `message` for the worker; `wake` ends its poll's wait (else it reads the message
  /// within its round, at most 0.1 s).
  func post(_ message: Message, wake: Bool = true) {
    messages.withLock { $0.append(message) }
    if wake { self.wake() }
  }

  /// Ends the worker's poll's wait. A full pipe already wakes it.
  func wake() {
    var byte: UInt8 = 1
    _ = withUnsafeBytes(of: &byte) { try? wakeWriter.write($0) }
  }

  /// Every message posted since the last call, oldest first.
  func take() -> [Message] {
    messages.withLock { waiting in
      guard !waiting.isEmpty else { return [] }
      defer { waiting.removeAll() }
      return waiting
    }
  }

  /// Empties the wake pipe (the worker then takes the messages).
  func drainWakes() {
    withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { buffer in
      while case .bytes? = try? wakeReader.read(into: buffer) {}
    }
  }
}
