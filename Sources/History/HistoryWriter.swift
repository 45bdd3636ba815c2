import Foundation
import Spotter

/// Writes finished sessions to the history on its own thread, so that the thread handing them
/// over (the daemon's I/O loop) never waits for a disk or a database server.
///
/// `submit` puts a session in a bounded queue and returns at once. The writer thread takes
/// whatever has queued up and stores it in one transaction: when sessions end faster than one
/// commit takes, they share commits instead of queueing behind one another. A write that fails
/// for a moment (another process holding the lock, a server restarting) is tried again, after
/// 0.1, 0.4, 1.6 s. Sessions whose database stays away longer go to the `spool` (a
/// `HistorySpool` on this machine's disk), and so do the sessions that end while anything
/// waits there, so they reach the history in the order they ended; the writer tries the
/// history again after 1, 2, 4… up to 15 s and moves the spool into it, oldest first, each
/// session once (its uid). A spool left by a daemon that stopped or died is moved the same way
/// when the next one starts. What cannot be stored nor spooled (no spool, a spool that cannot
/// be written, a session the database refuses outright, a full queue) is reported through
/// `report` and counted in `failures`, never dropped silently. `finish()` writes what is
/// queued (spooling it if the history is away), then stops the thread: the daemon calls it on
/// SIGTERM, and the spool waits for the next start.
///
/// The writer also keeps live sessions' checkpoints (`checkpoint`: written at most 4 times a
/// second, all that waited in one transaction, the last of each session winning; tried once,
/// since the next one replaces it; `whenCheckpointsStored` hears which were stored) and takes
/// them for a session that resumes one (`claim`), off the caller's thread.
///
/// Why bounded: a database that stays unreachable must not grow the daemon's memory without
/// limit. `capacity` sessions is minutes of a busy daemon's sessions, and a session is a few
/// kilobytes.
public final class HistoryWriter: @unchecked Sendable {
  /// What the writer has done so far.
  public struct Counters: Sendable, Equatable {
    public var written = 0
    /// Sessions that could not be stored nor spooled (each was reported).
    public var failures = 0
    /// Waiting to be written.
    public var queued = 0
    /// Waiting in the spool for the history to answer again.
    public var spooled = 0
    public init(written: Int = 0, failures: Int = 0, queued: Int = 0, spooled: Int = 0) {
      (self.written, self.failures, self.queued, self.spooled) =
        (written, failures, queued, spooled)
    }
  }

  public let location: HistoryLocation
  public let capacity: Int
  /// Delays before the tries after the first: 3 more tries within about two seconds.
  static let retryDelays: [Double] = [0.1, 0.4, 1.6]
  /// How long the writer waits before trying the history again while sessions are spooled:
  /// doubling from the first to the last.
  static let spoolRetryDelays = (first: 1.0, last: 15.0)
  /// Sessions moved from the spool per transaction.
  static let spoolBatch = 64
  /// How long a checkpoint waits for its session to be resumed: after that, with no news of
  /// it, the session is stored as its checkpoint left it (`HistoryStore.adoptCheckpoints`).
  /// Looked for once a minute.
  public static let resumeWindow = 600.0
  static let adoptionInterval = 60.0
  /// Checkpoints are written at most this often: each write is a transaction and a sync to
  /// disk, and meanwhile the latest of each session replaces its earlier one. A daemon of 500
  /// streams takes a few hundred a second; written as they came, their syncs cost more than
  /// everything else a checkpoint costs.
  static let checkpointInterval = 0.25

  private let condition = NSCondition()
  // Guarded by `condition`:
  private var queue: [HistoryEntry] = []
  private var checkpoints: [String: Checkpoint] = [:]
  private var claims: [Claim] = []
  private var checkpointsStored: @Sendable ([Checkpoint]) -> Void = { _ in }
  private var counters = Counters()
  private var finishing = false
  private var stopped = false

