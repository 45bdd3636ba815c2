#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files a command removes, and child processes it stops, if it is stopped (Ctrl-C, SIGTERM)
/// before it is done with them: the pose file `spotter video` writes under a temporary name, so
/// that a stopped run leaves nothing half-written behind, as a failed one does not; and the
/// detector's helper, which would otherwise read on through the video with nobody to read its
/// poses.
///
/// A live session ends gently instead (`stopGently`, `endInputGently`): the first signal only
/// writes `stop` to the detector's standard input, or ends Spotter's own, and the session ends
/// as a stream that ended does, with its summary, report and record; a second signal stops
/// everything as above.
///
/// The handler may only do what is safe in a signal handler: `write` to a descriptor, `kill`
/// each process id and `unlink` each path from fixed tables made beforehand (process ids, C
/// strings), then `_exit` with 128 + the signal, as a shell reports a program the signal
/// stopped.
enum InterruptCleanup {
  private static let capacity = 8
  nonisolated(unsafe) private static var paths = [UnsafeMutablePointer<CChar>?](
    repeating: nil, count: capacity)
  /// Process ids to stop; 0 for a free slot. Written only outside the handler, a whole
  /// `pid_t` at a time, so the handler reads each slot as it was or as it is.
  nonisolated(unsafe) private static let children: UnsafeMutablePointer<pid_t> = {
    let table = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
    table.initialize(repeating: 0, count: capacity)
    return table
  }()
  nonisolated(unsafe) private static var installed = false
  /// Where the first signal writes `stop`, or -1: then it stops the process at once.
  nonisolated(unsafe) private static var gentleStop: Int32 = -1
  /// `/dev/null`, open, for the first signal to put in the place of standard input; or -1.
  nonisolated(unsafe) private static var gentleEnd: Int32 = -1

  /// Makes the first SIGINT or SIGTERM from now until `forgetGentleStop` write a line `stop` to
  /// `descriptor` (the live detector's standard input) and nothing more.
  static func stopGently(writingTo descriptor: Int32) {
    install()
    gentleStop = descriptor
  }

  /// Makes the first SIGINT or SIGTERM from now on end standard input instead: `/dev/null`
  /// takes its place, so the read under way (retried after the signal) finds its end and a
  /// session on a pipe (`classify --view -`) ends as at the end of its stream. A pipe's
  /// writer stopped by the same Ctrl-C (`tail -f`) would end it too, once Spotter outlives the
  /// signal.
  static func endInputGently() {
    install()
    gentleEnd = open("/dev/null", O_RDONLY | O_CLOEXEC)
  }

  /// Signals stop the process at once again.
  static func forgetGentleStop() {
    gentleStop = -1
    if gentleEnd >= 0 { close(gentleEnd) }
    gentleEnd = -1
  }

  /// Removes `path` if the process is stopped by SIGINT or SIGTERM from now until `forget`.
  static func remove(onInterrupt path: String) {
    guard let slot = paths.firstIndex(where: { $0 == nil }) else { return }
    paths[slot] = strdup(path)
    install()
  }

  /// Stops the process `pid` (SIGTERM) if this process is stopped by SIGINT or SIGTERM from now
  /// until `forget(pid:)`.
  static func stop(onInterrupt pid: pid_t) {
    install()
    guard let slot = (0..<capacity).first(where: { children[$0] == 0 }) else { return }
    children[slot] = pid
  }

  /// No longer stops `pid` (it has ended).
  static func forget(pid: pid_t) {
    for slot in 0..<capacity where children[slot] == pid { children[slot] = 0 }
  }

  /// Installs the handler, once, with the tables made before it can run (a lazy `static`
  /// made in the handler would not be safe there).
  private static func install() {
    if !installed {
      _ = (paths, children)
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
    let gentle = InterruptCleanup.gentleStop
    if gentle >= 0 {
      InterruptCleanup.gentleStop = -1
      let line: StaticString = "stop\n"
      _ = write(gentle, line.utf8Start, line.utf8CodeUnitCount)
      return
    }
    let nothing = InterruptCleanup.gentleEnd
    if nothing >= 0 {
      InterruptCleanup.gentleEnd = -1
      _ = dup2(nothing, 0)
      return
    }
    for slot in 0..<InterruptCleanup.capacity where InterruptCleanup.children[slot] > 0 {
      kill(InterruptCleanup.children[slot], SIGTERM)
    }
    for slot in 0..<InterruptCleanup.capacity {
      if let path = InterruptCleanup.paths[slot] { unlink(path) }
    }
    _exit(128 + signal)
  }
}
