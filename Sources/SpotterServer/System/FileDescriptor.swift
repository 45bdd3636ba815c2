#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if os(Linux)
  import CEpoll
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
/// made on it. With `Socket`, `Poller`, `SignalFlags` and `ThreadName`, the only place the
/// server touches the C library, on Linux and Darwin alike.
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

  /// Ends the sending side of a socket (`shutdown(SHUT_WR)`): the other side reads what was
  /// written, then the end of the stream, while this side can still read.
  func shutdownWriting() { _ = shutdown(rawValue, Int32(SHUT_WR)) }

  func setNonBlocking() {
    let flags = fcntl(rawValue, F_GETFL, 0)
    _ = fcntl(rawValue, F_SETFL, flags | O_NONBLOCK)
  }

  /// A pipe's two ends, non-blocking, closed on exec: a byte written to one wakes a poll on
  /// the other.
  static func pipe() throws(SystemError) -> (reader: FileDescriptor, writer: FileDescriptor) {
    var ends: [Int32] = [0, 0]
    guard systemPipe(&ends) == 0 else { throw SystemError("pipe()") }
    let (reader, writer) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    for end in [reader, writer] {
      end.setNonBlocking()
      _ = fcntl(end.rawValue, F_SETFD, FD_CLOEXEC)
    }
    return (reader, writer)
  }
}

/// Waits for descriptors to be ready. Descriptors are registered once, with what to wait
/// for, and changed only when that changes: a round costs in proportion to the descriptors
/// that are ready, not to every one registered. With hundreds of connections and a few frames
/// in each round, rebuilding a `poll(2)` list and having the kernel look at every socket was a
/// fifth of the daemon's CPU. `epoll(7)` on Linux; elsewhere `poll(2)` over the registrations.
final class Poller {
  struct Readiness {
    var readable: Bool
    var writable: Bool
    /// Hung up or failed: reading will tell which.
    var closed: Bool
  }

  #if os(Linux)
    private let epoll: Int32
    @exclusivity(unchecked) private var events: [epoll_event]
    @exclusivity(unchecked) private var readyCount = 0

    init() throws(SystemError) {
      epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
      guard epoll >= 0 else { throw SystemError("epoll_create1()") }
      events = Array(repeating: epoll_event(), count: 1024)
    }

    func close() { _ = systemClose(epoll) }

    /// Starts (`adding`) or changes what `descriptor` is waited for.
    func set(_ descriptor: FileDescriptor, read: Bool, write: Bool, adding: Bool) {
      var event = epoll_event()
      event.events =
        (read ? EPOLLIN.rawValue : 0) | (write ? EPOLLOUT.rawValue : 0)
      event.data.fd = descriptor.rawValue
      let result = epoll_ctl(
        epoll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, descriptor.rawValue, &event)
      precondition(result == 0, "epoll_ctl() on descriptor \(descriptor.rawValue): errno \(errno)")
    }

    /// Stops waiting for `descriptor` (before it is closed).
    func remove(_ descriptor: FileDescriptor) {
      _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor.rawValue, nil)
    }

    /// Waits up to `milliseconds` for any descriptor to be ready. A signal ends the wait early
    /// and is not an error.
    func wait(milliseconds: Int32) throws(SystemError) {
      let count = epoll_wait(epoll, &events, Int32(events.count), milliseconds)
      readyCount = max(0, Int(count))
      if count < 0 && errno != EINTR { throw SystemError("epoll_wait()") }
    }

    /// Calls `body` with each descriptor that is ready, and how.
    func forEachReady(_ body: (FileDescriptor, Readiness) throws -> Void) rethrows {
      for index in 0..<readyCount {
        let flags = events[index].events
        let readiness = Readiness(
          readable: flags & EPOLLIN.rawValue != 0, writable: flags & EPOLLOUT.rawValue != 0,
          closed: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0)
        try body(FileDescriptor(rawValue: events[index].data.fd), readiness)
      }
    }
  #else
    private var interests: [Int32: Int16] = [:]
    private var entries: [pollfd] = []

    init() throws(SystemError) {}

    func close() {}

    /// Starts (`adding`) or changes what `descriptor` is waited for.
    func set(_ descriptor: FileDescriptor, read: Bool, write: Bool, adding: Bool) {
      interests[descriptor.rawValue] = (read ? Int16(POLLIN) : 0) | (write ? Int16(POLLOUT) : 0)
    }

    /// Stops waiting for `descriptor` (before it is closed).
    func remove(_ descriptor: FileDescriptor) { interests[descriptor.rawValue] = nil }

    /// Waits up to `milliseconds` for any descriptor to be ready. A signal ends the wait early
    /// and is not an error.
    func wait(milliseconds: Int32) throws(SystemError) {
      entries.removeAll(keepingCapacity: true)
      for (fd, events) in interests { entries.append(pollfd(fd: fd, events: events, revents: 0)) }
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
  #endif
}

// The C calls under names of their own: the methods above share their names.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, buffer, count)
}
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemPipe(_ ends: inout [Int32]) -> Int32 { pipe(&ends) }
