#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Splits a byte stream into lines, with a size limit: the one line framing that every reader
/// of lines in Spotter uses (pose files, standard input, the daemon's connections).
///
/// Bytes come in through `fill`, from whatever produces them (a file, a socket); whole lines
/// come out of `next()`, without their newline (and without a trailing `\r`). A line longer
/// than `maxLineLength` is not kept: its bytes are thrown away as they arrive, and it comes out
/// as `.tooLong` with its full length, so the caller can name it and go on. When the input
/// ends (`finish()`), what is left is a last line without a newline, and is still a line, or
/// still too long.
///
/// Lines handed out point into the splitter's buffer and stay valid until `release()`, so a
/// caller may look at several lines before handling them (the daemon drops the older of many
/// waiting frames). The buffer grows only while released bytes and the line still arriving do
/// not fit; in a steady stream it is allocated once.
///
/// A burst gives its memory back. A reader that fell behind (a daemon on a busy machine) takes
/// what waited in one read, deep into the buffer, and those pages would stay resident for as
/// long as the splitter lives, though a steady stream never reaches them again: 50 KiB a
/// connection after a 3 s stall. Once the burst's lines are released, the pages it touched past
/// `steadyBytes` (and past the bytes still held) go back to the system (`madvise(2)`,
/// `MADV_DONTNEED`). A reader whose reads are all that large (a file, frames of many people)
/// would give back and touch again each time: when it needs to give back again within
/// `fillsOfABurst` fills, its floor doubles instead (up to the buffer's size), so it pays once.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
public final class LineSplitter {
  public enum Line {
    /// A line's bytes, valid until `release()`.
    case text(UnsafeBufferPointer<UInt8>)
    /// A line over the limit, with its full length in bytes.
    case tooLong(length: Int)
  }

  /// 1 MiB: a frame of 20 people in BODY_25 is about 40 KB, so a line past this is not a frame.
  public static let defaultMaxLineLength = 1 << 20

  public let maxLineLength: Int
  /// The free space `fill` offers at least.
  public let readSize: Int
  /// The 1-based number of the line last returned by `next()`.
  @exclusivity(unchecked) public private(set) var lineNumber = 0
  /// Whether `finish()` was called: no more bytes will come.
  @exclusivity(unchecked) public private(set) var isFinished = false
  @exclusivity(unchecked) private var buffer: UnsafeMutableBufferPointer<UInt8>
  /// Buffers outgrown while lines in them were still handed out: freed at `release()`.
  @exclusivity(unchecked) private var retired: [UnsafeMutableBufferPointer<UInt8>] = []
  /// Bytes before `released` may be reused; lines from `released` to `start` are handed out.
  @exclusivity(unchecked) private var released = 0
  /// The first byte not yet split into a line.
  @exclusivity(unchecked) private var start = 0
  /// The end of the bytes received.
  @exclusivity(unchecked) private var end = 0
  /// Bytes of an over-long line thrown away so far (0 when none is under way).
  @exclusivity(unchecked) private var skipped = 0
  /// How deep into the buffer reads have written since pages were last given back.
  @exclusivity(unchecked) private var touched = 0
  /// Pages past this many bytes are given back after a burst; doubled for a reader whose reads
  /// are all that large.
  @exclusivity(unchecked) private(set) var keptBytes = LineSplitter.steadyBytes
  /// Fills since pages were last given back.
  @exclusivity(unchecked) private var fillsSinceGiveBack = Int.max / 2
  /// Bytes given back to the system so far (for tests).
  @exclusivity(unchecked) package private(set) var bytesGivenBack = 0

  /// 8 KiB: a steady stream reads a frame or a few at a time (a frame of one person is about
  /// 1.5 KB in JSON), so only a burst reaches past it.
  public static let steadyBytes = 8 * 1024
  /// A reader that needs pages back again within this many fills reads that much as a rule.
  static let fillsOfABurst = 64

  /// - Parameter readSize: the bytes `fill` offers its reader at least, beyond a line's worth.
  public init(maxLineLength: Int = defaultMaxLineLength, readSize: Int = 64 * 1024) {
    precondition(maxLineLength > 0 && readSize > 0)
    self.maxLineLength = maxLineLength
    self.readSize = readSize
    buffer = .allocate(capacity: maxLineLength + 1 + readSize)
  }

  deinit {
    buffer.deallocate()
    for old in retired { old.deallocate() }
  }

  /// Bytes received and not yet split into lines.
  public var pendingBytes: Int { end - start + skipped }

