#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file descriptor line by line through a `LineSplitter`, so memory stays flat however
/// long the file, and a live pipe is read as its lines arrive.
///
/// A line longer than `maxLineLength` is not kept: it is read through to its end and reported
/// as `.tooLong` so the caller can name it and go on with the next line.
public final class LineReader {
  public typealias Line = LineSplitter.Line

  public static let defaultMaxLineLength = LineSplitter.defaultMaxLineLength

  public var maxLineLength: Int { lines.maxLineLength }
  /// The 1-based number of the line last returned.
  public var lineNumber: Int { lines.lineNumber }
  private let descriptor: Int32
  private let closesDescriptor: Bool
  private let lines: LineSplitter

  /// Reads from an open descriptor; `closing` closes it when the reader goes away.
  public init(descriptor: Int32, closing: Bool, maxLineLength: Int = defaultMaxLineLength) {
    self.descriptor = descriptor
    self.closesDescriptor = closing
    lines = LineSplitter(maxLineLength: maxLineLength)
  }

  /// Opens `path` for reading.
  public convenience init(path: String, maxLineLength: Int = defaultMaxLineLength) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw PoseFileError(file: path, message: "cannot open: \(String(cString: strerror(errno)))")
    }
    self.init(descriptor: descriptor, closing: true, maxLineLength: maxLineLength)
  }

  deinit {
    if closesDescriptor { close(descriptor) }
  }

  /// The next line (valid until the next call), or nil at the end of the input. Throws only
  /// when reading fails.
  public func next() throws -> Line? {
    lines.release()
    while true {
      if let line = lines.next() { return line }
      if lines.isFinished { return nil }
      try fill()
    }
  }

  /// Looks at the unread bytes without consuming them, reading more until `find` answers or the
  /// buffer holds a full line's worth.
  func peek<Answer>(_ find: (UnsafeBufferPointer<UInt8>) -> Answer?) throws -> Answer? {
    while true {
      if let found = find(lines.unsplitBytes) { return found }
      if lines.isFinished || lines.holdsMoreThanALine { return nil }
      try fill()
    }
  }

  /// Drops a UTF-8 byte order mark (EF BB BF) at the start of the input, which editors on
  /// Windows write: it is no part of the first line. Call it before reading any line.
  func skipByteOrderMark() throws {
    let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
    let marked = try peek { bytes in bytes.count >= mark.count ? bytes.starts(with: mark) : nil }
    if marked == true { lines.skipUnsplit(mark.count) }
  }

  private func fill() throws {
    while true {
      let count = lines.fill { free in read(descriptor, free.baseAddress!, free.count) }
      if count > 0 { return }
      if count == 0 {
        lines.finish()
        return
      }
      if errno == EINTR { continue }
      throw PoseFileError(file: "", message: "read failed: \(String(cString: strerror(errno)))")
    }
  }
}
