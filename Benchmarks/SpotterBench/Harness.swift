#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A dependency-free benchmark harness: warm up, take many samples, report median and p90, in
/// the CPU time of the thread that runs them (`threadSeconds`).
///
/// Each sample times `iterations` calls of the body; the body returns a value that is folded
/// into `sink`, so the optimiser cannot delete the work.
struct Measurement {
  let name: String
  /// Seconds per iteration, one entry per sample, sorted.
  let samples: [Double]
  /// Work units per iteration (frames, FLOPs), for rates.
  let unitsPerIteration: Double
  let unit: String

  var median: Double { samples[samples.count / 2] }
  var p90: Double { samples[min(samples.count - 1, Int(Double(samples.count) * 0.9))] }
  /// Units per second at the median.
  var rate: Double { unitsPerIteration / median }
}

nonisolated(unsafe) var sink: Double = 0

func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// This thread's CPU time: what the samples are timed in, so that other processes on a shared
/// machine (time slices given to them) do not count; their effect on the caches still does.
func threadSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Times `body`, choosing the iterations per sample so one sample takes about `sampleSeconds`.
func measure(
  _ name: String, units: Double, unit: String, samples: Int = 15, sampleSeconds: Double = 0.05,
  _ body: () -> Double
) -> Measurement {
  // Warm-up, discarded; also sizes the samples.
  var iterations = 1
  while true {
    let start = threadSeconds()
    for _ in 0..<iterations { sink += body() }
    let elapsed = threadSeconds() - start
    if elapsed >= sampleSeconds / 4 || iterations >= 1 << 24 {
      iterations = max(1, Int(Double(iterations) * sampleSeconds / max(elapsed, 1e-9)))
      break
    }
    iterations *= 4
  }
  var times: [Double] = []
  for _ in 0..<samples {
    let start = threadSeconds()
    for _ in 0..<iterations { sink += body() }
    times.append((threadSeconds() - start) / Double(iterations))
  }
  return Measurement(name: name, samples: times.sorted(), unitsPerIteration: units, unit: unit)
}

/// Formats seconds with a readable unit.
func duration(_ seconds: Double) -> String {
  if seconds < 1e-6 { return String(format: "%.1f ns", seconds * 1e9) }
  if seconds < 1e-3 { return String(format: "%.2f µs", seconds * 1e6) }
  if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
  return String(format: "%.2f s", seconds)
}

/// Formats a rate with an SI prefix.
func rate(_ value: Double, _ unit: String) -> String {
  if value >= 1e9 { return String(format: "%.2f G%@/s", value / 1e9, unit) }
  if value >= 1e6 { return String(format: "%.2f M%@/s", value / 1e6, unit) }
  if value >= 1e3 { return String(format: "%.1f k%@/s", value / 1e3, unit) }
  return String(format: "%.1f %@/s", value, unit)
}
