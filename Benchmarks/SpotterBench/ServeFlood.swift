import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench serve --flood N`: one more client, 5 s into the run, sends N
/// `{"cmd":"stats"}` without reading (until the daemon stops taking them: it reads no more
/// from a client whose replies wait past its output limit), then reads every reply while it
/// sends the rest. The other clients' frame-to-event latency while it drains says whether one
/// client's backlog of replies takes their time (README, "Serving many streams").
struct ServeFlood {
  let commands: Int
  let startAt: Double
  private var fd: Int32 = -1
  private var outgoing: [UInt8] = []
  private var sent = 0
  private var replies = 0
  /// When sending last made progress: reading starts once the daemon has taken none for 1 s.
  private var lastProgress = 0.0
  /// When it began reading, and ended, with how many latencies the others had by then.
  private(set) var drain: (start: Double, startIndex: Int)?
  private(set) var end: (time: Double, index: Int)?

  init(commands: Int, startAt: Double) {
    self.commands = commands
    self.startAt = startAt
  }

  /// One round: connects when its time has come, sends, and once it reads, reads what waits.
  mutating func step(
    at time: Double, latencies: Int, connect: () throws -> Int32, buffer: inout [UInt8]
  ) {
    guard end == nil, time >= startAt else { return }
    if fd < 0 {
      guard let connected = try? connect() else { return }
      fd = connected
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
      outgoing = Array(String(repeating: #"{"cmd":"stats"}"# + "\n", count: commands).utf8)
      lastProgress = time
    }
    while sent < outgoing.count {
      let count = outgoing[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      sent += count
      lastProgress = time
    }
    if drain == nil, sent == outgoing.count || time - lastProgress > 1 {
      drain = (time, latencies)
    }
    guard drain != nil else { return }
    while true {
      let count = read(fd, &buffer, buffer.count)
      guard count > 0 else { break }
      replies += buffer[0..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
    if replies >= commands {
      end = (time, latencies)
      close(fd)
    }
  }

  /// What it measured, given the others' latencies in the order measured.
  func report(latencies: [Double]) -> String {
    guard let drain else { return "flood                      never started" }
    let stop = end ?? (time: .nan, index: latencies.count)
    let during = latencies[drain.startIndex..<stop.index].sorted()
    let p99 =
      during.isEmpty ? Double.nan : during[min(during.count - 1, Int(0.99 * Double(during.count)))]
    return String(
      format:
        "flood                      %d commands, %d replies read%@; the others' p99 while it "
        + "drained %.1f ms (%d events)", commands, replies,
      end == nil ? " (not all)" : String(format: " in %.1f s", stop.time - drain.start),
      1000 * p99, during.count)
  }
}
