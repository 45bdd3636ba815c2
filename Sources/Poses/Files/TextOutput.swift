#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Buffered text output to a file descriptor: standard output, or a file it creates.
///
/// Writes go to the descriptor when 64 KiB have gathered, on `flush()`, and on deinit. Live
/// output (events in a pipe) calls `flush()` after each batch of lines.
///
/// A write that fails on its own (when the buffer fills, inside `write`) is not lost: the first
/// such error is kept and thrown by the next `flush()` or `close()`, so a file with a gap in it
/// (a full disk) is never taken for a whole one.
public final class TextOutput {
  private var descriptor: Int32
  private let closesDescriptor: Bool
  private var pending: [UInt8] = []
  /// The first write that failed since the last `flush()` or `close()` threw.
  private var failure: PoseFileError?
  public let name: String

  public init(descriptor: Int32, name: String, closing: Bool = false) {
    self.descriptor = descriptor
    self.name = name
    closesDescriptor = closing
    pending.reserveCapacity(64 * 1024)
  }

  /// Creates (or truncates) `path` for writing.
  public convenience init(creating path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw PoseFileError(file: path, message: "cannot create: \(String(cString: strerror(errno)))")
    }
    self.init(descriptor: descriptor, name: path, closing: true)
  }

  public static func standardOutput() -> TextOutput { TextOutput(descriptor: 1, name: "<stdout>") }

  deinit {
    try? close()
  }

  public func write(_ text: String) {
    var text = text
    text.withUTF8 { pending.append(contentsOf: $0) }
    if pending.count >= 64 * 1024 {
      do { try flush() } catch { failure = failure ?? (error as? PoseFileError) }
    }
  }

  public func writeLine(_ text: String) {
    write(text)
    pending.append(0x0A)
  }

  /// Writes out what is buffered.
  ///
  /// - Throws: `PoseFileError` for this write, or for an earlier one that failed inside
  ///   `write` (the first of them).
  public func flush() throws {
    if let failure {
      self.failure = nil
      pending.removeAll(keepingCapacity: true)
      throw failure
    }
    var offset = 0
    while offset < pending.count {
      let written = pending.withUnsafeBytes {
        systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        pending.removeAll(keepingCapacity: true)
        throw PoseFileError(
          file: name, message: "write failed: \(String(cString: strerror(errno)))")
      }
      offset += written
    }
    pending.removeAll(keepingCapacity: true)
  }

  /// Flushes, then closes the descriptor if this output opened it; nothing is written after.
  ///
  /// - Throws: `PoseFileError` for a write that failed (`flush()`), or when the file cannot be
  ///   closed (some file systems report a failed write only then).
  public func close() throws {
    guard descriptor >= 0 else { return }
    defer { descriptor = -1 }
    var failed: Error?
    do { try flush() } catch { failed = error }
    if closesDescriptor, systemClose(descriptor) != 0, failed == nil {
      failed = PoseFileError(
        file: name, message: "close failed: \(String(cString: strerror(errno)))")
    }
    if let failed { throw failed }
  }
}

/// The C library's write(2), named apart from `TextOutput.write(_:)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}

/// The C library's close(2), named apart from `TextOutput.close()`.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
