/// Reads the JSON Lines pose format of DESIGN §4 as a stream: a header line, then one frame per
/// line. A bad frame line is reported and skipped; a bad header stops the file.
public final class JSONLinesPoseReader: PoseSource {
  public let header: PoseFileHeader
  public let name: String
  private let lines: LineReader
  private let parser: FrameLineParser
  private var clock: FrameClock
  private var joints: [Float] = []

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
    parser = FrameLineParser(jointNames: header.layout.jointNames)
    clock = FrameClock(fps: header.fps)
    joints.reserveCapacity(header.layout.jointCount * 3 * 4)
  }

  public func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
    while true {
      guard let line = try lines.next() else { return .end }
      let number = lines.lineNumber
      let text: UnsafeBufferPointer<UInt8>
      switch line {
      case .tooLong(let length):
        _ = clock.time(stated: nil)
        return .skipped(
          PoseFileError(
            file: name, line: number,
            message:
              "line is \(length) bytes long; the limit is \(lines.maxLineLength) bytes, so it was skipped"
          ))
      case .text(let bytes):
        text = bytes
      }
      if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }  // blank lines are no frames
      let parsed: FrameLineParser.Result
      do {
        parsed = try parser.parse(text, joints: &joints)
      } catch {
        _ = clock.time(stated: nil)
        return .skipped(
          PoseFileError(file: name, line: number, column: error.column, message: error.message))
      }
      if let error = clock.stamp(&frame, stated: parsed.t, line: number, file: name) { return .skipped(error) }
      let stride = header.layout.jointCount * 3
      joints.withUnsafeBufferPointer { buffer in
        for person in 0..<parsed.people {
          let raw = UnsafeBufferPointer(rebasing: buffer[person * stride..<(person + 1) * stride])
          frame.people.append(header.layout.canonicalPose(from: raw, space: header.space))
        }
      }
      return .frame
    }
  }
}