  /// Lets `read` write into the free end of the buffer (at least `readSize` bytes, after
  /// making room); `read` returns how many bytes it wrote (0 or less: none). `read` must not
  /// use this splitter: the buffer it writes into may move.
  ///
  /// - Returns: what `read` returned.
  @discardableResult
  public func fill(_ read: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
    makeRoom()
    let free = UnsafeMutableRawBufferPointer(
      rebasing: UnsafeMutableRawBufferPointer(buffer)[end...])
    let count = try read(free)
    if count > 0 {
      end += count
      touched = max(touched, end)
    }
    fillsSinceGiveBack += 1
    return count
  }

  /// Appends bytes received elsewhere.
  public func append(_ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
      fill { free in
        let count = min(free.count, bytes.count - offset)
        free.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
        offset += count
        return count
      }
      // Split as we go, so an over-long line is thrown away instead of held.
      dropOverlongPrefix()
    }
  }

  /// The input has ended: what is left is a last line.
  public func finish() { isFinished = true }

  /// The next whole line, or nil until more bytes come (or, after `finish()`, at the end).
  public func next() -> Line? {
    if let newline = firstNewline() {
      let length = newline - start
      let lineStart = start
      start = newline + 1
      lineNumber += 1
      if skipped > 0 || length > maxLineLength {
        defer { skipped = 0 }
        return .tooLong(length: skipped + length)
      }
      return .text(trimmed(lineStart, newline))
    }
    dropOverlongPrefix()
    guard isFinished, start < end || skipped > 0 else { return nil }
    let lineStart = start
    start = end
    lineNumber += 1
    if skipped > 0 {
      defer { skipped = 0 }
      return .tooLong(length: skipped + end - lineStart)
    }
    return .text(trimmed(lineStart, end))
  }

  /// The lines handed out are no longer needed: their bytes may be reused.
  public func release() {
    released = start
    for old in retired { old.deallocate() }
    retired.removeAll()
  }

  /// The bytes received and not yet split, without consuming them (for sniffing a format).
  public var unsplitBytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: buffer[start..<end])
  }

  /// Drops `count` bytes received and not yet split, such as a byte order mark before the first
  /// line.
  func skipUnsplit(_ count: Int) {
    precondition(count <= end - start, "cannot skip \(count) of \(end - start) unsplit bytes")
    start += count
  }

  /// Whether the bytes still arriving are already more than a line may hold.
  public var holdsMoreThanALine: Bool { end - start > maxLineLength }

  /// A line under way past the limit: its bytes are counted and let go.
  private func dropOverlongPrefix() {
    guard firstNewline() == nil, skipped > 0 || end - start > maxLineLength else { return }
    skipped += end - start
    end = start
  }

  /// Moves the bytes still needed (handed-out lines not released, and the line under way) to
  /// the front, and grows the buffer if a read would not fit.
  private func makeRoom() {
    if released > 0 {
      let kept = end - released
      if kept > 0 {
        buffer.baseAddress!.update(from: buffer.baseAddress! + released, count: kept)
      }
      start -= released
      end -= released
      released = 0
      giveBackBurst()
    }
    guard buffer.count - end < readSize else { return }
    let larger = UnsafeMutableBufferPointer<UInt8>.allocate(
      capacity: max(2 * buffer.count, end + readSize))
    larger.baseAddress!.update(from: buffer.baseAddress!, count: end)
    // Lines handed out may still point into the old buffer: it lives until they are released.
    if released < start { retired.append(buffer) } else { buffer.deallocate() }
    buffer = larger
    touched = end
  }

  /// After a burst, with what is still held moved to the front: the whole pages between the
  /// bytes kept (`keptBytes`, or those still held if more) and the deepest byte written go back
  /// to the system, unless the last burst was only `fillsOfABurst` fills ago (then the floor
  /// doubles instead). The buffer's bytes past `end` are never read before they are written,
  /// so what they read as afterwards (zeros, on Linux) does not matter. Only whole pages inside
  /// the buffer are given: the allocator's own bytes around it are untouched.
  private func giveBackBurst() {
    let page = Self.pageSize
    let base = UnsafeMutableRawPointer(buffer.baseAddress!)
    let from = (Int(bitPattern: base) + max(end, keptBytes) + page - 1) / page * page
    let to = (Int(bitPattern: base) + touched) / page * page
    guard to - from >= 4 * page else { return }
    if fillsSinceGiveBack < Self.fillsOfABurst {
      keptBytes = min(2 * keptBytes, buffer.count)
      return
    }
    if madvise(UnsafeMutableRawPointer(bitPattern: from), to - from, MADV_DONTNEED) == 0 {
      bytesGivenBack += to - from
    }
    touched = max(end, keptBytes)
    fillsSinceGiveBack = 0
  }

  private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

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
}
