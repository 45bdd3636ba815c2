import Foundation
import Poses

#if canImport(Glibc)
  import Glibc
#endif

/// One client of the daemon: its bytes in and out, and its session once the header came.
final class Connection {
  let fd: Int32
  let name: String
  unowned let daemon: Daemon
  var lastActivity: Double
  /// The client closed its side: no more lines will come; the events still go out.
  var inputEnded = false
  /// The socket failed (or the client is gone): nothing more can be sent.
  var closed = false
  /// Received bytes: the whole lines waiting to be handled (without their newlines), then the
  /// line still arriving, from `partialStart`. One buffer, reused, so a frame costs no
  /// allocation on its way in.
  private var received: [UInt8] = []
  /// Where each waiting line lies in `received`, oldest first.
  private var lines: [Range<Int>] = []
  private var partialStart = 0
  private var lineNumber = 0
  /// Bytes of the current line thrown away because it was too long.
  private var discarding = 0
  var output: [UInt8] = []
  private(set) var session: Session?
  private var decoder: PoseLineDecoder?
  private var frame = PeopleFrame()
  private var dropped = 0
  private var outputDropped = 0

  init(fd: Int32, name: String, now: Double, daemon: Daemon) {
    self.fd = fd
    self.name = name
    self.daemon = daemon
    lastActivity = now
  }

  /// Takes received bytes, splitting lines; a line over `maxLine` bytes is discarded and named.
  func receive(_ bytes: ArraySlice<UInt8>, maxLine: Int) {
    for byte in bytes {
      if byte == 0x0A {
        lineNumber += 1
        if discarding > 0 {
          processPending()  // the lines before it answer first, in order
          daemon.countError()
          send(
            .error(
              t: nil, line: lineNumber,
              message:
                "line is \(discarding) bytes long; the limit is \(maxLine) bytes, so it was skipped"
            ))
          discarding = 0
        } else {
          lines.append(partialStart..<received.count)
          partialStart = received.count
        }
        continue
      }
      if discarding > 0 {
        discarding += 1
      } else if received.count - partialStart >= maxLine {
        discarding = received.count - partialStart + 1
        received.removeSubrange(partialStart...)
      } else {
        received.append(byte)
      }
    }
  }

  /// The client closed its side: a last line without its newline still counts.
  func endInput() {
    if discarding == 0 && received.count > partialStart {
      lineNumber += 1
      lines.append(partialStart..<received.count)
      partialStart = received.count
    }
    inputEnded = true
  }

  /// Frames that may wait at once (half a second at 30 fps): beyond them, the older are late.
  static let backlog = 15

  /// Handles the waiting lines. When more frames wait than `backlog`, the older ones are late
  /// and dropped: the newest poses win, so a server that fell behind catches up instead of
  /// queueing without bound. A server that keeps up drops nothing, however fast a client sends.
  func processPending() {
    guard !lines.isEmpty else { return }
    received.withUnsafeBufferPointer { all in
      func line(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: all[lines[index]])
      }
      let firstNumber = lineNumber - lines.count + 1
      var framesSeen = 0
      var keepFrom = Int.max  // the index of the first frame line kept
      for index in stride(from: lines.count - 1, through: 0, by: -1)
      where Self.looksLikeFrame(line(index)) {
        framesSeen += 1
        if framesSeen <= Self.backlog { keepFrom = index }
      }
      for index in lines.indices {
        handle(line(index), number: firstNumber + index, late: index < keepFrom)
      }
    }
    // Keep only the line still arriving, moved to the front (no allocation).
    received.removeSubrange(0..<partialStart)
    partialStart = 0
    lines.removeAll(keepingCapacity: true)
  }

  /// One whole line: a stats command, the header, or a frame (dropped if `late`).
  private func handle(_ line: UnsafeBufferPointer<UInt8>, number: Int, late: Bool) {
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
    if Self.isStatsCommand(line) {
      write(daemon.statsLine())
      return
    }
    guard let session, decoder != nil else {
      startSession(line, number: number)
      return
    }
    if late && Self.looksLikeFrame(line) {
      dropped += 1
      daemon.countDropped(1)
      return
    }
    switch decoder!.decode(line, line: number, into: &frame) {  // in place: it keeps state
    case .frame:
      daemon.countFrame()
      session.push(frame) { send($0) }
    case .skipped(let error):
      daemon.countError()
      session.reportBadLine(error) { send($0) }
    case .end: break
    }
  }

  private func startSession(_ line: UnsafeBufferPointer<UInt8>, number: Int) {
    do {
      let header = try PoseFileHeader(line: line, file: name)
      decoder = PoseLineDecoder(header: header, name: name)
      session = daemon.makeSession()
    } catch {
      daemon.countError()
      send(
        .error(
          t: nil, line: number,
          message:
            "\(error); the first line must be a pose-file header such as \(PoseFileHeader.example)")
      )
    }
  }

  /// Ends the session (if any): the exercise under way, the summary to the client and the
  /// history.
  func finish() {
    guard let session else { return }
    var summary: [(name: String, reps: Int, activeSeconds: Double)] = []
    session.finish(
      emit: { event in
        send(event)
        if case .summary(_, let exercises, _) = event { summary = exercises }
      }, extra: ["dropped_frames": Double(dropped), "dropped_events": Double(outputDropped)])
    daemon.record(summary, source: "spotter serve, \(name)")
    self.session = nil
  }

  func send(_ event: SpotterEvent) { write(event.jsonLine) }

  private func write(_ line: String) {
    guard output.count < daemon.configuration.maxPendingOutput else {
      outputDropped += 1
      return
    }
    output.append(contentsOf: line.utf8)
    output.append(0x0A)
    flush()
  }

  /// Writes what the socket takes now; the rest waits for the next POLLOUT.
  func flush() {
    var written = 0
    while written < output.count {
      let count = output.withUnsafeBytes {
        Glibc.write(fd, $0.baseAddress! + written, $0.count - written)
      }
      if count > 0 {
        written += count
        continue
      }
      if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
      if count < 0 && errno == EINTR { continue }
      closed = true
      break
    }
    output.removeFirst(written)
  }

  static func looksLikeFrame(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
    // Frames carry "pose" or "people"; headers carry "spotter". A cheap test, exact enough to
    // choose what to drop: a frame that slips by is decoded, not lost.
    guard let first = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
      line[first] == UInt8(ascii: "{")
    else { return false }
    return !contains(line, "\"spotter\"") && !contains(line, "\"cmd\"")
  }

  static func isStatsCommand(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
    contains(line, "\"cmd\"") && contains(line, "\"stats\"")
  }

  private static func contains(_ line: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
    let needle = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    guard line.count >= needle.count else { return false }
    for start in 0...(line.count - needle.count) where line[start] == needle[0] {
      var match = true
      for offset in 1..<needle.count where line[start + offset] != needle[offset] {
        match = false
        break
      }
      if match { return true }
    }
    return false
  }
}
