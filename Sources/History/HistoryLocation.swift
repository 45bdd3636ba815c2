import Foundation

/// Where the workout history lives: an SQLite file (the default, one machine) or a PostgreSQL
/// database (`postgresql://…`, shared by a fleet of daemons).
public enum HistoryLocation: Equatable, Sendable, CustomStringConvertible {
  case sqlite(path: String)
  case postgres(url: String)

  /// A `postgres://` or `postgresql://` URL, else a file path (kept as given: any name).
  public init(_ text: String) {
    let lowered = text.lowercased()
    if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") {
      self = .postgres(url: text)
    } else {
      self = .sqlite(path: text)
    }
  }

  /// `$XDG_DATA_HOME/spotter/history.sqlite`, else `~/.local/share/spotter/history.sqlite`:
  /// user data, kept where the XDG base directory specification puts it.
  public static var standard: HistoryLocation {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (NSHomeDirectory() + "/.local/share")
    return .sqlite(path: base + "/spotter/history.sqlite")
  }

  /// What `--help` shows as the default.
  public static let standardDescription = "$XDG_DATA_HOME/spotter/history.sqlite"

  /// The file, or the URL without its password.
  public var description: String {
    switch self {
    case .sqlite(let path): path
    case .postgres(let url): PostgresConnection.withoutPassword(url)
    }
  }

  /// The JSON Lines history an older Spotter kept beside this file (same name, `.jsonl`):
  /// imported when the history is opened.
  var legacyJSONLines: String? {
    guard case .sqlite(let path) = self else { return nil }
    let url = URL(fileURLWithPath: path)
    guard url.pathExtension != "jsonl" else { return nil }
    return url.deletingPathExtension().appendingPathExtension("jsonl").path
  }
}
