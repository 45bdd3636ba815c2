#if os(Linux)
  import CEpoll
#endif

/// The name of the calling thread as the system shows it (top -H, /proc/PID/task/TID/comm):
/// the daemon's workers are told apart by it, in a profile and by the bench's per-worker CPU.
enum ThreadName {
  /// Names the calling thread; cut to 15 bytes. Does nothing where the system has no names.
  static func set(_ name: String) {
    #if os(Linux)
      _ = spotter_name_this_thread(name)
    #endif
  }
}
