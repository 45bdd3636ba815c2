/// The history's tables, one version after another. A database records the versions applied
/// to it in `spotter_schema`; opening it applies the ones it lacks, in one transaction, so a
/// history is never left half-migrated and many processes opening a new one migrate it once.
/// A new version is a new `Migration` at the end of the list; released ones never change.
///
/// Version 1 (and version 2, which adds `daily_totals` and fills it from the sessions), in
/// both databases, one row per:
/// - `sessions`: session. `id`; `uid`, unique, so a retried or re-imported session is stored
///   once; `started_at` (Unix seconds); `day` (local days since 1970-01-01 where it was
///   recorded); `source`; `person`.
/// - `session_totals`: session and exercise, as its summary gave them. `session_id`,
///   `position`, `exercise`, `day` (the session's again, so totals per day read one table
///   through one index), `reps`, `active_seconds`.
/// - `sets`: set. `session_id`, `position`, `exercise`, `start_t` and `end_t` (stream
///   seconds), `reps`, `active_seconds`.
/// - `reps`: rep. `session_id`, `set_position`, `position`, `t`, `duration`, `time_down`,
///   `time_up`, `range_of_motion`, `side`, `partial`, `backfilled`.
/// - `daily_totals`: local day and exercise. `day`, `exercise`, `sessions`, `reps`,
///   `active_seconds`: the sums of `session_totals`, kept in the same transaction as the
///   sessions they sum, so totals per day or week read a row per day and exercise however
///   many sessions there are.
/// - `imports`: JSON Lines history imported. `path`, `bytes`, `sessions`, `imported_at`.
///
/// Version 3 adds `sessions.summary_delivered` (1 or 0 for a served stream: whether its summary
/// reached the client's socket; NULL otherwise), and one row per live session of a daemon
/// that may be resumed:
/// - `checkpoints`: `uid` (the live session's, which its record is stored under), `t` (the
///   stream time a resumed session counts on from: its client resends the frames after it),
///   `record` (the sets finished by then and the reps of the one under way, as JSON),
///   `updated_at` (Unix seconds), `resumed_as` (the uid of the session that resumed it: a
///   second resume is refused, and the first session's own record is not stored). A row goes
///   when its session is stored; a resumed one stays until the resume window has passed, and
///   one nobody resumed in that window is stored as it was left (`adoptCheckpoints`).
///
/// Version 4 keeps a checkpoint's finished sets in rows of their own, each written once, so a
/// checkpoint costs what its set under way costs however long the session (`checkpoints.record`
/// keeps when, where from, whose and the set under way):
/// - `checkpoint_sets`: finished set of a live session. `uid` (its checkpoint's), `position`
///   (among the session's sets), `record` (the set and its reps, as JSON). They go with their
///   checkpoint.
///
/// Why `day` is stored rather than computed: "per day" means the day the person lived, in the
/// time zone of the machine that recorded it, and a number makes the totals a plain `GROUP BY`
/// that both databases answer from an index.
enum HistorySchema {
  struct Migration: Sendable {
    let version: Int
    let statements: @Sendable (SQLDialect) -> [String]
  }

