import Poses

/// A person's rhythm in one signal: how long a cycle takes and how far it swings.
struct Cadence: Equatable {
  /// Seconds from one cycle to the next.
  var period: Double
  /// How far the signal moves within one period: the median, over the last few periods, of
  /// the highest minus the lowest value within each (so one large swing does not set it).
  var swing: Double
}

/// Estimates, causally, the dominant period of a signal over its last seconds: the cadence the
/// rep engines let set what thresholds cannot know alone (the typical range, the shortest rep,
/// the smoothing).
///
/// Concept: every second, the normalised autocorrelation of the last `window` seconds, of its
/// newest half and of its newest quarter, at lags from `shortest` to a third of each (three
/// cycles in view: periods up to 4 s); the strongest of the three wins. In each, the period is the first peak at
/// least `harmonicShare` as high as the highest (a signal that repeats every P also repeats
/// every 2P and 3P: the first is the cadence, not a sub-harmonic), refined between lags by a
/// parabola. A rhythm is *locked* once that peak's correlation reaches `lockStrength` (and
/// stands `significance` deviations clear of chance, which the shorter windows need more), and
/// stays locked until it falls below `releaseStrength`, so one untidy cycle does not drop it.
///
/// Robust to one outlier: before the correlation, values are clipped to each window's 10th and
/// 90th percentiles (a single settling swing, or a detector's glitch, becomes a bump the size
/// of the rest), and a linear trend is removed (a person drifting in the picture). The swing is
/// a median over the last five periods, never the largest.
///
/// Implementation: the window is held at the engine's frame rate in a `FixedRing`; the whole
/// window is read every fourth frame, the shorter ones every second (cycles of 0.3 s and more
/// at 30 fps), into scratch arrays made at `init`; dot products run four lanes at a time. Every
/// `updateEvery` frames that is about 5,000 multiply-adds, under 200 a frame, and nothing is
/// allocated (`spotter-bench --filter engines` times the engines with it). Frames without a
/// value are filled with the last one for up to `maxGap`; a longer gap starts afresh.
struct CadenceEstimator {
  /// Seconds of signal looked at: three cycles of the slowest rhythm it finds (4 s).
  static let window = 12.0
  /// The shortest period it looks for.
  static let shortest = 0.3
  /// Frames a second the window has room for (the engines see 30).
  static let maxFrameRate = 32.0
  static let lockStrength = 0.45
  static let releaseStrength = 0.3
  /// How far above chance (in its deviations) a window's correlation must be.
  static let significance = 3.0
  /// How much of the strongest peak's correlation an earlier peak needs to be the period.
  static let harmonicShare = 0.5
  static let updateEvery = 30
  static let maxGap = 0.5

  private var values: FixedRing<Double>
  private var times: FixedRing<Double>
  private var framesSinceUpdate = 0
  /// The decimated, clipped, detrended window; a sorted copy; the correlation by lag.
  private var series: [Double]
  private var sorted: [Double]
  private var correlation: [Double]
  private var swings: [Double]
  /// The rhythm found, nil while none is locked.
  private(set) var current: Cadence?

  init() {
    let capacity = Int(Self.window * Self.maxFrameRate)
    values = FixedRing(capacity: capacity, repeating: 0)
    times = FixedRing(capacity: capacity, repeating: 0)
    series = Array(repeating: 0, count: capacity / 2 + 1)
    sorted = series
    correlation = series
    swings = Array(repeating: 0, count: 5)
  }

  /// Forgets the signal (a new person, or one who was out of sight).
  mutating func forget() {
    values.removeAll()
    times.removeAll()
    framesSinceUpdate = 0
    current = nil
  }

  /// Takes the signal's value at `t`; every `updateEvery` frames, estimates the cadence again.
  mutating func add(_ value: Double, at t: Double) {
    if let last = times.last {
      let step = frameStep
      if t - last > Self.maxGap || t <= last {
        forget()
      } else if let step, t - last > 1.5 * step {
        // Frames without a value: the last one held, so lags stay in frames.
        let held = values[age: 0]
        var filled = last + step
        while filled < t - 0.5 * step {
          append(held, at: filled)
          filled += step
        }
      }
    }
    append(value, at: t)
    framesSinceUpdate += 1
    if framesSinceUpdate >= Self.updateEvery {
      framesSinceUpdate = 0
      update()
    }
  }

