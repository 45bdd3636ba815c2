import Poses

/// One client's socket: its descriptor, the bytes read and not yet handled, and the events not
/// yet written. What the bytes mean is its stream's (`ServedStream`), which the daemon drives.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class Connection {
  let descriptor: FileDescriptor
  /// The connection's number since the daemon started: which connection a history reply is
  /// for (a descriptor is reused once closed).
  let serial: Int
  /// The protocol the connection carries.
  let stream: ServedStream
  @exclusivity(unchecked) var lastActivity: Double
  /// The client closed its side: no more lines will come; the events still go out.
  @exclusivity(unchecked) private(set) var inputEnded = false
  /// The socket failed (or the client is gone): nothing more can be sent.
  @exclusivity(unchecked) private(set) var closed = false
  /// Received bytes, split into lines (a line over the limit comes out as too long).
  private let lines: LineSplitter
  /// Events not yet written: the stream appends to them, and they are written once a round
  /// (`flush`).
  @exclusivity(unchecked) var output: [UInt8] = []
  /// Whether `output` holds bytes, kept beside the flags the daemon reads each round: asking
  /// the array would touch its buffer, cold in a connection with nothing to send.
  @exclusivity(unchecked) var hasOutput = false
  /// Output bytes written so far.
  @exclusivity(unchecked) private(set) var bytesWritten = 0
  /// Queued with the daemon: for the round's batch of predictions, and for a write at the end
  /// of the round.
  @exclusivity(unchecked) var queuedForPrediction = false
  @exclusivity(unchecked) var queuedForFlush = false
  /// Queued with the daemon to handle the lines its stream holds, next round.
  @exclusivity(unchecked) var queuedForLines = false
  /// What the poller waits for on this connection: lines, and room to write.
  @exclusivity(unchecked) var interest = (read: true, write: false)

  init(descriptor: FileDescriptor, serial: Int, now: Double, stream: ServedStream) {
    self.descriptor = descriptor
    self.serial = serial
    self.stream = stream
    lastActivity = now
    lines = LineSplitter(maxLineLength: stream.settings.maxLineBytes)
    output.reserveCapacity(4096)
  }

  /// Lines are read while the stream takes them and the client may send them.
  var wantsInput: Bool {
    !inputEnded && stream.takesLines(pending: output.count, written: bytesWritten)
  }

  /// Bytes written to the socket in one call of `flush` at most: a client draining a large
  /// backlog of replies takes its share of a round, not the round.
  static let bytesWrittenPerFlush = 256 * 1024
  /// An output buffer grown past this (a burst of replies) is given back once written.
  static let outputKeptBytes = 64 * 1024

  /// Reads what the socket has, up to four reads a round, so one fast sender cannot hold the
  /// loop (poll reports the rest next round), and adds the whole lines to `waiting`. A read
  /// that does not fill the space offered took everything there was: the socket is not asked
  /// again in this round only to say it is empty.
  func receive(into waiting: WaitingLines, now: Double) {
    waiting.readAt = now
    for _ in 0..<4 {
      do {
        var result = FileDescriptor.ReadResult.wouldBlock
        var offered = 0
        try lines.fill { free in
          offered = free.count
          result = try descriptor.read(into: free)
          if case .bytes(let count) = result { return count }
          return 0
        }
        guard case .bytes(let count) = result else {
          if result == .end { endInput(into: waiting) }
          break
        }
        lastActivity = now
        waiting.take(from: lines)
        if count < offered { break }
      } catch {
        closed = true
        break
      }
    }
  }

  /// The client closed its side: a last line without its newline still counts, and one too
  /// long is still named.
  private func endInput(into waiting: WaitingLines) {
    lines.finish()
    waiting.take(from: lines)
    inputEnded = true
  }

  /// The lines taken (`receive`) are handled: their bytes may be reused.
  func releaseLines() { lines.release() }

  /// Writes what the socket takes now, up to `bytesWrittenPerFlush`; the rest waits for the
  /// next POLLOUT. The bytes written leave the buffer once per call (moving what is left once,
  /// not after every write).
  func flush() {
    guard hasOutput else { return }
    var offset = 0
    defer {
      output.removeFirst(offset)
      if output.isEmpty && output.capacity > Self.outputKeptBytes {
        output = []
        output.reserveCapacity(4096)
      }
      hasOutput = !output.isEmpty
    }
    do {
      while offset < output.count && offset < Self.bytesWrittenPerFlush && !closed {
        let end = min(output.count, Self.bytesWrittenPerFlush)
        let written = try output.withUnsafeBytes {
          try descriptor.write(UnsafeRawBufferPointer(rebasing: $0[offset..<end]))
        }
        guard written > 0 else { return }
        offset += written
        bytesWritten += written
      }
    } catch {
      closed = true
    }
  }
}
