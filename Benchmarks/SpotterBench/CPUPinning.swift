import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench serve --pin`: the daemon on one CPU, the load generator on the others, so a
/// figure says whose limit it is. A load generator sharing the daemon's cores takes what the
/// daemon would have had, and on a machine of two cores it takes a lot of it. Placed with
/// util-linux's `taskset` (every thread of a process; Glibc keeps `sched_setaffinity` behind
/// `_GNU_SOURCE`).
enum CPUPinning {
  /// What `separate` did, for the report.
  nonisolated(unsafe) private(set) static var placement: String?

  /// Pins every thread of `daemon` to the first CPU this process may use, and every thread of
  /// this process to the rest. Throws when fewer than two CPUs are available.
  static func separate(daemon: pid_t) throws {
    let allowed = allowedCPUs()
    guard allowed.count >= 2, let first = allowed.first else {
      throw LocalServers.Failure(
        description: "--pin needs two CPUs; this process may use \(allowed.count)")
    }
    let rest = allowed.dropFirst().map(String.init).joined(separator: ",")
    try LocalServers.run(["/usr/bin/taskset", "-a", "-p", "-c", "\(first)", "\(daemon)"])
    try LocalServers.run(["/usr/bin/taskset", "-a", "-p", "-c", rest, "\(getpid())"])
    placement = "daemon on CPU \(first), load generator on CPU \(rest)"
  }

  /// The CPUs this process may run on (`Cpus_allowed_list` of /proc/self/status: `0-3,6`).
  static func allowedCPUs() -> [Int] {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard
      let line = status.split(separator: "\n").first(where: {
        $0.hasPrefix("Cpus_allowed_list:")
      })
    else { return [] }
    return line.dropFirst("Cpus_allowed_list:".count).split(separator: ",").flatMap { part in
      let ends = part.split(separator: "-").compactMap {
        Int($0.trimmingCharacters(in: .whitespaces))
      }
      guard let low = ends.first else { return [Int]() }
      return Array(low...(ends.last ?? low))
    }
  }
}