  /// The highest value over the last `seconds`, and when it was, if any are held.
  func highest(over seconds: Double) -> (value: Double, t: Double)? {
    guard let newest = times.last else { return nil }
    var best: (value: Double, t: Double)?
    for age in 0..<values.count {
      let t = times[age: age]
      if newest - t > seconds { break }
      if best == nil || values[age: age] > best!.value { best = (values[age: age], t) }
    }
    return best
  }

  private mutating func append(_ value: Double, at t: Double) {
    values.append(value)
    times.append(t)
    while let oldest = times.first, t - oldest > Self.window {
      times.removeOldest()
      values.removeOldest()
    }
  }

  /// Seconds between frames, from the two newest (nil before two).
  private var frameStep: Double? {
    guard times.count >= 2 else { return nil }
    return times[age: 0] - times[age: 1]
  }

  /// Estimates the cadence over the whole window, its newest half and its newest quarter,
  /// and keeps the strongest: a set that began a few seconds ago is seen in the short window
  /// before the long one (which still holds the rest, or the step into position, before it)
  /// can see it, and slow reps need the long one. The whole window is read every fourth frame
  /// (its shortest period, a third of its quick ones being the short windows' to find), the
  /// others every second.
  private mutating func update() {
    let count = values.count
    guard count >= 8, let first = times.first, let last = times.last, last > first else {
      current = nil
      return
    }
    let frameRate = Double(count - 1) / (last - first)
    let (lock, release) = (Self.lockStrength, Self.releaseStrength)
    var best: (period: Double, strength: Double)?
    for halving in 0..<3 {
      let frames = count >> halving
      let step = halving == 0 ? 4 : 2
      let rate = frameRate / Double(step)
      let n = frames / step
      let shortestLag = max(2, Int(Self.shortest * rate))
      let longestLag = n / 3
      guard longestLag > shortestLag + 2 else { continue }
      // The newest n of every step-th frame, oldest first.
      for index in 0..<n { series[index] = values[age: step * (n - 1 - index)] }
      clipAndDetrend(n)
      correlate(n, from: shortestLag - 1, upTo: longestLag + 1)
      // A shorter window's correlation is less sure: without a rhythm, the correlations
      // scatter by about 1/√m, m the window's seconds times 7.5 (a smoothed signal's samples
      // a fifteenth of a second apart are alike in pairs), and a rhythm must stand
      // `significance` times that clear of chance.
      let seconds = Double(frames - 1) / frameRate
      let chance = Self.significance / (7.5 * seconds).squareRoot()
      let needed = current == nil ? max(lock, chance) : max(release, chance * release / lock)
      if let found = period(from: shortestLag, to: longestLag), found.strength >= needed,
        found.strength > best?.strength ?? 0
      {
        best = (found.lag / rate, found.strength)
      }
    }
    guard let best else {
      current = nil
      return
    }
    let swing = swing(period: best.period)
    current = swing > 0 ? Cadence(period: best.period, swing: swing) : nil
  }

  /// Clips the series to its 10th and 90th percentiles and removes its least-squares line.
  private mutating func clipAndDetrend(_ n: Int) {
    for index in 0..<n { sorted[index] = series[index] }
    let (low, high) = sorted.withUnsafeMutableBufferPointer {
      (Self.select(n / 10, in: $0, count: n), Self.select(n - 1 - n / 10, in: $0, count: n))
    }
    var sumX = 0.0
    var sumXY = 0.0
    for index in 0..<n {
      let value = min(max(series[index], low), high)
      series[index] = value
      sumX += value
      sumXY += Double(index) * value
    }
    let mean = sumX / Double(n)
    let centre = Double(n - 1) / 2
    var sumII = 0.0
    for index in 0..<n { sumII += (Double(index) - centre) * (Double(index) - centre) }
    let slope = (sumXY - centre * sumX) / sumII
    for index in 0..<n { series[index] -= mean + slope * (Double(index) - centre) }
  }

  /// Fills `correlation[minLag...maxLag]` with the normalised autocorrelation of the series at
  /// each lag (each pair of overlapping parts scaled by their own energies).
  private mutating func correlate(_ n: Int, from minLag: Int, upTo maxLag: Int) {
    series.withUnsafeBufferPointer { x in
      correlation.withUnsafeMutableBufferPointer { r in
        // The energies of the two overlapping parts, x[0..<n-lag] and x[lag..<n]: from the
        // whole at lag 0, one value shed from each end per lag.
        var energy = 0.0
        for index in 0..<n { energy += x[index] * x[index] }
        var head = energy
        var tail = energy
        for lag in 1...maxLag {
          head -= x[n - lag] * x[n - lag]
          tail -= x[lag - 1] * x[lag - 1]
          guard lag >= minLag else { continue }
          let sum = Self.dot(x.baseAddress!, x.baseAddress! + lag, count: n - lag)
          let scale = (head * tail).squareRoot()
          r[lag] = scale > 1e-12 ? sum / scale : 0
        }
      }
    }
  }

