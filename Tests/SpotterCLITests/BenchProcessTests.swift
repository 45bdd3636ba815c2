import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench` ends what it started: stopped with SIGTERM in the middle of a serve load, it
/// leaves no `spotter serve` running. A soak it cannot measure is refused before anything starts.
@Suite struct BenchProcessTests {
  /// The processes whose parent is `parent`, from /proc.
  static func children(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(pid_t.init).filter { pid in
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return false }
      // pid (comm) state ppid ...: the fields after the command's closing parenthesis.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && pid_t(fields[1]) == parent
    }
  }

  @Test func aStoppedServeLoadStopsItsDaemon() throws {
    let bench = Process()
    bench.executableURL = URL(fileURLWithPath: HistoryCommandTests.bench)
    bench.arguments = [
      "serve", "--clients", "4", "--history", "none", "--weights",
      repositoryRoot + "/Weights/default.spotter",
    ]
    bench.standardOutput = FileHandle.nullDevice
    bench.standardError = FileHandle.nullDevice
    try bench.run()
    var daemons: [pid_t] = []
    for _ in 0..<1000 where daemons.isEmpty {  // up to 20 s: drawing the workouts comes first
      usleep(20_000)
      daemons = Self.children(of: bench.processIdentifier)
    }
    #expect(!daemons.isEmpty, "the bench started no daemon")
    kill(bench.processIdentifier, SIGTERM)
    bench.waitUntilExit()
    #expect(bench.terminationStatus == 128 + SIGTERM)
    for _ in 0..<250 where daemons.contains(where: { kill($0, 0) == 0 }) { usleep(20_000) }
    let left = daemons.filter { kill($0, 0) == 0 }
    #expect(left.isEmpty, "still running: \(left)")
    for pid in left { kill(pid, SIGKILL) }
  }

  /// A soak compares every minute with minute 2, and reads the daemon's /proc: too short a
  /// soak, or one of a daemon the bench did not start, is a usage error.
  @Test(arguments: [
    (["--minutes", "2"], "3...1440"), (["--minutes", "0"], "3...1440"),
    (["--minutes", "5", "--port", "9"], "the daemon the bench starts"),
  ])
  func aSoakItCannotMeasureIsRefused(_ options: [String], _ message: String) throws {
    let result = try HistoryCommandTests.runBench(["serve"] + options)
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(result.stderr)")
  }
}
