import Poses

/// What a signal engine does to each read before it looks for reps: the median of the last
/// reads (a detector's wild frame cannot make or break a rep), and the measure of how unsteady
/// the detector makes the signal (the noise floor). `SignalEngine` smooths the result with its
/// EMA. Allocates only at `init`.
struct SignalConditioner {
  /// The last raw values, for the median of `median_frames`.
  private var rawValues: FixedRing<Double>
  /// How unsteady the detector makes the signal: the median size, over the last 45 frames, of
  /// the reads' fourth difference x₀ − 4x₋₁ + 6x₋₂ − 4x₋₃ + x₋₄, over 0.6745·√70 ≈ 5.64 (what
  /// makes it the deviation of white noise). A movement, smooth over five frames, hardly
  /// registers in it, and the median ignores a wild frame. The reads come through the reader's
  /// medians of three, which take out most of a detector's frame-to-frame noise: joints shaken
  /// by white noise of deviation σ measure about 0.3 σ, from 0.12 to 0.6 σ as the 45 frames
  /// fall (`NoiseEstimateTests`).
  private var jitter = RunningMedian(capacity: 45)
  private var lastReads = FixedRing<Double>(capacity: 4, repeating: 0)
  /// Seconds between the last two frames read in a row.
  private(set) var frameStep: Double?

  /// - Parameter medianLength: the definition's `median_frames`.
  init(medianLength: Int) {
    rawValues = FixedRing(capacity: medianLength, repeating: 0)
  }

  /// The most frames the median spans.
  var medianLength: Int { rawValues.capacity }

  /// The deviation of the signal's frame-to-frame noise, as measured (0 before five reads).
  var noiseDeviation: Double { Double(jitter.median ?? 0) / 5.64 }

  /// The last two reads (newest first), nil unless the last two frames were read.
  var lastTwoReads: (Double, Double)? {
    lastReads.count >= 2 ? (lastReads[age: 0], lastReads[age: 1]) : nil
  }

  /// Takes a read: the median of the last `length` (at most `median_frames`; fewer at the start
  /// or after a gap), with the read's jitter measured.
  mutating func condition(_ read: Double, length: Int) -> Double {
    rawValues.append(read)
    let median = withUnsafeTemporaryAllocation(of: Double.self, capacity: rawValues.capacity) {
      sorted in
      var count = 0
      for age in 0..<min(length, rawValues.count) {
        count = sorted.insertSorted(rawValues[age: age], count: count)
      }
      return sorted[count / 2]
    }
    observeJitter(read)
    return median
  }

  /// The time between this frame and the last one read; kept when they were in a row.
  mutating func step(_ dt: Double) {
    if dt > 0 && dt <= 0.15 { frameStep = dt }
  }

  /// A frame was not read: the fourth difference is of consecutive reads.
  mutating func missedRead() { lastReads.removeAll() }

  /// After a gap, or when the movement under way is abandoned: reads from before it must not
  /// steady the ones after it. The measured jitter stays.
  mutating func restart() {
    rawValues.removeAll()
    lastReads.removeAll()
  }

  /// A new person: the jitter is measured afresh too.
  mutating func forget() {
    restart()
    jitter.removeAll()
  }

  /// Adds the fourth difference of the last five reads (consecutive frames) to `jitter`. A
  /// change of measuring scale between reps mixes scales in at most four differences, which
  /// the median over 45 absorbs.
  private mutating func observeJitter(_ read: Double) {
    if lastReads.isFull {
      let (a, b, c, d) = (lastReads[0], lastReads[1], lastReads[2], lastReads[3])
      jitter.add(Float(abs(read - 4 * d + 6 * c - 4 * b + a)))
    }
    lastReads.append(read)
  }
}