  /// The sum of `a[i] * b[i]` over `count` values, four lanes at a time (the order of the sum
  /// differs from a plain loop's by rounding only; the plain loop does not vectorise, its
  /// order being fixed).
  @inline(__always)
  private static func dot(
    _ a: UnsafePointer<Double>, _ b: UnsafePointer<Double>, count: Int
  ) -> Double {
    var lanes = SIMD4<Double>()
    var index = 0
    let rawA = UnsafeRawPointer(a)
    let rawB = UnsafeRawPointer(b)
    let stride = MemoryLayout<Double>.stride
    while index + 4 <= count {
      let left = rawA.loadUnaligned(fromByteOffset: index * stride, as: SIMD4<Double>.self)
      let right = rawB.loadUnaligned(fromByteOffset: index * stride, as: SIMD4<Double>.self)
      lanes += left * right
      index += 4
    }
    var sum = lanes.sum()
    while index < count {
      sum += a[index] * b[index]
      index += 1
    }
    return sum
  }

  /// The period in lags (refined between lags) and its correlation: the first local peak at
  /// least `harmonicShare` as strong as the strongest in `shortest...longest`.
  private func period(from shortest: Int, to longest: Int) -> (lag: Double, strength: Double)? {
    var strongest = 0.0
    for lag in shortest...longest where isPeak(lag) { strongest = max(strongest, correlation[lag]) }
    guard strongest > 0 else { return nil }
    let bar = Self.harmonicShare * strongest
    for lag in shortest...longest where isPeak(lag) && correlation[lag] >= bar {
      let (a, b, c) = (correlation[lag - 1], correlation[lag], correlation[lag + 1])
      let curvature = a - 2 * b + c
      let shift = curvature < 0 ? min(max(0.5 * (a - c) / curvature, -0.5), 0.5) : 0
      return (Double(lag) + shift, b)
    }
    return nil
  }

  private func isPeak(_ lag: Int) -> Bool {
    correlation[lag] > correlation[lag - 1] && correlation[lag] >= correlation[lag + 1]
  }

  /// The median, over the last five periods (those the window holds), of the highest minus the
  /// lowest value within each: any stretch one period long holds a whole cycle's top and
  /// bottom, wherever it starts. Zero unless the last three periods each swing at least half
  /// that much: a rhythm is a run of cycles alike, not one swing and stillness.
  private mutating func swing(period: Double) -> Double {
    guard let newest = times.last else { return 0 }
    var segments = 0
    var age = 0
    while segments < swings.count {
      let end = newest - Double(segments) * period
      let start = end - period
      guard let oldest = times.first, start >= oldest - 1e-9 else { break }
      var high = -Double.infinity
      var low = Double.infinity
      while age < values.count, times[age: age] > start {
        high = max(high, values[age: age])
        low = min(low, values[age: age])
        age += 1
      }
      guard high >= low else { break }
      swings[segments] = high - low
      segments += 1
    }
    guard segments >= 3 else { return 0 }
    let latest = min(swings[0], swings[1], swings[2])
    // The (lower) median of three to five periods: one outlier moves nothing.
    let median = swings.withUnsafeMutableBufferPointer {
      Self.select((segments - 1) / 2, in: $0, count: segments)
    }
    return latest >= 0.5 * median ? median : 0
  }

  /// The `rank`-th smallest of the first `count` values (Hoare's selection, in place: the
  /// standard library's sort may allocate scratch space, and this runs on the frame path).
  static func select(_ rank: Int, in values: UnsafeMutableBufferPointer<Double>, count: Int)
    -> Double
  {
    var low = 0
    var high = count - 1
    while low < high {
      let pivot = values[(low + high) / 2]
      var i = low
      var j = high
      while i <= j {
        while values[i] < pivot { i += 1 }
        while values[j] > pivot { j -= 1 }
        if i <= j {
          values.swapAt(i, j)
          i += 1
          j -= 1
        }
      }
      if rank <= j {
        high = j
      } else if rank >= i {
        low = i
      } else {
        break
      }
    }
    return values[rank]
  }
}
