#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGTERM/SIGINT and SIGHUP, noted by the handler and read by the daemon's accepting thread.
enum SignalFlags {
  nonisolated(unsafe) static var terminate = false
  nonisolated(unsafe) static var reload = false

  static func install() {
    // A parent (a test runner, a supervisor) may have left these blocked: unblock them.
    var set = sigset_t()
    sigemptyset(&set)
    for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
    sigprocmask(SIG_UNBLOCK, &set, nil)
    signal(SIGTERM) { _ in SignalFlags.terminate = true }
    signal(SIGINT) { _ in SignalFlags.terminate = true }
    signal(SIGHUP) { _ in SignalFlags.reload = true }
    signal(SIGPIPE, SIG_IGN)
  }

  static func takeReload() -> Bool {
    guard reload else { return false }
    reload = false
    return true
  }
}
