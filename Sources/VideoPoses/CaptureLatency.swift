#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How long a live session took from a frame's capture to the events it decided: the delay a
/// person in front of the camera sees between moving and their count changing.
///
/// The helper stamps each frame with the monotonic clock when its reader thread has it
/// (Python's `time.monotonic()`, `CLOCK_MONOTONIC` on Linux); an event's latency is this
/// process's reading of the same clock when the event is written, less that stamp. So it holds
/// the detector's time, the frame's wait in the helper while the detector finished the one
/// before, the line's way through the pipe and the session's time, and nothing of the camera's
/// own delay before the frame reached OpenCV.
public struct CaptureLatency: Sendable {
  /// Each event's latency, in seconds, in the order they came.
  public private(set) var samples: [Double] = []

  public init() {}

  /// The monotonic clock, in seconds: the one the helper stamps frames with.
  public static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Notes an event decided by the frame captured at `captured` (the monotonic clock's
  /// seconds), written now; returns its latency.
  @discardableResult
  public mutating func add(captured: Double, now: Double = CaptureLatency.now()) -> Double {
    let latency = max(0, now - captured)
    samples.append(latency)
    return latency
  }

  /// The `fraction` quantile (0.5 the median, 0.99 the p99) of the latencies, by the nearest
  /// rank: a latency some event really had. Nil before any.
  public func quantile(_ fraction: Double) -> Double? {
    guard !samples.isEmpty else { return nil }
    let sorted = samples.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }
}
