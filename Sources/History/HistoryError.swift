/// Why the workout history could not be opened, read or written. The text says what was found,
/// what was expected, and what to do.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
  /// What kind of failure: callers retry `busy` and `connection`, and report the rest.
  public enum Kind: Sendable {
    /// Another writer held the database for longer than the busy timeout.
    case busy
    /// The database server could not be reached, or the connection broke.
    case connection
    /// A history made by a newer Spotter (its schema version is unknown here).
    case newerSchema
    /// The file is not a history database (or is damaged).
    case notADatabase
    /// A legacy JSON Lines history line that cannot be read.
    case badImport
    /// Anything else the database refused.
    case database
  }

  public var kind: Kind
  /// The history's file name or URL (a URL without its password).
  public var location: String
  public var message: String

  public init(_ kind: Kind, location: String, _ message: String) {
    self.kind = kind
    self.location = location
    self.message = message
  }

  /// Worth trying again a little later: the same write may then succeed.
  public var isTransient: Bool { kind == .busy || kind == .connection }

  public var description: String { "\(location): \(message)" }
}
