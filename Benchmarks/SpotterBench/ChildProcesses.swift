import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The processes `spotter-bench` starts (daemons, PostgreSQL, HAProxy, history writers) and
/// what it makes outside itself (a network, a folder): when the bench itself is stopped
/// (SIGTERM, SIGINT), it stops and removes them first, so nothing is left behind.
enum ChildProcesses {
  private final class Registry: @unchecked Sendable {
    let lock = NSLock()
    var running: [Process] = []
    /// Stops for what runs on its own once started (PostgreSQL through `pg_ctl`) and removals
    /// of what was made (a network, a folder), by name, in the order they were registered.
    var stops: [(name: String, stop: @Sendable () -> Void)] = []
    var sources: [any DispatchSourceSignal] = []
    var stopping = false
  }
  private static let registry = Registry()

  /// Starts `process`, to be stopped with the bench.
  static func run(_ process: Process) throws {
    try process.run()
    registry.lock.withLock {
      registry.running.removeAll { !$0.isRunning }
      registry.running.append(process)
    }
  }

  /// Ends the bench with `status`; while a signal is stopping it, waits for that to end it
  /// instead (a command that fails because its daemon was stopped must not exit first).
  static func exit(_ status: Int32) -> Never {
    if registry.lock.withLock({ registry.stopping }) { while true { sleep(1) } }
    Glibc.exit(status)
  }

  /// Also runs `stop` when the bench is stopped, unless `forget(name)` came first. Stops run
  /// after the children have ended, the last registered first, as `defer`s do: what was made
  /// first (a folder) is removed last, after what lives in it (a server's data) is stopped.
  static func atStop(_ name: String, _ stop: @escaping @Sendable () -> Void) {
    registry.lock.withLock {
      registry.stops.removeAll { $0.name == name }
      registry.stops.append((name, stop))
    }
  }

  static func forget(_ name: String) {
    registry.lock.withLock { registry.stops.removeAll { $0.name == name } }
  }

  /// From now on SIGTERM and SIGINT stop every child still running (SIGTERM, then SIGKILL
  /// after 5 s), then run the stops, then end the bench with the signal's status.
  ///
  /// First it unblocks every signal on the calling thread (the main thread): a process starts
  /// with its parent's mask, and one started from a thread that blocks signals (a test
  /// runner's worker) would pass SIGTERM blocked on to its children, so a child that does not
  /// reset its mask (stunnel) could not be stopped.
  static func stopWithTheBench() {
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    for signal in [SIGTERM, SIGINT] {
      Glibc.signal(signal, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
      source.setEventHandler {
        let (children, stops) = registry.lock.withLock {
          registry.stopping = true
          return (registry.running.filter(\.isRunning), registry.stops.reversed().map(\.stop))
        }
        for child in children { kill(child.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while children.contains(where: \.isRunning) && Date() < deadline { usleep(20_000) }
        for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL) }
        for stop in stops { stop() }
        Glibc.exit(128 + signal)
      }
      source.resume()
      registry.lock.withLock { registry.sources.append(source) }
    }
  }
}