  private let report: @Sendable (String) -> Void
  /// Used by the writer thread only, once started.
  private let store: HistoryStore
  private let spool: HistorySpool?
  /// The writer thread's own: spooled sessions the history refused outright (tried again by
  /// the next daemon, not by this one), and when to try the history again.
  private var refusedFromSpool: Set<Int> = []
  private var spoolDelay = HistoryWriter.spoolRetryDelays.first
  private var nextSpoolTry = Date.distantPast
  private var nextAdoption = Date()
  private var nextCheckpointWrite = Date.distantPast

  /// Takes over `store` and `spool`: from now on only the writer's thread uses them. Sessions
  /// already in the spool are moved into the history first.
  ///
  /// - Parameter report: hears each failure (from the writer's thread), with the session's
  ///   source and totals, so an operator can tell what was not stored.
  public init(
    store: sending HistoryStore, spool: sending HistorySpool? = nil, capacity: Int = 4096,
    report: @escaping @Sendable (String) -> Void
  ) {
    precondition(capacity > 0, "HistoryWriter: capacity must be positive")
    self.store = store
    self.spool = spool
    self.location = store.location
    self.capacity = capacity
    self.report = report
    queue.reserveCapacity(capacity)
    if let spool {
      do {
        counters.spooled = try spool.count()
      } catch {
        report("the spool \(spool.path) cannot be read: \(error)")
      }
    }
    let thread = Thread { [self] in run() }
    thread.name = "spotter history writer"
    thread.start()
  }

  /// A resume waiting for its checkpoint.
  private struct Claim {
    let uid: String
    let resumer: String
    let reply: @Sendable (Result<Checkpoint.Claim, HistoryError>) -> Void
  }

  /// Queues a finished session, under `uid`. Returns false (and reports it) when the queue is
  /// full or the writer has finished.
  @discardableResult
  public func submit(_ record: SessionRecord, uid: String = UUID().uuidString.lowercased())
    -> Bool
  {
    let entry = HistoryEntry(record, uid: uid)
    condition.lock()
    guard !finishing, queue.count < capacity else {
      counters.failures += 1
      let reason = finishing ? "the writer has stopped" : "\(capacity) sessions already wait"
      condition.unlock()
      report("\(Self.describe(entry)) was not stored: \(reason)")
      return false
    }
    queue.append(entry)
    counters.queued = queue.count
    condition.signal()
    condition.unlock()
    return true
  }

  /// Queues a live session's checkpoint in place of the one it may have waiting. Dropped
  /// when the writer has finished or `capacity` sessions' checkpoints wait: a checkpoint is
  /// progress kept in case, and the next one replaces it.
  public func checkpoint(_ checkpoint: Checkpoint) {
    condition.lock()
    defer { condition.unlock() }
    guard !finishing, checkpoints.count < capacity || checkpoints[checkpoint.uid] != nil else {
      return
    }
    checkpoints[checkpoint.uid] = checkpoint
    condition.signal()
  }

  /// Hears, on the writer's thread, the checkpoints each write stored.
  public func whenCheckpointsStored(_ hear: @escaping @Sendable ([Checkpoint]) -> Void) {
    condition.lock()
    checkpointsStored = hear
    condition.unlock()
  }

  /// Takes the checkpoint of session `uid` for `resumer` (`HistoryStore.claim`); `reply` hears
  /// what was found, or why the history could not say, on the writer's thread.
  public func claim(
    _ uid: String, for resumer: String,
    reply: @escaping @Sendable (Result<Checkpoint.Claim, HistoryError>) -> Void
  ) {
    condition.lock()
    guard !finishing else {
      condition.unlock()
      reply(
        .failure(HistoryError(.connection, location: "\(location)", "the writer has stopped")))
      return
    }
    claims.append(Claim(uid: uid, resumer: resumer, reply: reply))
    condition.signal()
    condition.unlock()
  }

