#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file descriptor line by line through one fixed buffer, so memory stays flat however
/// long the file, and a live pipe is read as its lines arrive.
///
/// A line longer than `maxLineLength` is not kept: it is read through to its end and reported
/// as `.tooLong` so the caller can name it and go on with the next line.
public final class LineReader {
  public enum Line {
    /// The line's bytes without the newline (and without a trailing `\r`), valid until the next
    /// call to `next()`.
    case text(UnsafeBufferPointer<UInt8>)
    /// A line over the limit, with its full length in bytes.
    case tooLong(length: Int)
  }

  /// 1 MiB: a frame of 20 people in BODY_25 is about 40 KB, so a line past this is not a frame.
  public static let defaultMaxLineLength = 1 << 20

  public let maxLineLength: Int
  /// The 1-based number of the line last returned.
  public private(set) var lineNumber = 0
  private let descriptor: Int32
  private let closesDescriptor: Bool
  private let buffer: UnsafeMutableBufferPointer<UInt8>
  private var start = 0
  private var end = 0
  private var atEnd = false

  /// Reads from an open descriptor; `closing` closes it when the reader goes away.
  public init(descriptor: Int32, closing: Bool, maxLineLength: Int = defaultMaxLineLength) {
    precondition(maxLineLength > 0)
    self.descriptor = descriptor
    self.closesDescriptor = closing
    self.maxLineLength = maxLineLength
    buffer = .allocate(capacity: maxLineLength + 1 + 64 * 1024)
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
    buffer.deallocate()
    if closesDescriptor { close(descriptor) }
  }

  /// The next line, or nil at the end of the input. Throws only when reading fails.
  public func next() throws -> Line? {
    var skipped = 0  // bytes of an over-long line already thrown away
    while true {
      if let newline = firstNewline() {
        let lineEnd = newline
        let length = lineEnd - start
        let lineStart = start
        start = newline + 1
        lineNumber += 1
        if skipped > 0 || length > maxLineLength { return .tooLong(length: skipped + length) }
        return .text(trimmed(lineStart, lineEnd))
      }
      if skipped > 0 || end - start > maxLineLength {
        skipped += end - start  // over the limit: drop what we have and keep reading to '\n'
        start = 0
        end = 0
      }
      if atEnd {
        guard start < end || skipped > 0 else { return nil }
        let lineStart = start
        start = end
        lineNumber += 1
        if skipped > 0 { return .tooLong(length: skipped + end - lineStart) }
        return .text(trimmed(lineStart, end))
      }
      try fill()
    }
  }

  /// Looks at the unread bytes without consuming them, reading more until `find` answers or the
  /// buffer holds a full line's worth.
  func peek(_ find: (UnsafeBufferPointer<UInt8>) -> UInt8?) throws -> UInt8? {
    while true {
      if let found = find(UnsafeBufferPointer(rebasing: buffer[start..<end])) { return found }
      if atEnd || end - start > maxLineLength { return nil }
      try fill()
    }
  }

  private func firstNewline() -> Int? {
    guard start < end else { return nil }
    let base = UnsafeMutableRawPointer(buffer.baseAddress! + start)
    guard let found = memchr(base, 0x0A, end - start) else { return nil }
    return start + (found - base)
  }

  private func trimmed(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
    var to = to
    if to > from && buffer[to - 1] == 0x0D { to -= 1 }
    return UnsafeBufferPointer(rebasing: buffer[from..<to])
  }

  /// Moves the unread bytes to the front and reads more after them.
  private func fill() throws {
    if start > 0 {
      let unread = end - start
      if unread > 0 {
        (buffer.baseAddress!).update(from: buffer.baseAddress! + start, count: unread)
      }
      start = 0
      end = unread
    }
    while true {
      let count = read(descriptor, buffer.baseAddress! + end, buffer.count - end)
      if count > 0 {
        end += count
        return
      }
      if count == 0 {
        atEnd = true
        return
      }
      if errno == EINTR { continue }
      throw PoseFileError(file: "", message: "read failed: \(String(cString: strerror(errno)))")
    }
  }
}
