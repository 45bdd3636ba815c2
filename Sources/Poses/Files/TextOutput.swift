#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Buffered text output to a file descriptor: standard output, or a file it creates.
///
/// Writes go to the descriptor when 64 KiB have gathered, on `flush()`, and on deinit. Live
/// output (events in a pipe) calls `flush()` after each batch of lines.
public final class TextOutput {
  private let descriptor: Int32
  private let closesDescriptor: Bool
  private var pending: [UInt8] = []
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
    try? flush()
    if closesDescriptor { close(descriptor) }
  }

  public func write(_ text: String) {
    var text = text
    text.withUTF8 { pending.append(contentsOf: $0) }
    if pending.count >= 64 * 1024 { try? flush() }
  }

  public func writeLine(_ text: String) {
    write(text)
    pending.append(0x0A)
  }

  public func flush() throws {
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
}

/// The C library's write(2), named apart from `TextOutput.write(_:)`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
