import Foundation
import Spotter

/// Finished sessions the history could not take yet (a database restarting, failing over,
/// out of reach), kept on this machine until it can: an SQLite history of their own, in the
/// daemon's state folder, moved oldest first into the real one when it answers again.
///
/// Why a history and not a queue file: a spooled session is stored whole, in one
/// transaction, with the same schema and code as the history itself, so it survives a crash
/// or a power cut of the daemon as a stored session would, and an operator can read what
/// waits with `spotter history --history <spool>`. Each session keeps its uid: a move cut
/// short between the history's commit and the spool's delete stores nothing twice (the
/// history skips a uid it has). Bounded by the disk; a spool that cannot be written throws
/// like the history does, and the writer reports the session as not stored.
///
/// One spool is one connection, for one thread: the history writer's.
public final class HistorySpool {
  public let path: String
  private let store: HistoryStore

  /// Opens (creating it and its folder when missing) the spool at `path`.
  public init(path: String) throws(HistoryError) {
    self.path = path
    store = try HistoryStore(.sqlite(path: path))
  }

  /// `spool.sqlite` in `folder`: where `spotter serve --state-dir` keeps it.
  public convenience init(folder: String) throws(HistoryError) {
    try self.init(path: folder + "/spool.sqlite")
  }

  /// `$XDG_STATE_HOME/spotter`, else `~/.local/state/spotter`: state that outlives a restart
  /// but is not the user's data, where the XDG base directory specification puts it.
  public static var standardFolder: String {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (NSHomeDirectory() + "/.local/state")
    return base + "/spotter"
  }

  /// What `--help` shows as the default.
  public static let standardFolderDescription = "$XDG_STATE_HOME/spotter"

  /// Sessions waiting.
  public func count() throws(HistoryError) -> Int { try store.sessionCount() }

  /// Keeps the sessions, in one transaction, behind those already waiting.
  public func add(_ entries: [HistoryEntry]) throws(HistoryError) {
    try store.append(entries)
  }

  /// The oldest sessions waiting (first spooled, first out), at most `limit`, skipping those
  /// with the ids in `skipping`.
  func oldest(_ limit: Int, skipping: Set<Int> = []) throws(HistoryError)
    -> [(id: Int, entry: HistoryEntry)]
  {
    var found: [(id: Int, entry: HistoryEntry)] = []
    for id in try store.sessionIDs(limit: limit + skipping.count) where !skipping.contains(id) {
      guard found.count < limit, let session = try store.session(id: id) else { continue }
      found.append((id, HistoryEntry(session.record, uid: session.uid)))
    }
    return found
  }

  /// Forgets sessions the history now holds.
  func remove(ids: [Int]) throws(HistoryError) { try store.remove(ids: ids) }
}
