import CPostgres
import Foundation

/// PostgreSQL behind one door: the only file that calls libpq. One connection to the server
/// named by a `postgresql://` URL, used by one thread at a time.
///
/// Statements go through `PQexecParams` with every parameter as text and every result as text
/// (`SQLValue` converts), so one code path serves every column type. The server's notices
/// ("relation already exists, skipping") are silenced: library code never prints.
final class PostgresConnection: SQLConnection {
  let dialect = SQLDialect.postgres
  let location: String
  private let handle: OpaquePointer

  /// Connects. - Throws: `HistoryError` `.connection` with libpq's reason.
  init(url: String) throws(HistoryError) {
    location = Self.withoutPassword(url)
    guard let connection = PQconnectdb(url) else {
      throw HistoryError(.connection, location: location, "PQconnectdb: out of memory")
    }
    guard PQstatus(connection) == CONNECTION_OK else {
      let reason = Self.trimmed(PQerrorMessage(connection))
      PQfinish(connection)
      throw HistoryError(
        .connection, location: location,
        "PQconnectdb could not connect (\(reason)); expected a PostgreSQL server that accepts "
          + "this URL. Is the server running, and are the user and database right?")
    }
    handle = connection
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
  }

  deinit { PQfinish(handle) }

  @discardableResult
  func query(_ sql: String, _ parameters: [SQLValue]) throws(HistoryError) -> [[SQLValue]] {
    let texts: [String?] = parameters.map { value in
      switch value {
      case .null: nil
      case .integer(let number): String(number)
      case .real(let number):
        number.isFinite ? "\(number)" : (number.isNaN ? "NaN" : "\(number > 0 ? "" : "-")Infinity")
      case .text(let text): text
      }
    }
    let copies = texts.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    let result = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
      PQexecParams(
        handle, Self.numbered(sql), Int32(values.count), nil, values.baseAddress, nil, nil, 0)
    }
    defer { PQclear(result) }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK: return []
    case PGRES_TUPLES_OK:
      let (count, columns) = (PQntuples(result), PQnfields(result))
      var rows: [[SQLValue]] = []
      rows.reserveCapacity(Int(count))
      for row in 0..<count {
        var values: [SQLValue] = []
        values.reserveCapacity(Int(columns))
        for column in 0..<columns {
          values.append(
            PQgetisnull(result, row, column) == 1
              ? .null : .text(String(cString: PQgetvalue(result, row, column))))
        }
        rows.append(values)
      }
      return rows
    default:
      throw failure(result, sql)
    }
  }

  /// `BEGIN`, reconnecting first if the connection was lost since the last transaction (a
  /// server restart): the daemon's writer keeps one connection for its whole life.
  func beginWriting() throws(HistoryError) {
    if PQstatus(handle) != CONNECTION_OK { PQreset(handle) }
    try query("BEGIN", [])
  }

  func commit() throws(HistoryError) { try query("COMMIT", []) }

  func rollback() {
    if PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? query("ROLLBACK", []) }
  }

  private func failure(_ result: OpaquePointer?, _ sql: String) -> HistoryError {
    let reason = Self.trimmed(
      result.map { PQresultErrorMessage($0) } ?? PQerrorMessage(handle))
    if PQstatus(handle) != CONNECTION_OK {
      return HistoryError(
        .connection, location: location,
        "the connection to the server broke (\(reason)); expected it to stay up. The write is "
          + "retried on a new connection")
    }
    let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map {
      String(cString: $0)
    }
    // Serialization failure, deadlock, lock not available: another writer, for a moment.
    if let state, ["40001", "40P01", "55P03"].contains(state) {
      return HistoryError(.busy, location: location, "PQexecParams: \(reason)")
    }
    return HistoryError(
      .database, location: location,
      "PQexecParams failed (\(reason), SQLSTATE \(state ?? "?")) on: \(sql)")
  }

  /// `?` placeholders numbered `$1, $2, …` as PostgreSQL wants them. The history's SQL has no
  /// `?` inside a string literal.
  static func numbered(_ sql: String) -> String {
    var result = ""
    result.reserveCapacity(sql.utf8.count + 16)
    var number = 0
    for character in sql {
      if character == "?" {
        number += 1
        result += "$\(number)"
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// The URL as messages show it: without its password.
  static func withoutPassword(_ url: String) -> String {
    guard var components = URLComponents(string: url), components.password != nil else {
      return url
    }
    components.password = "***"
    return components.string ?? url
  }

  private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
    text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
  }
}
