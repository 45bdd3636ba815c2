import Foundation
import Spotter

/// Writes finished sessions to the history on its own thread, so that the thread handing them
/// over (the daemon's I/O loop) never waits for a disk or a database server.
///
/// `submit` puts a session in a bounded queue and returns at once. The writer thread takes
/// whatever has queued up and stores it in one transaction: when sessions end faster than one
/// commit takes, they share commits instead of queueing behind one another. A write that fails
/// for a moment (another process holding the lock, a server restarting) is tried again, after
/// 0.1, 0.4, 1.6 s; a write that still fails, and a session that finds the queue full, are
/// reported through `report` and counted in `failures`, never dropped silently. `finish()`
/// writes what is queued, then stops the thread: the daemon calls it on SIGTERM.
///
/// Why bounded: a database that stays unreachable must not grow the daemon's memory without
/// limit. `capacity` sessions is minutes of a busy daemon's sessions, and a session is a few
/// kilobytes.
public final class HistoryWriter: @unchecked Sendable {
  /// What the writer has done so far.
  public struct Counters: Sendable, Equatable {
    public var written = 0
    /// Sessions that could not be stored (each was reported).
    public var failures = 0
    /// Waiting to be written.
    public var queued = 0
    public init(written: Int = 0, failures: Int = 0, queued: Int = 0) {
      (self.written, self.failures, self.queued) = (written, failures, queued)
    }
  }

  public let location: HistoryLocation
  public let capacity: Int
  /// Delays before the tries after the first: 3 more tries within about two seconds.
  static let retryDelays: [Double] = [0.1, 0.4, 1.6]

  private let condition = NSCondition()
  // Guarded by `condition`:
  private var queue: [HistoryEntry] = []
  private var counters = Counters()
  private var finishing = false
  private var stopped = false

  private let report: @Sendable (String) -> Void
  /// Used by the writer thread only, once started.
  private let store: HistoryStore

  /// Takes over `store`: from now on only the writer's thread uses it.
  ///
  /// - Parameter report: hears each failure (from the writer's thread), with the session's
  ///   source and totals, so an operator can tell what was not stored.
  public init(
    store: sending HistoryStore, capacity: Int = 4096,
    report: @escaping @Sendable (String) -> Void
  ) {
    precondition(capacity > 0, "HistoryWriter: capacity must be positive")
    self.store = store
    self.location = store.location
    self.capacity = capacity
    self.report = report
    queue.reserveCapacity(capacity)
    let thread = Thread { [self] in run() }
    thread.name = "spotter history writer"
    thread.start()
  }

  /// Queues a finished session. Returns false (and reports it) when the queue is full or the
  /// writer has finished.
  @discardableResult
  public func submit(_ record: SessionRecord) -> Bool {
    let entry = HistoryEntry(record)
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
      while queue.isEmpty && !finishing { condition.wait() }
      if queue.isEmpty {
        stopped = true
        condition.broadcast()
        condition.unlock()
        return
      }
      let batch = queue
      queue.removeAll(keepingCapacity: true)
      condition.unlock()
      let written = write(batch)
      condition.lock()
      counters.written += written
      counters.failures += batch.count - written
      counters.queued = queue.count
      condition.unlock()
    }
  }

  /// Stores the batch, retrying transient failures; returns how many were stored.
  private func write(_ batch: [HistoryEntry]) -> Int {
    var attempt = 0
    while true {
      do {
        try store.append(batch)
        return batch.count  // uids already stored count too: they are in the history
      } catch {
        if error.isTransient && attempt < Self.retryDelays.count {
          usleep(useconds_t(Self.retryDelays[attempt] * 1_000_000))
          attempt += 1
          continue
        }
        // One bad session must not take the others with it: store them one by one. (Not
        // after a failure that lasted: each would wait out the retries again.)
        if !error.isTransient && batch.count > 1 { return batch.reduce(0) { $0 + write([$1]) } }
        for entry in batch { report("\(Self.describe(entry)) was not stored: \(error)") }
        return 0
      }
    }
  }

  /// `spotter serve, connection 12 (2024-05-01T18:00:00Z): {"squat":{"reps":10,…}}`
  static func describe(_ entry: HistoryEntry) -> String {
    let stamp = ISO8601DateFormatter().string(from: entry.record.date)
    return "session \(entry.record.source) (\(stamp)): \(JSONText.exercises(entry.record.totals))"
  }
}