  static let migrations: [Migration] = [
    Migration(version: 1) { dialect in
      [
        """
        CREATE TABLE sessions (
          id \(dialect.identity),
          uid TEXT NOT NULL UNIQUE,
          started_at DOUBLE PRECISION NOT NULL,
          day INTEGER NOT NULL,
          source TEXT NOT NULL,
          person TEXT)
        """,
        "CREATE INDEX sessions_by_start ON sessions (started_at)",
        """
        CREATE TABLE session_totals (
          session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          position INTEGER NOT NULL,
          exercise TEXT NOT NULL,
          day INTEGER NOT NULL,
          reps INTEGER NOT NULL,
          active_seconds DOUBLE PRECISION NOT NULL,
          PRIMARY KEY (session_id, position))
        """,
        """
        CREATE INDEX session_totals_by_day ON session_totals (day, exercise, reps, active_seconds)
        """,
        """
        CREATE TABLE sets (
          session_id BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          position INTEGER NOT NULL,
          exercise TEXT NOT NULL,
          start_t DOUBLE PRECISION NOT NULL,
          end_t DOUBLE PRECISION NOT NULL,
          reps INTEGER NOT NULL,
          active_seconds DOUBLE PRECISION NOT NULL,
          PRIMARY KEY (session_id, position))
        """,
        // The rep metrics may be NULL: SQLite stores a NaN as NULL, and it reads back as NaN.
        """
        CREATE TABLE reps (
          session_id BIGINT NOT NULL,
          set_position INTEGER NOT NULL,
          position INTEGER NOT NULL,
          t DOUBLE PRECISION,
          duration DOUBLE PRECISION,
          time_down DOUBLE PRECISION,
          time_up DOUBLE PRECISION,
          range_of_motion DOUBLE PRECISION,
          side TEXT,
          partial INTEGER NOT NULL,
          backfilled INTEGER NOT NULL,
          PRIMARY KEY (session_id, set_position, position),
          FOREIGN KEY (session_id, set_position) REFERENCES sets (session_id, position)
            ON DELETE CASCADE)
        """,
        """
        CREATE TABLE imports (
          path TEXT PRIMARY KEY,
          bytes BIGINT NOT NULL,
          sessions INTEGER NOT NULL,
          imported_at DOUBLE PRECISION NOT NULL)
        """,
      ]
    },
    Migration(version: 2) { _ in
      [
        """
        CREATE TABLE daily_totals (
          day INTEGER NOT NULL,
          exercise TEXT NOT NULL,
          sessions INTEGER NOT NULL,
          reps INTEGER NOT NULL,
          active_seconds DOUBLE PRECISION NOT NULL,
          PRIMARY KEY (day, exercise))
        """,
        """
        INSERT INTO daily_totals (day, exercise, sessions, reps, active_seconds)
        SELECT day, exercise, COUNT(*), SUM(reps), SUM(active_seconds) FROM session_totals
        GROUP BY day, exercise
        """,
      ]
    },
    Migration(version: 3) { _ in
      [
        "ALTER TABLE sessions ADD COLUMN summary_delivered INTEGER",
        """
        CREATE TABLE checkpoints (
          uid TEXT PRIMARY KEY,
          t DOUBLE PRECISION NOT NULL,
          record TEXT NOT NULL,
          updated_at DOUBLE PRECISION NOT NULL,
          resumed_as TEXT)
        """,
        "CREATE INDEX checkpoints_by_resumer ON checkpoints (resumed_as)",
      ]
    },
    Migration(version: 4) { _ in
      [
        """
        CREATE TABLE checkpoint_sets (
          uid TEXT NOT NULL,
          position INTEGER NOT NULL,
          record TEXT NOT NULL,
          PRIMARY KEY (uid, position))
        """
      ]
    },
  ]

  static var latest: Int { migrations.last!.version }

  /// Brings the database to `latest`. Cheap when it is there already: one read, no lock.
  ///
  /// - Throws: `.newerSchema` for a history written by a newer Spotter, which this one must
  ///   not touch; what the database reports otherwise.
  static func migrate(_ connection: SQLConnection) throws(HistoryError) {
    if let current = try? version(connection) {
      try check(current, connection)
      if current == latest { return }
    }
    try connection.writing { () throws(HistoryError) in
      if let lock = connection.dialect.migrationLock { try connection.query(lock, []) }
      try connection.query(
        "CREATE TABLE IF NOT EXISTS spotter_schema (version INTEGER NOT NULL)", [])
      let current = try version(connection)
      try check(current, connection)
      for migration in migrations where migration.version > current {
        for statement in migration.statements(connection.dialect) {
          try connection.query(statement, [])
        }
        try connection.query(
          "INSERT INTO spotter_schema (version) VALUES (?)", [SQLValue(migration.version)])
      }
    }
  }

  /// The version applied last; 0 for an empty schema table. Throws when there is no table.
  static func version(_ connection: SQLConnection) throws(HistoryError) -> Int {
    try connection.query("SELECT MAX(version) FROM spotter_schema", []).first?.first?.int ?? 0
  }

  private static func check(_ current: Int, _ connection: SQLConnection) throws(HistoryError) {
    guard current <= latest else {
      throw HistoryError(
        .newerSchema, location: connection.location,
        "the history's schema is version \(current); this Spotter knows versions up to "
          + "\(latest). Use the newer Spotter that wrote it, or another history")
    }
  }
}
