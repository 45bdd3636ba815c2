import Foundation
import Spotter

/// A session as the history holds it: its id (what `spotter history --session` takes), its
/// uid, and its record.
public struct StoredSession: Equatable, Sendable {
  public var id: Int
  public var uid: String
  public var record: SessionRecord
}

/// Which sessions a reading covers. Empty: all of them.
public struct HistoryFilter: Sendable {
  /// Sessions started at or after this (for totals: from this local day on).
  public var since: Date?
  /// Only sessions with this exercise (and, in totals, only its rows).
  public var exercise: String?
  public var person: String?

  public init(since: Date? = nil, exercise: String? = nil, person: String? = nil) {
    self.since = since
    self.exercise = exercise
    self.person = person
  }
}

/// Totals are summed per local day or per ISO week (Monday to Sunday).
public enum HistoryPeriod: String, Sendable, CaseIterable {
  case day, week
}

/// One exercise's totals over one day or week.
public struct PeriodTotal: Equatable, Sendable {
  /// The period's first day, in local days since 1970-01-01 (`LocalDay` names it).
  public var firstDay: Int
  public var exercise: String
  public var sessions: Int
  public var reps: Int
  public var activeSeconds: Double
}

extension HistoryStore {
  /// The newest sessions first, each with its totals (not its sets: `session(id:)` has them).
  public func recentSessions(limit: Int, _ filter: HistoryFilter = HistoryFilter())
    throws(HistoryError) -> [StoredSession]
  {
    let (whereClause, parameters) = Self.whereClause([
      filter.since.map { ("started_at >= ?", .real($0.timeIntervalSince1970)) },
      filter.person.map { ("person = ?", .text($0)) },
      filter.exercise.map {
        (
          "EXISTS (SELECT 1 FROM session_totals WHERE session_id = sessions.id AND exercise = ?)",
          .text($0)
        )
      },
    ])
    let rows = try connection.query(
      "SELECT id, uid, started_at, source, person, summary_delivered FROM sessions\(whereClause) "
        + "ORDER BY started_at DESC, id DESC LIMIT ?", parameters + [SQLValue(limit)])
    var sessions = rows.map { row in
      StoredSession(
        id: row[0].int, uid: row[1].string ?? "",
        record: SessionRecord(
          date: Date(timeIntervalSince1970: row[2].double), source: row[3].string ?? "",
          person: row[4].string, summaryDelivered: row[5] == .null ? nil : row[5].bool))
    }
    guard !sessions.isEmpty else { return [] }
    let ids = sessions.map { SQLValue.integer(Int64($0.id)) }
    let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
    var totals: [Int: [ExerciseTotal]] = [:]
    for row in try connection.query(
      "SELECT session_id, exercise, reps, active_seconds FROM session_totals "
        + "WHERE session_id IN (\(marks)) ORDER BY session_id, position", ids)
    {
      totals[row[0].int, default: []].append(
        ExerciseTotal(name: row[1].string ?? "", reps: row[2].int, activeSeconds: row[3].double))
    }
    for index in sessions.indices {
      sessions[index].record.totals = totals[sessions[index].id] ?? []
    }
    return sessions
  }

  /// Each exercise's sessions, reps and active seconds per day or week, oldest first.
  ///
  /// Read from `daily_totals` (a row per day and exercise), or, for one person, summed from
  /// each session's totals.
  public func totals(per period: HistoryPeriod, _ filter: HistoryFilter = HistoryFilter())
    throws(HistoryError) -> [PeriodTotal]
  {
    try totals(per: period, filter, fromSessions: filter.person != nil)
  }

