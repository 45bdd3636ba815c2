import Foundation
import Spotter

/// A finished session on its way into the history, with the unique id it is stored under:
/// given once, when the session ends, so that a write retried after a lost reply, or a history
/// imported twice, stores the session once.
public struct HistoryEntry: Sendable, Equatable {
  public var uid: String
  public var record: SessionRecord

  public init(_ record: SessionRecord, uid: String = UUID().uuidString.lowercased()) {
    self.uid = uid
    self.record = record
  }
}

/// The workout history: sessions, their sets and their reps, in SQLite or PostgreSQL (the
/// schema is `HistorySchema`). Each append is one transaction: a reader, another writer or a
/// crash sees every session of it whole, or none.
///
/// One store is one connection, for one thread at a time; processes share a history through
/// the database, never through a store. The daemon writes through a `HistoryWriter`, off its
/// I/O thread.
public final class HistoryStore {
  public let location: HistoryLocation
  let connection: SQLConnection

  /// Opens the history, creating it (and its folder) when missing, migrating it to the
  /// current schema, and importing the JSON Lines history an older Spotter kept beside it.
  ///
  /// - Throws: `HistoryError`: the folder cannot be made, the file is not a history, the
  ///   server cannot be reached, the schema is newer than this Spotter's.
  public init(_ location: HistoryLocation) throws(HistoryError) {
    self.location = location
    switch location {
    case .sqlite(let path):
      let folder = (path as NSString).deletingLastPathComponent
      if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
        do {
          try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true)
        } catch {
          throw HistoryError(
            .database, location: path,
            "cannot create the folder \(folder) (\(error.localizedDescription)); expected a "
              + "place this user may write")
        }
      }
      connection = try SQLiteConnection(path: path)
    case .postgres(let url):
      connection = try PostgresConnection(url: url)
    }
    try HistorySchema.migrate(connection)
    if let legacy = location.legacyJSONLines, FileManager.default.fileExists(atPath: legacy) {
      try importJSONLines(legacy)
    }
  }

  /// Stores one finished session; returns its entry (with its uid).
  @discardableResult
  public func append(_ record: SessionRecord) throws(HistoryError) -> HistoryEntry {
    let entry = HistoryEntry(record)
    try append([entry])
    return entry
  }

  /// Stores sessions in one transaction. An entry whose uid is stored already is skipped.
  ///
  /// - Returns: how many were new.
  @discardableResult
  public func append(_ entries: [HistoryEntry]) throws(HistoryError) -> Int {
    try connection.writing { () throws(HistoryError) in try insert(entries) }
  }

  /// The sessions' rows and their share of `daily_totals`, inside the caller's transaction.
  /// Returns how many were new.
  func insert(_ entries: [HistoryEntry]) throws(HistoryError) -> Int {
    var added: [SessionRecord] = []
    for entry in entries where try insert(entry) { added.append(entry.record) }
    var sums: [DailyKey: (sessions: Int, reps: Int, seconds: Double)] = [:]
    for record in added {
      let day = Self.localDay(of: record.date)
      for total in record.totals {
        sums[DailyKey(day: day, exercise: total.name), default: (0, 0, 0)].sessions += 1
        sums[DailyKey(day: day, exercise: total.name)]!.reps += total.reps
        sums[DailyKey(day: day, exercise: total.name)]!.seconds += total.activeSeconds
      }
    }
    // In one order in every process: two PostgreSQL transactions updating the same rows then
    // wait for each other instead of deadlocking.
    for key in sums.keys.sorted() {
      let sum = sums[key]!
      try connection.query(
        """
        INSERT INTO daily_totals (day, exercise, sessions, reps, active_seconds)
        VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (day, exercise) DO UPDATE SET
          sessions = daily_totals.sessions + excluded.sessions,
          reps = daily_totals.reps + excluded.reps,
          active_seconds = daily_totals.active_seconds + excluded.active_seconds
        """,
        [
          SQLValue(key.day), .text(key.exercise), SQLValue(sum.sessions), SQLValue(sum.reps),
          .real(sum.seconds),
        ])
    }
    return added.count
  }

  struct DailyKey: Hashable, Comparable {
    let day: Int
    let exercise: String

    static func < (a: DailyKey, b: DailyKey) -> Bool {
      (a.day, a.exercise) < (b.day, b.exercise)
    }
  }

  /// One session's rows, inside the caller's transaction. False when its uid is stored, or
  /// when another session resumed it (that one holds its sets). Its checkpoint goes, unless
  /// it was resumed: then it stays, so that the session's own record, should its daemon
  /// still send it, is not stored (`adoptCheckpoints` clears it later).
  private func insert(_ entry: HistoryEntry) throws(HistoryError) -> Bool {
    let record = entry.record
    let uid = SQLValue.text(entry.uid)
    let resumed = try connection.query(
      "SELECT 1 FROM checkpoints WHERE uid = ? AND resumed_as IS NOT NULL", [uid])
    if !resumed.isEmpty { return false }
    try connection.query("DELETE FROM checkpoints WHERE uid = ?", [uid])
    try connection.query("DELETE FROM checkpoint_sets WHERE uid = ?", [uid])
    let day = Self.localDay(of: record.date)
    let inserted = try connection.query(
      """
      INSERT INTO sessions (uid, started_at, day, source, person, summary_delivered)
      VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (uid) DO NOTHING RETURNING id
      """,
      [
        uid, .real(record.date.timeIntervalSince1970), SQLValue(day),
        .text(record.source), SQLValue(record.person),
        record.summaryDelivered.map { SQLValue($0) } ?? .null,
      ])
    guard let id = inserted.first?.first.map({ SQLValue.integer(Int64($0.int)) }) else {
      return false
    }
    for (position, total) in record.totals.enumerated() {
      try connection.query(
        """
        INSERT INTO session_totals (session_id, position, exercise, day, reps, active_seconds)
        VALUES (?, ?, ?, ?, ?, ?)
        """,
        [
          id, SQLValue(position), .text(total.name), SQLValue(day), SQLValue(total.reps),
          .real(total.activeSeconds),
        ])
    }
    for (position, set) in record.sets.enumerated() {
      try connection.query(
        """
        INSERT INTO sets (session_id, position, exercise, start_t, end_t, reps, active_seconds)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
        [
          id, SQLValue(position), .text(set.exercise), .real(set.start), .real(set.end),
          SQLValue(set.count), .real(set.activeSeconds),
        ])
      try insertReps(set.reps, session: id, set: position)
    }
    return true
  }

  /// The ids of the first sessions stored (in the order they were), at most `limit`.
  func sessionIDs(limit: Int) throws(HistoryError) -> [Int] {
    try connection.query("SELECT id FROM sessions ORDER BY id LIMIT ?", [SQLValue(limit)])
      .map { $0[0].int }
  }

  /// Deletes sessions (their totals, sets and reps with them) and takes them out of
  /// `daily_totals`, in one transaction.
  func remove(ids: [Int]) throws(HistoryError) {
    guard !ids.isEmpty else { return }
    let keys = ids.map { SQLValue.integer(Int64($0)) }
    let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
    try connection.writing { () throws(HistoryError) in
      let totals = try connection.query(
        "SELECT day, exercise, reps, active_seconds FROM session_totals "
          + "WHERE session_id IN (\(marks)) ORDER BY day, exercise", keys)
      for row in totals {
        try connection.query(
          """
          UPDATE daily_totals SET sessions = sessions - 1, reps = reps - ?,
            active_seconds = active_seconds - ? WHERE day = ? AND exercise = ?
          """, [row[2], row[3], row[0], row[1]])
      }
      try connection.query("DELETE FROM daily_totals WHERE sessions <= 0", [])
      try connection.query("DELETE FROM sessions WHERE id IN (\(marks))", keys)
    }
  }

  /// Rows per statement when inserting reps: a set's reps in one or two round trips to a
  /// server, and few distinct statements for SQLite to keep prepared.
  private static let repsPerStatement = 32

  private func insertReps(_ reps: [RepRecord], session: SQLValue, set: Int) throws(HistoryError) {
    var start = 0
    while start < reps.count {
      let chunk = reps[start..<min(reps.count, start + Self.repsPerStatement)]
      let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: chunk.count)
      var values: [SQLValue] = []
      values.reserveCapacity(chunk.count * 11)
      for (offset, rep) in zip(chunk.indices, chunk) {
        values += [
          session, SQLValue(set), SQLValue(offset), .real(rep.t), .real(rep.duration),
          .real(rep.timeDown), .real(rep.timeUp), .real(rep.rangeOfMotion), SQLValue(rep.side),
          SQLValue(rep.partial), SQLValue(rep.backfilled),
        ]
      }
      try connection.query(
        """
        INSERT INTO reps (session_id, set_position, position, t, duration, time_down, time_up,
          range_of_motion, side, partial, backfilled) VALUES
        """ + rows.joined(separator: ", "), values)
      start += chunk.count
    }
  }

  /// Days since 1970-01-01 in this machine's time zone at `date`: the day as the person
  /// lived it.
  public static func localDay(of date: Date) -> Int {
    let seconds = date.timeIntervalSince1970 + Double(TimeZone.current.secondsFromGMT(for: date))
    return Int((seconds / 86_400).rounded(.down))
  }
}
