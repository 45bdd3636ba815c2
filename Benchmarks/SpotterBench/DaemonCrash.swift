import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A daemon of the fleet killed mid-workout (SIGKILL: no summaries) and started again on the
/// same address, port and state folder, as a crash and its restart would be. Its clients'
/// connections break; they connect again through the balancer and resume their sessions on
/// whichever daemon takes them.
final class DaemonCrash: @unchecked Sendable {
  struct Report {
    /// When the daemon was killed, in seconds from the clients' start.
    var killedAt = 0.0
    /// Its open sessions then (`open_sessions`).
    var sessions = 0
    /// What went wrong restarting it, if anything did.
    var failure: String?
  }

  /// Where in the workouts the daemon dies: this share of the way through the median one.
  let share: Double
  private let daemon: FleetDaemon
  private let later = Later()
  private var report = Report()

  init(_ daemon: FleetDaemon, at share: Double) {
    self.daemon = daemon
    self.share = share
  }

  /// Times the crash for clients about to stream `workouts`, and waits for it on a thread of
  /// its own.
  func schedule(_ workouts: [ServeLoad.Workout]) {
    let begin = ServeLoad.now()
    let lengths = workouts.map { $0.times.last ?? 0 }.sorted()
    let at = 1 + share * lengths[lengths.count / 2]
    later.run(at: begin + at) {
      self.report.killedAt = ServeLoad.now() - begin
      self.report.sessions = self.daemon.stats()["open_sessions"] as? Int ?? 0
      do {
        try self.daemon.restart()
      } catch {
        self.report.failure = "\(error)"
      }
    }
  }

  /// Waits until the daemon is back (at once when no crash was scheduled).
  func wait() -> Report {
    later.wait()
    return report
  }
}
