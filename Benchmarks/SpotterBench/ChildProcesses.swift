import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The processes `spotter-bench` starts (daemons, PostgreSQL, HAProxy, history writers): when
/// the bench itself is stopped (SIGTERM, SIGINT), it stops them first, so none is left running.
enum ChildProcesses {
  private final class Registry: @unchecked Sendable {
    let lock = NSLock()
    var running: [Process] = []
    /// Stops for what runs on its own once started (PostgreSQL through `pg_ctl`), by name.
    var stops: [String: @Sendable () -> Void] = [:]
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

  /// Also runs `stop` when the bench is stopped, unless `forget(name)` came first.
  static func atStop(_ name: String, _ stop: @escaping @Sendable () -> Void) {
    registry.lock.withLock { registry.stops[name] = stop }
  }

  static func forget(_ name: String) {
    _ = registry.lock.withLock { registry.stops.removeValue(forKey: name) }
  }

  /// From now on SIGTERM and SIGINT stop every child still running (SIGTERM, then SIGKILL
  /// after 5 s), then the bench, with the signal's status.
  static func stopWithTheBench() {
    for signal in [SIGTERM, SIGINT] {
      Glibc.signal(signal, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
      source.setEventHandler {
        let (children, stops) = registry.lock.withLock {
          registry.stopping = true
          return (registry.running.filter(\.isRunning), Array(registry.stops.values))
        }
        for stop in stops { stop() }
        for child in children { kill(child.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while children.contains(where: \.isRunning) && Date() < deadline { usleep(20_000) }
        for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL) }
        Glibc.exit(128 + signal)
      }
      source.resume()
      registry.lock.withLock { registry.sources.append(source) }
    }
  }
}
