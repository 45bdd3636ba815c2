import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What Linux says of a running process, from /proc (proc(5)): its CPU time, its resident
/// memory now and at its peak, and its open descriptors. Each reads once and returns 0 when
/// the process is gone or the file cannot be read.
enum ProcessFigures {
  /// User plus system CPU seconds, from /proc/PID/stat.
  static func cpuSeconds(_ pid: Int32) -> Double { cpuSeconds(statFile: "/proc/\(pid)/stat") }

  /// The CPU seconds of each of the daemon's workers (its threads named `worker N`, in order
  /// of N), from /proc/PID/task/TID/stat.
  static func workerCPUSeconds(_ pid: Int32) -> [Double] {
    let tasks = "/proc/\(pid)/task"
    var byWorker: [Int: Double] = [:]
    for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
      guard
        let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8),
        name.hasPrefix("worker "),
        let index = Int(
          name.dropFirst("worker ".count).trimmingCharacters(in: .whitespacesAndNewlines))
      else { continue }
      byWorker[index] = cpuSeconds(statFile: "\(tasks)/\(thread)/stat")
    }
    return byWorker.keys.sorted().map { byWorker[$0]! }
  }

  /// User plus system CPU seconds in a stat file of proc(5).
  private static func cpuSeconds(statFile: String) -> Double {
    guard let text = try? String(contentsOfFile: statFile, encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3, utime 14 and stime 15 (1-based, proc(5)).
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return 0
    }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// The resident set now (VmRSS), in KiB.
  static func residentKiB(_ pid: Int32) -> Int { statusKiB(pid, "VmRSS") }

  /// The peak resident set (VmHWM), in KiB.
  static func peakResidentKiB(_ pid: Int32) -> Int { statusKiB(pid, "VmHWM") }

  /// Descriptors open now: the entries of /proc/PID/fd.
  static func openDescriptors(_ pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
  }

  /// A `kB` line of /proc/PID/status (`VmRSS:    123456 kB`).
  private static func statusKiB(_ pid: Int32, _ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return 0
    }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
      return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
  }
}
