import Spotter

/// Connections refused (over `maxConnections`, or without the token) and not yet closed,
/// each with the time it is closed at the latest.
///
/// Closing a socket with the client's lines unread resets the connection instead of ending
/// it: the client's read fails (ECONNRESET) where it should end, and a client that sent its
/// header before it was accepted always has lines unread. So a refusal is followed by a
/// shutdown of the sending side, and what the client sends is read and thrown away until it
/// hangs up, for at most `seconds` (beyond `kept` at once, only what is there now), never
/// waiting on it.
struct Refusals {
  /// Enough for a burst of clients over the limit, and a bound on the descriptors a storm of
  /// them holds.
  static let kept = 64
  static let seconds = 1.0

  private let poller: Poller
  private var open: [FileDescriptor: Double] = [:]

  init(poller: Poller) { self.poller = poller }

  /// Tells a client it is refused, and ends the connection so that it reads the refusal and
  /// then the end of the stream.
  mutating func refuse(_ descriptor: FileDescriptor, message: String, now: Double) {
    let refusal = SpotterEvent.error(t: nil, line: nil, message: message)
    descriptor.writeAll(refusal.jsonLine + "\n")
    descriptor.shutdownWriting()
    guard !Self.discardInput(of: descriptor), open.count < Self.kept else {
      descriptor.close()
      return
    }
    open[descriptor] = now + Self.seconds
    poller.set(descriptor, read: true, write: false, adding: true)
  }

  /// Whether `descriptor` is a refused connection: then what it sent is thrown away, and it is
  /// closed once its client hung up.
  mutating func serve(_ descriptor: FileDescriptor) -> Bool {
    guard open[descriptor] != nil else { return false }
    if Self.discardInput(of: descriptor) { close(descriptor) }
    return true
  }

  /// Closes those whose time is up (`now` nil: all).
  mutating func closeExpired(now: Double?) {
    for (descriptor, deadline) in open where now.map({ $0 >= deadline }) ?? true {
      close(descriptor)
    }
  }

  private mutating func close(_ descriptor: FileDescriptor) {
    poller.remove(descriptor)
    descriptor.close()
    open[descriptor] = nil
  }

  /// Reads and throws away what a refused client sent, up to 64 KiB: true once it has hung up
  /// (or the socket failed).
  private static func discardInput(of descriptor: FileDescriptor) -> Bool {
    withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { buffer in
      for _ in 0..<16 {
        switch try? descriptor.read(into: buffer) {
        case .bytes?: continue
        case .wouldBlock?: return false
        case .end?, nil: return true
        }
      }
      return false
    }
  }
}
