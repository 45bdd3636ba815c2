#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files a command removes if it is stopped (Ctrl-C, SIGTERM) before it is done with them: the
/// pose file `spotter video` writes under a temporary name, so that a stopped run leaves
/// nothing half-written behind, as a failed one does not.
///
/// The handler may only do what is safe in a signal handler: `unlink` each path from a fixed
/// table of C strings made beforehand, then `_exit` with 128 + the signal, as a shell reports
/// a program the signal stopped.
enum InterruptCleanup {
  private static let capacity = 8
  nonisolated(unsafe) private static var paths = [UnsafeMutablePointer<CChar>?](
    repeating: nil, count: capacity)
  nonisolated(unsafe) private static var installed = false

  /// Removes `path` if the process is stopped by SIGINT or SIGTERM from now until `forget`.
  static func remove(onInterrupt path: String) {
    guard let slot = paths.firstIndex(where: { $0 == nil }) else { return }
    paths[slot] = strdup(path)
    if !installed {
      installed = true
      signal(SIGINT, handle)
      signal(SIGTERM, handle)
      // A parent may have started Spotter with the signals blocked (a blocked mask is
      // inherited across exec; test runners do it): they must arrive to be handled.
      var signals = sigset_t()
      sigemptyset(&signals)
      sigaddset(&signals, SIGINT)
      sigaddset(&signals, SIGTERM)
      sigprocmask(SIG_UNBLOCK, &signals, nil)
    }
  }

  /// No longer removes `path` (it is whole, or gone).
  static func forget(_ path: String) {
    for slot in paths.indices {
      guard let held = paths[slot], String(cString: held) == path else { continue }
      paths[slot] = nil
      free(held)
    }
  }

  private static let handle: @convention(c) (Int32) -> Void = { signal in
    for slot in 0..<InterruptCleanup.capacity {
      if let path = InterruptCleanup.paths[slot] { unlink(path) }
    }
    _exit(128 + signal)
  }
}
