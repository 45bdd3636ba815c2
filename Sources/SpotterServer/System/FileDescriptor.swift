#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A system call that failed: which call, and the reason `errno` gave.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What was being done, e.g. `read()` or `listen on /tmp/spotter.sock`.
  public var call: String
  public var code: Int32

  public init(_ call: String, code: Int32 = errno) {
    self.call = call
    self.code = code
  }

  public var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// An open descriptor the daemon owns (a listening socket or a connection), with the calls
/// made on it. With `Socket`, `Poller` and `SignalFlags`, the only place the server touches
/// the C library, on Linux and Darwin alike.
struct FileDescriptor: Hashable, Sendable {
  let rawValue: Int32

  enum ReadResult: Equatable {
    case bytes(Int)
    /// The other side closed its end.
    case end
    /// Nothing to read now (non-blocking).
    case wouldBlock
  }

  /// Reads what is there into `buffer`; retries when a signal interrupts.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
    while true {
      let count = systemRead(rawValue, buffer.baseAddress, buffer.count)
      if count > 0 { return .bytes(count) }
      if count == 0 { return .end }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      default: throw SystemError("read()")
      }
    }
  }

  /// Writes what the descriptor takes now: the bytes written, 0 when it would block.
  func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
    while true {
      let count = systemWrite(rawValue, bytes.baseAddress, bytes.count)
      if count >= 0 { return count }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return 0
      default: throw SystemError("write()")
      }
    }
  }

  /// Writes all of `text`, blocking: for a short reply on a descriptor about to be closed.
  func writeAll(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let count = bytes.withUnsafeBytes { systemWrite(rawValue, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      bytes = bytes.dropFirst(count)
    }
  }

  func close() { _ = systemClose(rawValue) }

  func setNonBlocking() {
    let flags = fcntl(rawValue, F_GETFL, 0)
    _ = fcntl(rawValue, F_SETFL, flags | O_NONBLOCK)
  }
}

/// `poll(2)` over a list of descriptors, reused round after round.
struct Poller {
  private var entries: [pollfd] = []

  struct Readiness {
    var readable: Bool
    var writable: Bool
    /// Hung up or failed: reading will tell which.
    var closed: Bool
  }

  mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

  mutating func add(_ descriptor: FileDescriptor, read: Bool, write: Bool) {
    let events = (read ? Int16(POLLIN) : 0) | (write ? Int16(POLLOUT) : 0)
    entries.append(pollfd(fd: descriptor.rawValue, events: events, revents: 0))
  }

  /// Waits up to `milliseconds` for any descriptor to be ready. A signal ends the wait early
  /// and is not an error.
  mutating func wait(milliseconds: Int32) throws(SystemError) {
    let ready = poll(&entries, nfds_t(entries.count), milliseconds)
    if ready < 0 && errno != EINTR { throw SystemError("poll()") }
  }

  /// Calls `body` with each descriptor that is ready, and how.
  func forEachReady(_ body: (FileDescriptor, Readiness) throws -> Void) rethrows {
    for entry in entries where entry.revents != 0 {
      let readiness = Readiness(
        readable: entry.revents & Int16(POLLIN) != 0,
        writable: entry.revents & Int16(POLLOUT) != 0,
        closed: entry.revents & Int16(POLLHUP | POLLERR) != 0)
      try body(FileDescriptor(rawValue: entry.fd), readiness)
    }
  }
}

// The C calls under names of their own: the methods above share their names.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, buffer, count)
}
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