  /// `fromSessions`: sum `session_totals` rather than read `daily_totals` (the tests check
  /// that both agree).
  func totals(per period: HistoryPeriod, _ filter: HistoryFilter, fromSessions: Bool)
    throws(HistoryError) -> [PeriodTotal]
  {
    // ISO weeks: day 0 (1970-01-01) was a Thursday, so Monday-based weeks start at day -3.
    let bucket = period == .day ? "day" : "((day + 3) / 7)"
    let (whereClause, parameters) = Self.whereClause([
      filter.since.map { ("day >= ?", SQLValue(Self.localDay(of: $0))) },
      filter.exercise.map { ("exercise = ?", .text($0)) },
      filter.person.map { ("session_id IN (SELECT id FROM sessions WHERE person = ?)", .text($0)) },
    ])
    let (table, sessions) =
      fromSessions ? ("session_totals", "COUNT(*)") : ("daily_totals", "SUM(sessions)")
    let rows = try connection.query(
      "SELECT \(bucket) AS period, exercise, \(sessions), SUM(reps), SUM(active_seconds) "
        + "FROM \(table)\(whereClause) GROUP BY period, exercise ORDER BY period, exercise",
      parameters)
    return rows.map { row in
      PeriodTotal(
        firstDay: period == .day ? row[0].int : row[0].int * 7 - 3,
        exercise: row[1].string ?? "", sessions: row[2].int, reps: row[3].int,
        activeSeconds: row[4].double)
    }
  }

  /// ` WHERE a AND b …` for the conditions given (each with one `?`, and its value), in the
  /// order given, with their values in the same order; "" and no values when none is given.
  private static func whereClause(_ conditions: [(String, SQLValue)?]) -> (String, [SQLValue]) {
    let given = conditions.compactMap { $0 }
    let sql = given.isEmpty ? "" : " WHERE " + given.map(\.0).joined(separator: " AND ")
    return (sql, given.map(\.1))
  }

  /// One session whole: totals, sets and each set's reps. Nil when no session has this id.
  public func session(id: Int) throws(HistoryError) -> StoredSession? {
    let key = SQLValue.integer(Int64(id))
    guard
      let row = try connection.query(
        "SELECT id, uid, started_at, source, person, summary_delivered FROM sessions "
          + "WHERE id = ?", [key]
      ).first
    else { return nil }
    var record = SessionRecord(
      date: Date(timeIntervalSince1970: row[2].double), source: row[3].string ?? "",
      person: row[4].string, summaryDelivered: row[5] == .null ? nil : row[5].bool)
    record.totals = try connection.query(
      "SELECT exercise, reps, active_seconds FROM session_totals WHERE session_id = ? "
        + "ORDER BY position", [key]
    ).map { ExerciseTotal(name: $0[0].string ?? "", reps: $0[1].int, activeSeconds: $0[2].double) }
    record.sets = try connection.query(
      "SELECT exercise, start_t, end_t FROM sets WHERE session_id = ? ORDER BY position", [key]
    ).map { SetRecord(exercise: $0[0].string ?? "", start: $0[1].double, end: $0[2].double) }
    for rep in try connection.query(
      """
      SELECT set_position, t, duration, time_down, time_up, range_of_motion, side, partial,
        backfilled FROM reps WHERE session_id = ? ORDER BY set_position, position
      """, [key])
    {
      let set = rep[0].int
      guard record.sets.indices.contains(set) else { continue }
      record.sets[set].reps.append(
        RepRecord(
          t: rep[1].doubleOrNaN, duration: rep[2].doubleOrNaN, timeDown: rep[3].doubleOrNaN,
          timeUp: rep[4].doubleOrNaN, rangeOfMotion: rep[5].doubleOrNaN, side: rep[6].string,
          partial: rep[7].bool, backfilled: rep[8].bool))
    }
    return StoredSession(id: row[0].int, uid: row[1].string ?? "", record: record)
  }

  /// How many sessions the history holds.
  public func sessionCount() throws(HistoryError) -> Int {
    try connection.query("SELECT COUNT(*) FROM sessions", []).first?.first?.int ?? 0
  }
}

/// A local day number (days since 1970-01-01) as a calendar date, by arithmetic (Howard
/// Hinnant's `civil_from_days`): no calendar object and no time zone, since the day is
/// already local.
public enum LocalDay {
  /// `2024-05-01`.
  public static func name(_ day: Int) -> String {
    let z = day + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let dayOfMonth = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return String(format: "%04d-%02d-%02d", year, month, dayOfMonth)
  }
}
