import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The fleet's database away while sessions end: PostgreSQL stopped (`pg_ctl stop -m fast`,
/// which ends the daemons' connections) and started again `seconds` later. What ends meanwhile
/// must reach the history once, after it is back: the daemons keep it until then.
///
/// Sessions end when their workouts do, so the pause is timed from the workouts: it starts when
/// `endedBefore` of the sessions are due to have ended, and every session due within `seconds`
/// after that ends while the database is away.
final class PostgresPause: @unchecked Sendable {
  struct Report {
    /// When PostgreSQL stopped, in seconds from the clients' start.
    var stoppedAt = 0.0
    /// Sessions the daemons finished while it was away (their `sessions_finished`).
    var endedWhileAway = 0
    /// What went wrong stopping or starting it, if anything did.
    var failure: String?
  }

  /// The share of sessions due to have ended before PostgreSQL stops: a few are stored the
  /// ordinary way, most while it is away.
  static let endedBefore = 0.1

  let seconds: Double
  private let postgres: LocalPostgres
  private let daemons: [FleetDaemon]
  private let later = Later()
  private var report = Report()

  init(_ postgres: LocalPostgres, seconds: Double, daemons: [FleetDaemon]) {
    self.postgres = postgres
    self.seconds = seconds
    self.daemons = daemons
  }

  /// Times the pause for `clients` clients about to stream `workouts` (client i streams
  /// workout i mod K, starting i/clients of a second after the first, as `ServeLoad` does), and
  /// starts it on a thread of its own.
  func schedule(_ workouts: [ServeLoad.Workout], clients: Int) {
    let begin = ServeLoad.now()
    let ends = (0..<clients).map {
      Double($0) / Double(clients) + (workouts[$0 % workouts.count].times.last ?? 0)
    }.sorted()
    let stopAt = ends[Int(Double(clients - 1) * Self.endedBefore)]
    later.run(at: begin + stopAt) {
      self.report.stoppedAt = ServeLoad.now() - begin
      let before = self.finished()
      do {
        try self.postgres.pause()
        usleep(UInt32(self.seconds * 1e6))
        self.report.endedWhileAway = self.finished() - before
        try self.postgres.resume()
      } catch {
        self.report.failure = "\(error)"
      }
    }
  }

  /// Waits until PostgreSQL is back (at once when no pause was scheduled, or after the first
  /// wait).
  func wait() -> Report {
    later.wait()
    return report
  }

  /// Sessions the daemons have finished so far.
  private func finished() -> Int {
    daemons.reduce(0) { $0 + ($1.stats()["sessions_finished"] as? Int ?? 0) }
  }
}
