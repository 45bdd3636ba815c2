import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench serve --minutes M`: the soak. Every client keeps one session open for M
/// minutes and more (`ServeLoad.Workout.repeats`), and the daemon the bench started is watched
/// minute by minute: its resident memory (VmRSS), its open descriptors, the frames it served
/// and dropped (its `stats` reply), its sessions open, and the frame-to-event latency of the
/// minute. Then the verdict on the targets of a daemon that can run for days (issue #40):
///
/// - resident memory at minute M within 10% of minute 2's: a live session's memory grows with
///   its reps, not its frames, so once every session is open and warm it barely moves;
/// - open descriptors flat: the same count at every minute from 2 on;
/// - every minute's p99 within 1.5× of minute 2's;
/// - the daemon's CPU per 1,000 frames at minute M within 1.15× of minute 2's: what a frame
///   costs (its checkpoints included) must not grow with the session.
///
/// Minute 1 is warm-up (sessions starting, the allocator and caches filling), so minute 2 is
/// the baseline. Only whole minutes in which every session was open are measured.
final class ServeSoak {
  /// One minute of the soak, as measured at its end.
  struct Minute {
    let minute: Int
    let residentKiB: Int
    let descriptors: Int
    /// From the daemon's `stats`: nil when it did not reply.
    let openSessions: Int?
    let frames: Int?
    let dropped: Int?
    /// Of the events measured in the minute, nil when none were.
    let p50: Double?
    let p99: Double?
    /// The daemon's CPU time in the minute, per 1,000 frames served; nil without frames.
    let cpuPerThousand: Double?
  }

  /// How far minute M's resident memory may be from minute 2's, as a share of it.
  static let memoryTolerance = 0.10
  /// How far any minute's p99 may be above minute 2's, as a multiple.
  static let latencyTolerance = 1.5
  /// How far minute M's CPU per frame may be above minute 2's, as a multiple.
  static let cpuTolerance = 1.15

  let minutes: Int
  let daemon: Int32
  private let connect: () throws -> Int32
  private(set) var table: [Minute] = []
  private var start: Double?
  /// Latencies already counted in an earlier minute.
  private var latenciesSeen = 0
  private var lastStats: (frames: Int, dropped: Int) = (0, 0)
  private var lastCPUSeconds = 0.0

  /// - Parameters:
  ///   - daemon: the process watched (started by the bench, so /proc/PID is readable).
  ///   - connect: a new connection to it, for its `stats`.
  init(minutes: Int, daemon: Int32, connect: @escaping () throws -> Int32) {
    self.minutes = minutes
    self.daemon = daemon
    self.connect = connect
  }

  /// Called after every round of the load: at each whole minute since the first call, up to
  /// `minutes`, measures the daemon and prints the minute's line.
  func observe(at time: Double, latencies: [Double]) {
    guard let start else {
      start = time
      lastCPUSeconds = ProcessFigures.cpuSeconds(daemon)
      print(Self.heading)
      fflush(nil)
      return
    }
    guard table.count < minutes, time >= start + 60 * Double(table.count + 1) else { return }
    // The descriptors before the `stats` connection adds one.
    let resident = ProcessFigures.residentKiB(daemon)
    let cpuSeconds = ProcessFigures.cpuSeconds(daemon)
    let descriptors = ProcessFigures.openDescriptors(daemon)
    let stats = Self.stats(connect)
    let frames = stats["frames"] as? Int
    let dropped = stats["dropped_frames"] as? Int
    let minute = latencies[latenciesSeen...].sorted()
    latenciesSeen = latencies.count
    func percentile(_ p: Double) -> Double? {
      minute.isEmpty ? nil : minute[min(minute.count - 1, Int(p * Double(minute.count)))]
    }
    let served = frames.map { $0 - lastStats.frames }
    let row = Minute(
      minute: table.count + 1, residentKiB: resident, descriptors: descriptors,
      openSessions: stats["open_sessions"] as? Int, frames: served,
      dropped: dropped.map { $0 - lastStats.dropped }, p50: percentile(0.5), p99: percentile(0.99),
      cpuPerThousand: served.flatMap {
        $0 > 0 ? 1e6 * (cpuSeconds - lastCPUSeconds) / Double($0) : nil
      })
    lastStats = (frames ?? lastStats.frames, dropped ?? lastStats.dropped)
    lastCPUSeconds = cpuSeconds
    table.append(row)
    print(Self.line(row))
    fflush(nil)  // each minute out as it is measured, also into a pipe
  }

  static let heading =
    "minute  resident MiB  descriptors  sessions  frames served  dropped  p50 ms  p99 ms"
    + "  CPU ms/1k frames"

  static func line(_ row: Minute) -> String {
    func column(_ text: String, _ width: Int) -> String {
      String(repeating: " ", count: max(0, width - text.count)) + text
    }
    func milliseconds(_ seconds: Double?) -> String {
      seconds.map { String(format: "%.1f", 1000 * $0) } ?? "n/a"
    }
    return column("\(row.minute)", 6)
      + column(String(format: "%.1f", Double(row.residentKiB) / 1024), 14)
      + column("\(row.descriptors)", 13) + column(row.openSessions.map(String.init) ?? "n/a", 10)
      + column(row.frames.map(String.init) ?? "n/a", 15)
      + column(row.dropped.map(String.init) ?? "n/a", 9) + column(milliseconds(row.p50), 8)
      + column(milliseconds(row.p99), 8)
      + column(row.cpuPerThousand.map { String(format: "%.1f", $0) } ?? "n/a", 18)
  }

  /// Prints which targets held, with their figures; true when all did.
  func verdict() -> Bool {
    guard table.count == minutes, minutes >= 3 else {
      print("soak verdict               FAILED: \(table.count) of \(minutes) minutes measured")
      return false
    }
    let baseline = table[1]
    let rows = table[1...]
    let last = table[minutes - 1]

    let growth = Double(last.residentKiB - baseline.residentKiB) / Double(baseline.residentKiB)
    let memoryHeld = abs(growth) <= Self.memoryTolerance
    print(
      String(
        format:
          "resident memory            %@: minute 2 %.1f MiB, minute %d %.1f MiB (%+.1f%%; at most "
          + "±%.0f%%), %+.2f MiB a minute over minutes 2–%d",
        memoryHeld ? "held" : "MISSED", Double(baseline.residentKiB) / 1024, minutes,
        Double(last.residentKiB) / 1024, 100 * growth, 100 * Self.memoryTolerance,
        Self.slope(rows.map { (Double($0.minute), Double($0.residentKiB) / 1024) }), minutes))

    let descriptors = rows.map(\.descriptors)
    let descriptorsHeld = descriptors.allSatisfy { $0 == baseline.descriptors }
    print(
      "open descriptors           \(descriptorsHeld ? "held" : "MISSED"): "
        + (descriptorsHeld
          ? "\(baseline.descriptors) at every minute from 2 to \(minutes)"
          : "\(baseline.descriptors) at minute 2, \(descriptors.min()!)–\(descriptors.max()!) "
            + "from 2 to \(minutes)"))

    let limit = baseline.p99.map { Self.latencyTolerance * $0 }
    let over = rows.filter { row in
      guard let limit, let p99 = row.p99 else { return true }
      return p99 > limit
    }
    let p99s = rows.compactMap(\.p99)
    let latencyHeld = over.isEmpty
    print(
      "p99 per minute             \(latencyHeld ? "held" : "MISSED"): minute 2 "
        + (baseline.p99.map { String(format: "%.1f ms", 1000 * $0) } ?? "n/a")
        + String(
          format: ", minutes 2–%d %.1f–%.1f ms (at most %.1f×)", minutes,
          1000 * (p99s.min() ?? 0), 1000 * (p99s.max() ?? 0), Self.latencyTolerance)
        + (over.isEmpty
          ? "" : "; over in minutes \(over.map { "\($0.minute)" }.joined(separator: ", "))"))

    // Frames dropped: the daemon fell behind its clients (a busy machine, or more clients than
    // it holds), and that minute's p99 measures the catching up.
    let behind = rows.filter { ($0.dropped ?? 0) > 0 }
    if !behind.isEmpty {
      print(
        "frames dropped             in minutes \(behind.map { "\($0.minute)" }.joined(separator: ", "))"
          + ": the daemon fell behind"
          + ((baseline.dropped ?? 0) > 0 ? ", so minute 2's p99 is no fair baseline" : ""))
    }

    let cpuHeld: Bool
    if let first = baseline.cpuPerThousand, let end = last.cpuPerThousand {
      cpuHeld = end <= Self.cpuTolerance * first
      print(
        String(
          format:
            "CPU per 1,000 frames       %@: minute 2 %.1f ms, minute %d %.1f ms (at most %.2f×), "
            + "%+.2f ms a minute over minutes 2–%d", cpuHeld ? "held" : "MISSED", first, minutes,
          end, Self.cpuTolerance,
          Self.slope(
            rows.compactMap { row in row.cpuPerThousand.map { (Double(row.minute), $0) } }),
          minutes))
    } else {
      cpuHeld = false
      print("CPU per 1,000 frames       MISSED: not measured (no frames served)")
    }

    let held = memoryHeld && descriptorsHeld && latencyHeld && cpuHeld
    print("soak verdict               \(held ? "held" : "FAILED")")
    return held
  }

  /// The least-squares slope of `points`.
  static func slope(_ points: [(x: Double, y: Double)]) -> Double {
    let n = Double(points.count)
    let meanX = points.reduce(0) { $0 + $1.x } / n
    let meanY = points.reduce(0) { $0 + $1.y } / n
    let covariance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
    let variance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
    return variance > 0 ? covariance / variance : 0
  }

  /// A daemon's `stats` reply over a new connection (`{"cmd":"stats"}`), waiting at most 5 s;
  /// empty when it cannot be had.
  static func stats(_ connect: () throws -> Int32) -> [String: Any] {
    guard let fd = try? connect() else { return [:] }
    defer { close(fd) }
    let command = Array("{\"cmd\":\"stats\"}\n".utf8)
    guard command.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == command.count else {
      return [:]
    }
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while !reply.contains(0x0A), poll(&waiting, 1, 5000) > 0 {
      let count = read(fd, &buffer, buffer.count)
      guard count > 0 else { break }
      reply += buffer[0..<count]
    }
    guard let newline = reply.firstIndex(of: 0x0A) else { return [:] }
    return
      (try? JSONSerialization.jsonObject(with: Data(reply[..<newline])) as? [String: Any]) ?? [:]
  }
}
