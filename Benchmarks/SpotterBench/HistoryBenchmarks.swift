import ActionModel
import ArgumentParsing
import Foundation
import History

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench history`: the workout history's costs, in an SQLite file of its own.
/// - appends per second, one session per transaction (as `spotter demo` stores one);
/// - appends per second in batches of 64 (as the daemon's writer commits when sessions end
///   together);
/// - appends per second from 8 processes at once (`history-append`), checked whole afterwards;
/// - `spotter history` totals per week and per day over `--sessions` stored sessions (the real
///   command, end to end, and the query alone).
enum HistoryBenchmarks {
  static let command = Command(
    name: "history",
    summary: "Time the workout history: appends per second, totals over many sessions.",
    options: [
      .value("sessions", "N", "Sessions stored before timing the totals.", default: "100000"),
      .value("appends", "N", "Sessions appended one per transaction.", default: "300"),
    ],
    run: { arguments in
      try run(
        sessions: try arguments.int("sessions", range: 1...10_000_000)!,
        appends: try arguments.int("appends", range: 1...1_000_000)!)
      return 0
    })

  static func run(sessions: Int, appends: Int) throws {
    #if DEBUG
      print("WARNING: this is a DEBUG build; its timings mean nothing. Use `make bench`.\n")
    #endif
    let folder = NSTemporaryDirectory() + "spotter-history-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    print("spotter-bench history: SQLite in \(folder) (CPU: \(Planner.cpuName))")

    // One per transaction.
    var store = try HistoryStore(.sqlite(path: folder + "/single.sqlite"))
    var start = now()
    for index in 0..<appends {
      try store.append([
        HistoryEntry(SyntheticSessions.record(seed: 1, index: index), uid: "s\(index)")
      ])
    }
    var seconds = now() - start
    print(
      String(
        format: "append, 1 session per transaction     %8.0f sessions/s (%d in %.2f s)",
        Double(appends) / seconds, appends, seconds))

    // Batches of 64, as the daemon's writer commits them.
    let batches = 40
    start = now()
    for batch in 0..<batches {
      try store.append(
        (0..<64).map { offset in
          let index = appends + batch * 64 + offset
          return HistoryEntry(SyntheticSessions.record(seed: 1, index: index), uid: "s\(index)")
        })
    }
    seconds = now() - start
    print(
      String(
        format: "append, 64 sessions per transaction   %8.0f sessions/s (%d in %.2f s)",
        Double(batches * 64) / seconds, batches * 64, seconds))

    // Processes at once.
    let (processes, each) = (8, 50)
    let shared = folder + "/shared.sqlite"
    start = now()
    let writers = try (0..<processes).map { seed in
      try spawn([
        "history-append", "--history", shared, "--sessions", "\(each)", "--seed", "\(seed)",
      ])
    }
    for writer in writers { writer.waitUntilExit() }
    seconds = now() - start
    let whole = try HistoryTools.check(
      HistoryStore(.sqlite(path: shared)), expect: processes * each, committed: nil)
    print(
      String(
        format: "append, %d processes at once          %8.0f sessions/s (%d in %.2f s; %@)",
        processes, Double(processes * each) / seconds, processes * each, seconds,
        whole.1.isEmpty ? "all whole" : "\(whole.1.count) problems"))

    // Totals over many sessions.
    let big = folder + "/big.sqlite"
    store = try HistoryStore(.sqlite(path: big))
    start = now()
    var stored = 0
    while stored < sessions {
      let count = min(2000, sessions - stored)
      try store.append(
        (stored..<(stored + count)).map {
          HistoryEntry(SyntheticSessions.record(seed: 2, index: $0), uid: "b\($0)")
        })
      stored += count
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: big)[.size] as? Int) ?? 0
    print(
      String(
        format: "stored %d sessions in %.1f s (%.0f MB)", sessions, now() - start,
        Double(size) / 1e6))
    for period in HistoryPeriod.allCases {
      let query = measure("totals per \(period.rawValue)", units: 1, unit: "query", samples: 9) {
        Double((try? store.totals(per: period).count) ?? 0)
      }
      let command = try commandSeconds([
        "history", "--history", big, "--totals", period.rawValue,
      ])
      print(
        "spotter history --totals \(period.rawValue): \(duration(command.median)) median, "
          + "\(duration(command.max)) max of \(command.runs) runs (the query alone: "
          + "\(duration(query.median)))")
    }
    let recent = try commandSeconds(["history", "--history", big])
    print("spotter history (20 recent sessions): \(duration(recent.median)) median")
  }

  /// Wall time of the real `spotter` command, over 11 runs after one warm-up.
  static func commandSeconds(_ arguments: [String]) throws -> (
    median: Double, max: Double, runs: Int
  ) {
    var times: [Double] = []
    for run in 0..<12 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: sibling("spotter"))
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      let start = now()
      try ChildProcesses.run(process)
      process.waitUntilExit()
      if run > 0 { times.append(now() - start) }
      guard process.terminationStatus == 0 else {
        throw LocalServers.Failure(description: "spotter \(arguments) failed")
      }
    }
    times.sort()
    return (times[times.count / 2], times.last!, times.count)
  }

  /// A program next to this one (`spotter`, `spotter-bench`).
  static func sibling(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent(name).path
  }

  static func spawn(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: sibling("spotter-bench"))
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try ChildProcesses.run(process)
    return process
  }
}
