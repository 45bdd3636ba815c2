/// Reads the JSON Lines pose format (README, "Pose files") as a stream: a header line, then one
/// frame per line. A bad frame line is reported and skipped; a bad header stops the file.
public final class JSONLinesPoseReader: PoseSource {
  public let header: PoseFileHeader
  public let name: String
  private let lines: LineReader
  private var decoder: PoseLineDecoder

  /// Starts reading `lines`, whose first line must be the header.
  ///
  /// - Throws: `PoseFileError` for an empty input, an over-long or invalid header.
  public init(lines: LineReader, name: String) throws {
    self.lines = lines
    self.name = name
    var headerLine: LineReader.Line?
    repeat {
      headerLine = try lines.next()
      if case .text(let text)? = headerLine, text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
        continue  // blank lines before the header are allowed
      }
      break
    } while true
    switch headerLine {
    case nil:
      throw PoseFileError(
        file: name,
        message: "the file is empty; expected a header line such as \(PoseFileHeader.example)")
    case .tooLong(let length)?:
      throw PoseFileError(
        file: name, line: lines.lineNumber,
        message: "the header line is \(length) bytes long; the limit is \(lines.maxLineLength)")
    case .text(let text)?:
      do {
        header = try PoseFileHeader(line: text, file: name)
      } catch {
        throw PoseFileError(file: name, line: lines.lineNumber, message: error.message)
      }
    }
    decoder = PoseLineDecoder(header: header, name: name)
  }

  public func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
    while true {
      guard let line = try lines.next() else { return .end }
      let number = lines.lineNumber
      switch line {
      case .tooLong(let length):
        decoder.skipLine()
        return .skipped(
          PoseFileError(
            file: name, line: number,
            message:
              "line is \(length) bytes long; the limit is \(lines.maxLineLength) bytes, so it "
              + "was skipped"
          ))
      case .text(let text):
        if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }  // blank lines are no frames
        return decoder.decode(text, line: number, into: &frame)
      }
    }
  }
}
