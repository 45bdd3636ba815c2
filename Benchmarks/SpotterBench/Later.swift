import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Work done once, on a thread of its own, when a moment comes (`ServeLoad.now()` time), that
/// the caller waits for afterwards: the fleet's database pause and daemon crash, timed from
/// the clients' start.
final class Later: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  private var started = false

  func run(at time: Double, _ work: @escaping @Sendable () -> Void) {
    started = true
    Thread {
      let wait = time - ServeLoad.now()
      if wait > 0 { usleep(UInt32(wait * 1e6)) }
      work()
      self.done.signal()
    }.start()
  }

  /// Returns once the work is done: at once when none was started, or after the first wait.
  func wait() {
    guard started else { return }
    done.wait()
    started = false
  }
}
