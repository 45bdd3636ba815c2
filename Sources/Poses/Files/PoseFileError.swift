/// Bad input in a pose or annotation file: where it is and what was wrong.
///
/// Its description reads like a compiler diagnostic, `clip.jsonl:12:40: message`, so editors
/// and people can jump to the place.
public struct PoseFileError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file (or `<stdin>`).
  public var file: String
  /// The 1-based line, when the problem is on one line.
  public var line: Int?
  /// The 1-based byte column, when known.
  public var column: Int?
  /// What was found and what was expected.
  public var message: String

  public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  public var description: String {
    var place = file
    if let line { place += ":\(line)" }
    if let column { place += ":\(column)" }
    return "\(place): \(message)"
  }
}
