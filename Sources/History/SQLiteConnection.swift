import CSQLite
import Foundation

/// SQLite behind one door: the only file that calls the SQLite library. A connection to one
/// history file, used by one thread at a time (opened `NOMUTEX`: no lock per call).
///
/// Settings, and why:
/// - WAL journal: readers (`spotter history`) never wait for a writer, and a writer appends to
///   the log instead of rewriting pages in place, so many processes can append at once.
/// - `synchronous = FULL`: each commit is on disk when `commit` returns, so a committed
///   session survives a power cut, not only a crash of the process. The daemon commits whole
///   batches, so the cost (one flush per transaction) is paid per batch, not per session.
/// - A busy timeout of `busyMilliseconds`: a writer waits its turn instead of failing while
///   another process holds the write lock for a moment.
final class SQLiteConnection: SQLConnection {
  let dialect = SQLDialect.sqlite
  let location: String
  private let handle: OpaquePointer
  /// Prepared once, reset after each use: the history runs the same few statements again and
  /// again.
  private var statements: [String: OpaquePointer] = [:]

  /// Long enough for dozens of processes appending at once to take their turns.
  static let busyMilliseconds: Int32 = 15_000

  /// Opens (creating when missing) the database at `path` and applies the settings above.
  ///
  /// - Throws: `HistoryError` `.notADatabase` when the file is something else (a JSON Lines
  ///   history of an older Spotter, say), `.busy` when other writers hold it too long.
  init(path: String) throws(HistoryError) {
    location = path
    var opened: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &opened, flags, nil)
    guard status == SQLITE_OK, let opened else {
      let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(opened)
      throw HistoryError(
        .database, location: path,
        "sqlite3_open_v2 could not open it (\(reason)); expected a writable file in a folder "
          + "that exists")
    }
    handle = opened
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, Self.busyMilliseconds)
    try retryingWhileBusy { () throws(HistoryError) in
      try query("PRAGMA journal_mode = WAL", [])
    }
    try query("PRAGMA synchronous = FULL", [])
    try query("PRAGMA foreign_keys = ON", [])
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  @discardableResult
  func query(_ sql: String, _ parameters: [SQLValue]) throws(HistoryError) -> [[SQLValue]] {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (offset, value) in parameters.enumerated() {
      let index = Int32(offset + 1)
      let status: Int32
      switch value {
      case .null: status = sqlite3_bind_null(statement, index)
      case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
      case .real(let number): status = sqlite3_bind_double(statement, index, number)
      case .text(let text):
        status = text.withCString { spotter_sqlite3_bind_text_copied(statement, index, $0, -1) }
      }
      guard status == SQLITE_OK else { throw failure("sqlite3_bind", status, sql) }
    }
    var rows: [[SQLValue]] = []
    while true {
      let status = sqlite3_step(statement)
      if status == SQLITE_DONE { return rows }
      guard status == SQLITE_ROW else { throw failure("sqlite3_step", status, sql) }
      let columns = sqlite3_column_count(statement)
      var row: [SQLValue] = []
      row.reserveCapacity(Int(columns))
      for column in 0..<columns {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
        case SQLITE_NULL: row.append(.null)
        default:
          let bytes = Int(sqlite3_column_bytes(statement, column))
          let text = sqlite3_column_text(statement, column)
          row.append(
            .text(String(decoding: UnsafeBufferPointer(start: text, count: bytes), as: UTF8.self)))
        }
      }
      rows.append(row)
    }
  }

  /// `BEGIN IMMEDIATE`: the write lock now, waiting for it as long as the busy timeout allows.
  func beginWriting() throws(HistoryError) {
    try retryingWhileBusy { () throws(HistoryError) in try query("BEGIN IMMEDIATE", []) }
  }

  func commit() throws(HistoryError) { try query("COMMIT", []) }

  func rollback() {
    if sqlite3_get_autocommit(handle) == 0 { _ = try? query("ROLLBACK", []) }
  }

  private func prepared(_ sql: String) throws(HistoryError) -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    var statement: OpaquePointer?
    let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard status == SQLITE_OK, let statement else {
      throw failure("sqlite3_prepare_v2", status, sql)
    }
    statements[sql] = statement
    return statement
  }

  /// SQLite answers some lock conflicts at once (changing the journal mode, starting a write
  /// in WAL mode while another connection recovers the log) without calling the busy handler;
  /// those are retried here until the busy timeout has passed.
  private func retryingWhileBusy(_ body: () throws(HistoryError) -> Void) throws(HistoryError) {
    let deadline = Date().addingTimeInterval(Double(Self.busyMilliseconds) / 1000)
    while true {
      do {
        try body()
        return
      } catch  where error.kind == .busy && Date() < deadline {
        usleep(useconds_t.random(in: 2_000...20_000))
      }
    }
  }

  private func failure(_ call: String, _ status: Int32, _ sql: String) -> HistoryError {
    let reason = String(cString: sqlite3_errmsg(handle))
    switch status & 0xFF {
    case SQLITE_BUSY, SQLITE_LOCKED:
      return HistoryError(
        .busy, location: location,
        "\(call) found the database locked by another writer for over "
          + "\(Self.busyMilliseconds / 1000) s (\(reason)); expected the lock within that time. "
          + "Try again, or look for a process stuck writing to it")
    case SQLITE_NOTADB, SQLITE_CORRUPT:
      return HistoryError(
        .notADatabase, location: location,
        "\(call): \(reason); expected an SQLite workout history. A JSON Lines history of an "
          + "older Spotter is imported with 'spotter history --import FILE'")
    default:
      return HistoryError(
        .database, location: location, "\(call) failed (\(reason), code \(status)) on: \(sql)")
    }
  }
}
