import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench serve --pin`: the daemon on one CPU a worker, the load generator on the
/// others, so a figure says whose limit it is. A load generator sharing the daemon's cores takes what the
/// daemon would have had, and on a machine of two cores it takes a lot of it. Placed with
/// util-linux's `taskset` (every thread of a process; Glibc keeps `sched_setaffinity` behind
/// `_GNU_SOURCE`).
enum CPUPinning {
  /// What `separate` did, for the report.
  nonisolated(unsafe) private(set) static var placement: String?

  /// Pins every thread of `daemon` to the first `cpus` CPUs this process may use, and every
  /// thread of this process to the rest. Throws when there is no CPU left for this process.
  static func separate(daemon: pid_t, cpus: Int = 1) throws {
    try requireRoom(daemon: cpus)
    let allowed = allowedCPUs()
    let own = allowed.prefix(cpus).map(String.init).joined(separator: ",")
    let rest = allowed.dropFirst(cpus).map(String.init).joined(separator: ",")
    try LocalServers.run(["/usr/bin/taskset", "-a", "-p", "-c", own, "\(daemon)"])
    try LocalServers.run(["/usr/bin/taskset", "-a", "-p", "-c", rest, "\(getpid())"])
    placement = "daemon on CPU \(own), load generator on CPU \(rest)"
  }

  /// Throws unless this process may use more than the daemon's `cpus`: checked before the
  /// daemon starts, so that a bench that cannot pin leaves no daemon behind.
  static func requireRoom(daemon cpus: Int) throws {
    let allowed = allowedCPUs().count
    guard allowed > cpus else {
      throw LocalServers.Failure(
        description: "--pin needs \(cpus + 1) CPUs; this process may use \(allowed)")
    }
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