  public var current: Counters {
    condition.lock()
    defer { condition.unlock() }
    return counters
  }

  /// Writes everything queued, then stops the writer's thread and returns. Idempotent.
  public func finish() {
    condition.lock()
    finishing = true
    condition.broadcast()
    while !stopped { condition.wait() }
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while queue.isEmpty && (checkpoints.isEmpty || Date() < nextCheckpointWrite)
        && claims.isEmpty && !finishing && !(spoolHasWork && Date() >= nextSpoolTry)
        && Date() < nextAdoption
      {
        var until = spoolHasWork ? min(nextSpoolTry, nextAdoption) : nextAdoption
        if !checkpoints.isEmpty { until = min(until, nextCheckpointWrite) }
        _ = condition.wait(until: until)
      }
      let batch = queue
      let finishingNow = finishing
      queue.removeAll(keepingCapacity: true)
      // A session's checkpoint is no use once the session itself is stored. The others wait
      // until they are due (`checkpointInterval`), a resume is asked for, or the writer
      // finishes.
      let ended = Set(batch.map(\.uid))
      for uid in ended { checkpoints[uid] = nil }
      var checkpointBatch: [Checkpoint] = []
      // A resume asked for reads the latest: what waits is written first.
      if finishing || !claims.isEmpty || Date() >= nextCheckpointWrite, !checkpoints.isEmpty {
        checkpointBatch = Array(checkpoints.values)
        checkpoints.removeAll(keepingCapacity: true)
        nextCheckpointWrite = Date().addingTimeInterval(Self.checkpointInterval)
      }
      let claimBatch = claims
      claims.removeAll()
      let hearStored = checkpointsStored
      let spooledBefore = counters.spooled
      condition.unlock()
      var outcome = Outcome()
      if !batch.isEmpty {
        // Behind what waits in the spool, so the history gets the sessions in order.
        if spooledBefore > 0 { outcome.add(toSpool(batch)) } else { outcome.add(write(batch)) }
      }
      if !checkpointBatch.isEmpty, let kept = try? store.save(checkpointBatch), !kept.isEmpty {
        hearStored(kept)
      }
      if Date() >= nextAdoption {
        nextAdoption = Date().addingTimeInterval(Self.adoptionInterval)
        let before = Date().addingTimeInterval(-Self.resumeWindow)
        if let adopted = try? store.adoptCheckpoints(before: before) { outcome.written += adopted }
      }
      for claim in claimBatch {
        claim.reply(
          Result { () throws(HistoryError) in try store.claim(claim.uid, for: claim.resumer) })
      }
      if outcome.spooled + spooledBefore > 0 && (Date() >= nextSpoolTry || finishingNow) {
        outcome.add(moveSpool())
      }
      condition.lock()
      counters.written += outcome.written
      counters.failures += outcome.failures
      counters.spooled += outcome.spooled
      counters.queued = queue.count
      if finishingNow && queue.isEmpty {
        stopped = true
        condition.broadcast()
        condition.unlock()
        return
      }
      condition.unlock()
    }
  }

  /// Sessions wait in the spool that this writer may still move (guarded by `condition`).
  private var spoolHasWork: Bool { counters.spooled > refusedFromSpool.count }

  /// What one pass of the writer did: sessions stored, not stored, and the change in the
  /// spool's count.
  private struct Outcome {
    var written = 0
    var failures = 0
    var spooled = 0

    mutating func add(_ other: Outcome) {
      written += other.written
      failures += other.failures
      spooled += other.spooled
    }
  }

  /// Stores the batch, retrying transient failures; what the database stays away for goes to
  /// the spool.
  private func write(_ batch: [HistoryEntry]) -> Outcome {
    var attempt = 0
    while true {
      do {
        try store.append(batch)
        // Uids already stored count too: they are in the history.
        return Outcome(written: batch.count)
      } catch {
        if error.isTransient && attempt < Self.retryDelays.count {
          usleep(useconds_t(Self.retryDelays[attempt] * 1_000_000))
          attempt += 1
          continue
        }
        if error.isTransient && spool != nil {
          waitBeforeTrying(again: false)
          return toSpool(batch, because: error)
        }
        // One bad session must not take the others with it: store them one by one. (Not
        // after a failure that lasted: each would wait out the retries again.)
        if !error.isTransient && batch.count > 1 {
          return batch.reduce(into: Outcome()) { $0.add(write([$1])) }
        }
        for entry in batch { report("\(Self.describe(entry)) was not stored: \(error)") }
        return Outcome(failures: batch.count)
      }
    }
  }

  /// Keeps the batch in the spool; reports it as not stored when the spool cannot take it.
  private func toSpool(_ batch: [HistoryEntry], because cause: HistoryError? = nil) -> Outcome {
    guard let spool else { return Outcome(failures: batch.count) }
    do {
      try spool.add(batch)
      return Outcome(spooled: batch.count)
    } catch {
      let why = cause.map { "\($0); " } ?? ""
      for entry in batch {
        report(
          "\(Self.describe(entry)) was not stored: \(why)the spool \(spool.path) could not "
            + "keep it either (\(error)); expected a writable folder with room on its disk")
      }
      return Outcome(failures: batch.count)
    }
  }

  /// Moves the spool into the history, oldest first, until it is empty or the history fails;
  /// then waits longer before the next try (after a transient failure) or starts over.
  private func moveSpool() -> Outcome {
    guard let spool else { return Outcome() }
    var outcome = Outcome()
    while true {
      do {
        let oldest = try spool.oldest(Self.spoolBatch, skipping: refusedFromSpool)
        guard !oldest.isEmpty else {
          waitBeforeTrying(again: true)
          return outcome
        }
        do {
          try store.append(oldest.map(\.entry))
        } catch  where !error.isTransient && oldest.count > 1 {
          // One session the history refuses must not hold the others: the rest go one by one.
          for item in oldest { outcome.add(moveOne(item, from: spool)) }
          continue
        }
        try spool.remove(ids: oldest.map(\.id))
        outcome.written += oldest.count
        outcome.spooled -= oldest.count
      } catch {
        if !error.isTransient {
          report("the spool \(spool.path) could not be moved into the history: \(error)")
        }
        waitBeforeTrying(again: false)
        return outcome
      }
    }
  }

  /// One spooled session into the history; one the history refuses outright stays in the
  /// spool for the next daemon, and is reported.
  private func moveOne(_ item: (id: Int, entry: HistoryEntry), from spool: HistorySpool)
    -> Outcome
  {
    do {
      try store.append([item.entry])
      try spool.remove(ids: [item.id])
      return Outcome(written: 1, spooled: -1)
    } catch {
      refusedFromSpool.insert(item.id)
      report(
        "\(Self.describe(item.entry)) stays in the spool \(spool.path): the history refused it "
          + "(\(error))")
      return Outcome()
    }
  }

  /// Sets when to try the history again: at once after it answered (`again` true resets the
  /// delay), else after a delay that doubles up to `spoolRetryDelays.last`.
  private func waitBeforeTrying(again succeeded: Bool) {
    if succeeded {
      spoolDelay = Self.spoolRetryDelays.first
      nextSpoolTry = Date.distantPast
    } else {
      nextSpoolTry = Date().addingTimeInterval(spoolDelay)
      spoolDelay = min(spoolDelay * 2, Self.spoolRetryDelays.last)
    }
  }

  /// `spotter serve, connection 12 (2024-05-01T18:00:00Z): {"squat":{"reps":10,…}}`
  static func describe(_ entry: HistoryEntry) -> String {
    let stamp = ISO8601DateFormatter().string(from: entry.record.date)
    return "session \(entry.record.source) (\(stamp)): \(JSONText.exercises(entry.record.totals))"
  }
}
