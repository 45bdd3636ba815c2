import Poses

/// Counts reps of a scalar signal with hysteresis (Sources/RepCounting/README.md).
///
/// Each frame: read the signal (holding everything while its joints are missing or unsure),
/// smooth it with an EMA, then run a two-state machine. Internally the signal is turned so a rep
/// always goes *down* first. At the top, the engine waits for the signal to drop past the count
/// threshold; at the bottom, it follows the lowest point and counts the rep when the signal
/// comes back: one count, on one edge.
///
/// Count what a person would count. Thresholds are fixed numbers, or adaptive to the person:
/// - the first rep of a set (or the first after a pause) must move `min_range`, a floor that
///   walking, swaying and a still person with a noisy detector do not reach, and that real
///   first reps clear (Penn Action's hand-annotated clips: the 10th percentile of each clip's
///   largest cycle is 1.3–2.9 times it for squats, push-ups, pull-ups and jumping jacks);
/// - within a set (the last rep ended less than two typical rep durations ago), a movement of
///   `count_fraction` of the person's typical range (the median of their last six reps within
///   `learn_seconds`; for alternating sides the smaller of the two sides' medians), and at
///   least `min_range_learned`, is a rep: a shallow rep counts, flagged `partial` when it moves
///   less than `fraction` of the typical full rep, with the partial cue;
/// - a rep completes when the signal is back by the count threshold or by half its own way
///   down, whichever is more (capped by `return_fraction` of its way down): getting up from
///   the floor, half a movement back, is not a rep.
///
/// Strict counting (`strict`, or `--strict`) counts only full reps: past `fraction` of the
/// typical range from the first rep known; a shallower one is refused as `partial`.
///
/// Nothing is dropped silently: a movement within a set that turns back before the count
/// threshold (past `partial.min_range`) is refused as `too_small`, a rep quicker than
/// `min_rep_seconds` or than 0.4 of the person's recent reps as `too_fast`, a bottom held past
/// `max_rep_seconds` as `too_slow`, and a rep under way when the counter interrupts the engine
/// as `interrupted`; but one that the end of the stream finds on its way back up (both of the
/// last two reads back) counts, and so does one it cut short (`wasCutShort`).
///
/// No rep and no refusal is smaller than the noise floor: `noise_multiple` times the
/// jitter measured in the signal itself, capped at `min_range`, so less of a noisier
/// detector's wobble passes for shallow reps within a set.
///
/// Counting keeps time. A `CadenceEstimator` follows the period of the smoothed signal. Once it
/// has held a rhythm for two of its periods, swinging at least `partial.min_range`, and a rep
/// the thresholds alone counted lies within `learn_seconds` (or it swings `min_range_rhythm`),
/// that rhythm is a set, whatever the size of its reps:
/// - its swing (a median over periods, never the largest) is the typical range, so one
///   settling swing cannot set the bar for the reps after it;
/// - its floors are `partial.min_range` and 3 times the jitter: regularity over seconds tells
///   it from noise, not its size in one frame's noise;
/// - the cycles the thresholds passed over in the periods it took to find (too small for a
///   first rep, or quicker than `min_rep_seconds` when the rhythm itself is quicker) are
///   counted then (`RecentCycles`): a steady rhythm is never passed over in silence;
/// - a top it does not come back to within two periods (a settling swing) is refused as
///   `too_slow` and counting goes on from the rhythm's own tops;
/// - reps may be as quick as `tempoFloor` of its period, and a rhythm quicker than a second
///   smooths less, so reps of 0.4 s keep their tops and bottoms.
///
/// Real detectors throw a joint across the picture for a frame or two now and then: the raw
/// signal goes through a median of its last `median_frames` values (7, under a quarter of a
/// second, unless given) before the EMA, so three wild frames in a row cannot make or break a
/// rep. Seven rather than five: it counts the Countix tune half better. Brief movements
/// (jumping jacks, knee raises, side tilts) keep five: seven flattens their peaks
/// (`Sources/RepCounting/README.md`, "Why these numbers").
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class SignalEngine: RepEngine {
  typealias RecentRep = (
    range: Double, time: Double, duration: Double, side: SideChoice?, full: Bool
  )
  let definition: ExerciseDefinition
  @exclusivity(unchecked) private(set) var count = 0
  @exclusivity(unchecked) private var reader: SignalReader
  @exclusivity(unchecked) private var rules: FormRules
  private let sign: Double  // +1 for down, −1 for up: internal values always go down first
  private let alpha: Double
  private let minConfidence: Float
  private let fixedEnter: Double?
  private let fixedExit: Double?
  private let minRange: Double
  private let learnedMinRange: Double
  /// The least swing of a rhythm that is a set with no rep the thresholds counted
  /// (`min_range_rhythm`).
  private let unanchoredSwing: Double
  private let returnFraction: Double
  /// Full reps move this share of the typical range; reps move `countFraction` of it.
  private let fullFraction: Double
  private let countFraction: Double
  private let learnSeconds: Double
  private let minRepSeconds: Double
  private let partial: ExerciseDefinition.PartialRule?
  /// A rep takes at most this long (`max_rep_seconds`, 8 s by default); a slower "rep" is a
  /// drift, and a bottom held longer is someone sitting down: back to the top.
  private let maxRepSeconds: Double
  /// Count only full reps.
  @exclusivity(unchecked) var strict: Bool

  @exclusivity(unchecked) private var smoothed: Double?
  @exclusivity(unchecked) private var atBottom = false
  @exclusivity(unchecked) private var peak = 0.0
  @exclusivity(unchecked) private var peakTime = 0.0
  @exclusivity(unchecked) private var peakSetAt = 0.0  // when the peak was last raised
  @exclusivity(unchecked) private var trough = 0.0
  @exclusivity(unchecked) private var troughTime = 0.0
  /// The count threshold when the rep under way started.
  @exclusivity(unchecked) private var threshold = 0.0
  /// The highest point since the last rep or refusal, while at the top.
  @exclusivity(unchecked) private var dipTop = 0.0
  /// The lowest point since `dipTop`.
  @exclusivity(unchecked) private var dipLow = 0.0
  @exclusivity(unchecked) private var dipStart = 0.0
  @exclusivity(unchecked) private var lastTime: Double?
  /// Seconds between the last two frames read in a row.
  @exclusivity(unchecked) private var lastFrameStep: Double?
  /// The last six counted reps: range, end, duration, leading side, whether full.
  @exclusivity(unchecked) private var recentReps = FixedRing<
    (range: Double, time: Double, duration: Double, side: SideChoice?, full: Bool)
  >(
    capacity: 6, repeating: (0, 0, 0, nil, false))
  /// The last raw values, for the median of `median_frames`.
  @exclusivity(unchecked) private var rawValues: FixedRing<Double>
  /// How unsteady the detector makes the signal: the median size, over the last 45 frames, of
  /// the reads' fourth difference x₀ − 4x₋₁ + 6x₋₂ − 4x₋₃ + x₋₄, over 0.6745·√70 ≈ 5.64 (what
  /// makes it the deviation of white noise). A movement, smooth over five frames, hardly
  /// registers in it, and the median ignores a wild frame. The reads come through the reader's
  /// medians of three, which take out most of a detector's frame-to-frame noise: joints shaken
  /// by white noise of deviation σ measure about 0.3 σ, from 0.12 to 0.6 σ as the 45 frames
  /// fall (`NoiseEstimateTests`).
  @exclusivity(unchecked) private var jitter = RunningMedian(capacity: 45)
  @exclusivity(unchecked) private var lastReads = FixedRing<Double>(capacity: 4, repeating: 0)
  /// The noise floor: no rep, and no refusal, is smaller than `noise_multiple` (16 by default)
  /// times the measured jitter, but the floor never rises above `min_range`. 16 times about
  /// 0.3 σ is about 5 σ of the joints' white noise; real jitter is also slower than white
  /// (detectors smooth their output, pipelines rescale whole frames), and what the medians let
  /// through of it raises the measure less. 16 was chosen on the Countix tune half with its
  /// poses shaken (`Sources/RepCounting/README.md`). The cap keeps signals that are small next
  /// to their noise countable.
  private let noiseMultiple: Double
  private var noiseFloor: Double {
    min((rhythm == nil ? noiseMultiple : Self.rhythmNoiseMultiple) * noiseDeviation, minRange)
  }
  /// Within a rhythm, the noise floor is this many times the jitter: a movement that repeats
  /// cycle after cycle is told from noise by its regularity (the correlation over seconds),
  /// not by its size in one frame's noise, so reps smaller than 16 times the jitter count.
  static let rhythmNoiseMultiple = 3.0
  /// The deviation of the signal's frame-to-frame noise, as measured (0 before five reads).
  var noiseDeviation: Double { Double(jitter.median ?? 0) / 5.64 }
  /// A rep quicker than this share of the median duration of the last cycles (counted or not,
  /// once there are three; forgotten after `learn_seconds` without a rep) is not one of this
  /// set's reps.
  static let tempoFloor = 0.4
  /// No rep, whatever the rhythm, is quicker than this.
  static let shortestRhythmRep = 0.2
  @exclusivity(unchecked) private var recentDurations = RunningMedian(capacity: 6)
  /// The last rep's trough and drop, until its way back up is known.
  @exclusivity(unchecked) private var pendingTrough: Double?
  @exclusivity(unchecked) private var pendingDrop = 0.0
  @exclusivity(unchecked) private var pendingRep: (duration: Double, full: Bool) = (0, false)
  /// The side that led at the bottom of the rep under way, and of the pending one.
  @exclusivity(unchecked) private var troughSide: SideChoice?
  @exclusivity(unchecked) private var pendingSide: SideChoice?
  /// When the last rep was counted.
  @exclusivity(unchecked) private var lastRepEnd = -Double.infinity
  /// Offsets and distances are in body sizes, measured at `scale` (angles need none).
  private let scaled: Bool
  @exclusivity(unchecked) private var scale: Float?
  @exclusivity(unchecked) var scaleIsPerFrame = false
  @exclusivity(unchecked) var onSample: ((SignalSample) -> Void)?
  /// Which of a definition's signals this engine reads (for samples).
  @exclusivity(unchecked) var signalIndex = 0
  /// The person's cadence in the smoothed signal.
  @exclusivity(unchecked) private var cadence = CadenceEstimator()
  /// The last cycles of movement, counted or not.
  @exclusivity(unchecked) private var cycles = RecentCycles()
  /// The rhythm the set keeps (`updateRhythm(at:)`), nil outside one.
  @exclusivity(unchecked) private var rhythm: Cadence?
  /// The rhythm the estimate last found, and since when it has held (its period within 30%).
  @exclusivity(unchecked) private var heldRhythm: Cadence?
  @exclusivity(unchecked) private var lockedSince: Double?
  /// When the thresholds alone last counted a rep (not a cycle counted for a rhythm).
  @exclusivity(unchecked) private var lastThresholdRep = -Double.infinity
  /// A rhythm counts once it has held this many of its periods: a few seconds of regular
  /// movement in a long video (a detector's wobble, fidgeting) is not yet a set.
  static let sustainedPeriods = 2.0
  /// The smallest swing a rhythm of reps has: `partial.min_range` (else `min_range_learned`).
  private let rhythmFloor: Double

  /// - Precondition: the definition's engine is the signal engine.
  init(_ definition: ExerciseDefinition) {
    guard case .signal(let counting) = definition.counting else {
      preconditionFailure("\(definition.name) is not counted by a signal")
    }
    self.definition = definition
    let signal = counting.signal
    reader = SignalReader(spec: signal, references: ExerciseCatalogue.references(of: signal))
    rules = FormRules(definition, direction: counting.direction)
    scaled = signal.kind != .angle && signal.kind != .inclination
    sign = counting.direction == .up ? -1 : 1
    alpha = counting.smoothing
    minConfidence = Float(definition.minConfidence)
    let thresholds = counting.thresholds
    if thresholds.mode == .fixed {
      fixedEnter = thresholds.enter! * sign
      fixedExit = thresholds.exit! * sign
    } else {
      fixedEnter = nil
      fixedExit = nil
    }
    minRange = thresholds.minRange ?? 0
    learnedMinRange = thresholds.minRangeLearned ?? minRange
    unanchoredSwing = thresholds.minRangeRhythm ?? learnedMinRange
    returnFraction = thresholds.returnFraction ?? 1
    fullFraction = thresholds.fullFraction
    countFraction = thresholds.repFraction
    learnSeconds = thresholds.learnSeconds ?? 30
    noiseMultiple = thresholds.jitterMultiple
    minRepSeconds = definition.minRepSeconds ?? 0
    maxRepSeconds = definition.maxRepSeconds ?? 8
    partial = definition.partial
    rhythmFloor = definition.partial?.minRange ?? learnedMinRange
    strict = definition.strict ?? false
    rawValues = FixedRing(capacity: counting.medianLength, repeating: 0)
  }

  func interrupt(at t: Double, because reason: Interruption, emit: (RepEvent) -> Void) {
    if reason == .end, atBottom, let lastTime, let value = lastTwoReadsLow, isBack(value) {
      // The stream ended on the way back up: the rep is done, only the smoothing has not
      // caught up with it yet.
      smoothed = value
      finishRep(at: lastTime, emit: emit)
    } else if reason == .end, atBottom, let lastTime, wasCutShort(at: lastTime) {
      finishRep(at: lastTime, cutShort: true, emit: emit)
    } else if atBottom, let smoothed {
      refuse(
        Rejection(
          reason: reason.rejection, start: peakTime, end: t, rangeOfMotion: peak - smoothed,
          detail: reason == .outOfSight ? nil : reason.rawValue), emit: emit)
    }
    if reason == .end, let lastTime { countShortSet(at: lastTime, emit: emit) }
    abandon()
  }

  /// Keeps the recent reps (their ranges and pace, for `learn_seconds`) and the measured noise.
  func startSet() {
    abandon()
    count = 0
  }

  /// Forgets the movement under way, keeping the count and what was learned.
  private func abandon() {
    reader.restart()
    smoothed = nil
    atBottom = false
    lastTime = nil
    lastReads.removeAll()
    pendingTrough = nil
    scale = nil
    rawValues.removeAll()
    cycles.restart()
  }

  func reset() {
    startSet()
    cadence.forget()
    cycles.removeAll()
    rhythm = nil
    heldRhythm = nil
    lockedSince = nil
    lastThresholdRep = -.infinity
    jitter.removeAll()
    recentReps.removeAll()
    recentDurations.removeAll()
    lastRepEnd = -.infinity
  }

  // MARK: thresholds

  /// The drop that starts a rep (adaptive). Strict: `min_range`, then once reps are known
  /// `fraction` of the typical range but at least `min_range_learned`. Otherwise: within a set
  /// `count_fraction` of the typical range but at least `min_range_learned`; else `min_range`.
  private func required(at t: Double) -> Double {
    let noise = noiseFloor
    guard let typical = typicalRange(at: t, fullOnly: false) else { return max(minRange, noise) }
    if strict { return max(learnedMinRange, fullFraction * typical, noise) }
    if rhythm != nil { return max(rhythmFloor, countFraction * typical, noise) }
    guard inSet(at: t) else { return max(minRange, noise) }
    return max(learnedMinRange, countFraction * typical, noise)
  }

  /// The drop of a full rep: what the top is judged by (how near the peak still counts as the
  /// top, how fast a resting level sinks), so shallow reps do not move where a rep starts.
  private func fullDrop(at t: Double) -> Double {
    guard let typical = typicalRange(at: t, fullOnly: false) else { return minRange }
    return max(learnedMinRange, fullFraction * typical)
  }

  /// Whether a set is under way: the last rep ended within two of the recent reps' median
  /// durations (a pause longer than that, and the next rep must prove itself again).
  private func inSet(at t: Double) -> Bool {
    if rhythm != nil { return true }
    guard let duration = median(at: t, side: nil, fullOnly: false, of: .duration) else {
      return false
    }
    return t - lastRepEnd <= 2 * max(duration, 0.5)
  }

  /// The median range of the recent reps; when the sides alternate (a knee raise led by each
  /// leg in turn), the smaller of the two sides' medians: seen from above, a leg raised a little
  /// less looks half as high, and it is held to its own reps, not the other leg's.
  private func typicalRange(at t: Double, fullOnly: Bool) -> Double? {
    if let rhythm { return rhythm.swing }
    let all = median(at: t, side: nil, fullOnly: fullOnly, of: .range)
    guard let left = median(at: t, side: .left, fullOnly: fullOnly, of: .range),
      let right = median(at: t, side: .right, fullOnly: fullOnly, of: .range)
    else { return all }
    return min(left, right)
  }

  /// A measure of a counted rep, for `median(at:side:fullOnly:of:)`.
  private enum RepMeasure { case range, duration }

  /// The median of a measure of the reps in the last `learn_seconds` (led by `side`, if given;
  /// full ones only, if asked). Runs several times a frame: sorts on the stack, with no array
  /// or key path in the loop.
  private func median(
    at t: Double, side: SideChoice?, fullOnly: Bool, of measure: RepMeasure
  ) -> Double? {
    withUnsafeTemporaryAllocation(of: Double.self, capacity: recentReps.capacity) { sorted in
      var count = 0
      for entry in recentReps where t - entry.time <= learnSeconds {
        if let side, entry.side != side { continue }
        if fullOnly && !entry.full { continue }
        count = Self.insert(measure == .range ? entry.range : entry.duration, into: sorted, count)
      }
      return count == 0 ? nil : sorted[count / 2]
    }
  }

  /// Inserts `value` into the first `count` values of `sorted` (ascending); returns the new
  /// count.
  @inline(__always)
  private static func insert(
    _ value: Double, into sorted: UnsafeMutableBufferPointer<Double>, _ count: Int
  ) -> Int {
    var slot = count
    while slot > 0, sorted[slot - 1] > value {
      sorted[slot] = sorted[slot - 1]
      slot -= 1
    }
    sorted[slot] = value
    return count + 1
  }

  /// Where the signal is when the stream ends, which the median and the EMA reach only frames
  /// later: the lower of the last two reads (turned to go down first), so both must be back
  /// for a rep to count there and one wild last frame cannot make one; nil unless the last two
  /// frames were read.
  private var lastTwoReadsLow: Double? {
    guard lastReads.count >= 2 else { return nil }
    return min(sign * lastReads[age: 0], sign * lastReads[age: 1])
  }

  /// Adds the fourth difference of the last five reads (consecutive frames) to `jitter`. A
  /// change of measuring scale between reps mixes scales in at most four differences, which
  /// the median over 45 absorbs.
  private func observeJitter(_ read: Double) {
    if lastReads.isFull {
      let (a, b, c, d) = (lastReads[0], lastReads[1], lastReads[2], lastReads[3])
      jitter.add(Float(abs(read - 4 * d + 6 * c - 4 * b + a)))
    }
    lastReads.append(read)
  }

  /// The median of the last `median_frames` raw values (fewer at the start or after a gap),
  /// or of the last `length`, if fewer.
  private func medianOfRecent(_ value: Double, length: Int) -> Double {
    rawValues.append(value)
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: rawValues.capacity) {
      sorted in
      var count = 0
      for age in 0..<min(length, rawValues.count) {
        count = Self.insert(rawValues[age: age], into: sorted, count)
      }
      return sorted[count / 2]
    }
  }

  /// How many frames the median spans and how much of each new value the EMA takes: the
  /// definition's, but lighter for a rhythm quicker than a second, so that reps of half a
  /// second keep their tops and bottoms (the median spans at most a fifth of a cycle).
  private var smoothingForRhythm: (median: Int, alpha: Double) {
    guard let rhythm, rhythm.period < 1, let frameStep = lastFrameStep, frameStep > 0 else {
      return (rawValues.capacity, alpha)
    }
    let span = Int(rhythm.period / frameStep / 5)
    return (min(rawValues.capacity, max(3, span | 1)), min(1, alpha / rhythm.period))
  }

  /// Feeds the smoothed signal to the cadence estimate, and takes the rhythm it finds if that
  /// swings enough to be reps: at least `rhythmFloor` and the rhythm's noise floor.
  private func followCadence(_ s: Double, t: Double) {
    cadence.add(s, at: t)
    updateRhythm(at: t)
    cycles.follow(s, at: t, threshold: rhythmSwingFloor)
  }

  /// The smallest swing that is a rhythm of reps (and a cycle of one): `rhythmFloor`, and the
  /// rhythm's noise floor.
  private var rhythmSwingFloor: Double {
    max(rhythmFloor, min(Self.rhythmNoiseMultiple * noiseDeviation, minRange))
  }

  /// The least swing of a rhythm that is a set with no rep the thresholds counted:
  /// `min_range_rhythm`, and the noise floor outside a rhythm (a still person's jitter, smoothed,
  /// swings in slow waves that the correlation may take for a rhythm).
  private var unanchoredFloor: Double {
    max(unanchoredSwing, min(noiseMultiple * noiseDeviation, minRange))
  }

  /// The rhythm is a set's once the estimate has held it for `sustainedPeriods`, it swings at
  /// least the rhythm floor, and either a rep the thresholds alone counted lies within
  /// `learn_seconds` or it swings `min_range_rhythm`: a person standing still sways their arms
  /// in a rhythm too (a front raise's signal follows), but never through a whole rep, nor as
  /// far as a set of small reps.
  private func updateRhythm(at t: Double) {
    let floor = rhythmSwingFloor
    let found = cadence.current.flatMap { $0.swing >= floor ? $0 : nil }
    if let found {
      if let held = heldRhythm, abs(found.period - held.period) <= 0.3 * held.period {
        // the same rhythm, held
      } else {
        lockedSince = t
      }
    } else {
      lockedSince = nil
    }
    heldRhythm = found
    if let found, let lockedSince, t - lockedSince >= Self.sustainedPeriods * found.period,
      t - lastThresholdRep <= learnSeconds || found.swing >= unanchoredFloor
    {
      rhythm = found
    } else {
      rhythm = nil
    }
  }

  // MARK: frames

  func process(_ pose: Pose, t: Double, bodySize: Float, emit: (RepEvent) -> Void) {
    let bodySize = measuringScale(bodySize)
    // After a gap, frames from before it must not steady the ones after it.
    if let lastTime, t - lastTime > 0.15 {
      reader.forgetRecent()
      rawValues.removeAll()
      lastReads.removeAll()
    }
    guard let read = reader.value(pose, bodySize: bodySize, minConfidence: minConfidence) else {
      lastReads.removeAll()  // the fourth difference is of consecutive reads
      return
    }
    let smoothing = smoothingForRhythm
    let raw = medianOfRecent(read, length: smoothing.median)
    observeJitter(read)
    let value = raw * sign
    let dt = lastTime.map { max(0, t - $0) } ?? 0
    if dt > 0 && dt <= 0.15 { lastFrameStep = dt }
    lastTime = t
    guard let previous = smoothed else {
      smoothed = value
      startTop(value, t)
      rules.beginRep()
      followCadence(value, t: t)
      return
    }
    // After a gap the smoothing starts again from what is seen: it is there to steady jitter,
    // not to bridge a person who went out of view.
    let s = dt > 0.15 ? value : previous + smoothing.alpha * (value - previous)
    smoothed = s
    followCadence(s, t: t)
    if atBottom {
      followBottom(s, raw: raw, pose: pose, bodySize: bodySize, t: t, emit: emit)
    } else {
      followTop(s, raw: raw, pose: pose, bodySize: bodySize, t: t, dt: dt, emit: emit)
    }
    countPassedOverCycles(at: t, emit: emit)
    if let onSample {
      let level = atBottom ? peak - threshold : peak - required(at: t)
      onSample(
        SignalSample(
          t: t, signal: signalIndex, value: s * sign, top: peak * sign, countLevel: level * sign,
          typicalRange: typicalRange(at: t, fullOnly: false)))
    }
  }

  private func followBottom(
    _ s: Double, raw: Double, pose: Pose, bodySize: Float, t: Double, emit: (RepEvent) -> Void
  ) {
    rules.observe(pose, main: raw, bodySize: bodySize, minConfidence: minConfidence)
    if s < trough {
      trough = s
      troughTime = t
      troughSide = reader.leadingSide
    }
    let drop = peak - trough
    if isBack(s) {
      finishRep(at: t, emit: emit)
    } else if let rhythm, t - peakTime > 2 * rhythm.period + 0.5,
      let top = cadence.highest(over: 1.25 * rhythm.period)
    {
      // Two cycles of the person's rhythm and the rep has not come back: the top it left
      // was not this rhythm's (a settling swing, a glitch). Refused, and counting goes on
      // from the rhythm's own last top; the cycles within may still count as passed over.
      refuse(
        Rejection(reason: .tooSlow, start: peakTime, end: t, rangeOfMotion: drop), emit: emit)
      atBottom = false
      startTop(s, t)
      peak = top.value
      peakTime = top.t
    } else if t - peakTime > maxRepSeconds {
      refuse(
        Rejection(reason: .tooSlow, start: peakTime, end: t, rangeOfMotion: drop), emit: emit)
      atBottom = false
      startTop(s, t)
    }
  }

  /// Whether a rep under way has come back up far enough to count at `value`: past the fixed
  /// exit; or by the count threshold or half its way down, whichever is more (strict: the
  /// threshold), capped by `return_fraction` of its way down.
  private func isBack(_ value: Double) -> Bool {
    if let fixedExit { return value >= fixedExit }
    let drop = peak - trough
    let needed = strict ? threshold : max(threshold, drop / 2)
    return value >= trough + min(needed, returnFraction * drop)
  }

  /// At the top: the peak follows the signal up at once and, after 1.5 s below it, down slowly
  /// (a third of the required drop a second), so a new resting level is learned within
  /// seconds while a rep in progress is measured from its real top. The rep starts when the
  /// signal last left the top (within a tenth of the drop of the peak).
  private func followTop(
    _ s: Double, raw: Double, pose: Pose, bodySize: Float, t: Double, dt: Double,
    emit: (RepEvent) -> Void
  ) {
    let needed = required(at: t)
    let full = fullDrop(at: t)
    if s >= peak {
      peak = s
      peakSetAt = t
      rules.beginRep()  // a rep is measured from the top it leaves
    } else if let rhythm, t - peakSetAt > 1.25 * rhythm.period,
      let top = cadence.highest(over: 1.25 * rhythm.period), top.value < peak
    {
      // A cycle of the rhythm below the peak: the peak was not this rhythm's top.
      peak = top.value
      peakSetAt = t
      peakTime = top.t
    } else if t - peakSetAt > 1.5 {
      // Below the peak for a while without a rep: a new resting level, not a rep under way.
      peak = max(s, peak - full * dt / 3)
    }
    if s >= peak - 0.1 * full { peakTime = t }
    rules.observe(pose, main: raw, bodySize: bodySize, minConfidence: minConfidence)
    let dropped = fixedEnter.map { s <= $0 } ?? (s <= peak - needed)
    if dropped {
      learnPendingRange(at: t)
      atBottom = true
      threshold = required(at: t)  // with the rep just learned
      trough = s
      troughTime = t
      troughSide = reader.leadingSide
      return
    }
    refuseTooSmall(s, t: t, emit: emit)
  }

  /// A dip that turns back before the count threshold, measured from the highest point before
  /// it (which, unlike the peak, does not sink while the dip lasts): refused as too small
  /// within a set (strict: as partial), and said nothing of outside one, where it is swaying.
  /// Within a rhythm, any dip past `partial.min_range` is heard; outside one the floor is
  /// `min_range_learned` too, which walking and a still person's jitter do not reach.
  private func refuseTooSmall(_ s: Double, t: Double, emit: (RepEvent) -> Void) {
    guard let partial else { return }
    if s >= dipTop {
      dipTop = s
      dipLow = s
      dipStart = t
      return
    }
    dipLow = min(dipLow, s)
    let floor = max(
      strict || rhythm != nil ? partial.minRange : max(partial.minRange, learnedMinRange),
      noiseFloor)
    guard dipTop - dipLow >= floor, s >= dipLow + floor else { return }
    if strict || inSet(at: dipStart) {
      refuse(
        Rejection(
          reason: strict ? .partial : .tooSmall, start: dipStart, end: t,
          rangeOfMotion: dipTop - dipLow, cue: partial.cue), emit: emit)
    }
    dipTop = s
    dipLow = s
    dipStart = t
  }

  /// How far back, in periods of the rhythm before it locked, cycles passed over are counted
  /// once it is found: the cycles the correlation needed to find it.
  static let recountedPeriods = 4.0
  /// And at most this many seconds back: reps of a slow rhythm are big enough for the
  /// thresholds; the ones passed over are the quick small ones.
  static let recountedSeconds = 6.0
  /// A cycle passed over is one of the rhythm's reps only if it took at most this many periods.
  static let longestCycle = 1.5

  /// Counts the cycles of the rhythm that the thresholds passed over before the rhythm was
  /// known, each as deep as the rhythm's reps must be: the first cycles of a set of small
  /// reps, each short of the first rep's `min_range`, or those under a top that a settling
  /// swing set too high. The rhythm is the evidence that they were reps. Cycles within the rep
  /// under way are left to it; after them, the top is the last one's.
  private func countPassedOverCycles(at t: Double, emit: (RepEvent) -> Void) {
    guard let rhythm, let lockedSince, !strict else { return }
    let needed = required(at: t)
    let horizon = min(
      Self.recountedSeconds, t - lockedSince + Self.recountedPeriods * rhythm.period)
    func isRep(_ cycle: RecentCycles.Cycle) -> Bool {
      let duration = cycle.end - cycle.start
      return cycle.range >= needed && duration <= Self.longestCycle * rhythm.period
        && duration >= Self.tempoFloor * rhythm.period
        && (cycle.refusedDuration ?? .infinity) >= shortestRep(in: rhythm)
        && (cycle.withinRep ?? .infinity) > Self.longestCycle * rhythm.period
    }
    var newest: RecentCycles.Cycle?
    cycles.countUncounted(at: t, horizon: horizon, before: atBottom ? peakTime : t, where: isRep) {
      cycle in
      count(cycle, at: t, emit: emit)
      newest = cycle
    }
    guard let newest else { return }
    if !atBottom && newest.end > peakTime {
      peak = newest.top
      peakTime = newest.end
      peakSetAt = t
    }
  }

  /// A set of a few quick reps ends before the cadence can lock on it (it needs several
  /// seconds of cycles). When the stream ends, the cycles of its last `recountedSeconds` that
  /// the thresholds passed over are its reps if at least `shortSetCycles` of them in a row are
  /// alike in pace and depth (`RecentCycles.countAlikeRun`), each quicker than
  /// `shortSetLongestCycle` and as deep as a rhythm with no rep of its own must be.
  private func countShortSet(at t: Double, emit: (RepEvent) -> Void) {
    guard rhythm == nil, !strict else { return }
    cycles.closeLastCycle(threshold: rhythmSwingFloor)
    let bar = max(unanchoredFloor, rhythmSwingFloor)
    func candidate(_ cycle: RecentCycles.Cycle) -> Bool {
      cycle.range >= bar && cycle.end - cycle.start >= Self.shortestRhythmRep
        && cycle.bottom - cycle.start <= Self.shortSetLongestCycle
        && cycle.end - cycle.bottom <= Self.shortSetLongestCycle
    }
    cycles.countAlikeRun(
      at: t, horizon: Self.recountedSeconds, fewest: Self.shortSetCycles, where: candidate
    ) { cycle, period in
      let shortest = max(Self.shortestRhythmRep, min(minRepSeconds, Self.tempoFloor * period))
      guard (cycle.refusedDuration ?? .infinity) >= shortest,
        (cycle.withinRep ?? .infinity) > Self.longestCycle * period
      else { return }
      count(cycle, at: t, emit: emit)
    }
  }

  /// Counts a cycle that the thresholds passed over as a rep (partial if shallow, with the
  /// partial cue).
  private func count(_ cycle: RecentCycles.Cycle, at t: Double, emit: (RepEvent) -> Void) {
    var counted = Rep(
      count: 0, start: cycle.start, end: cycle.end, rangeOfMotion: cycle.range,
      timeDown: cycle.bottom - cycle.start, timeUp: cycle.end - cycle.bottom)
    counted.partial = isShallow(cycle.range, at: t)
    if counted.partial { counted.cue = partial?.cue }
    count += 1
    counted.count = count
    lastRepEnd = max(lastRepEnd, cycle.end)
    emit(.rep(counted))
  }

  /// A short set at the end of a stream has at least this many cycles alike.
  static let shortSetCycles = 3
  /// A short set's cycles go down, and come back up, each within this many seconds: the
  /// thresholds count slower reps whole.
  static let shortSetLongestCycle = 1.5

  /// Whether the rep under way when the stream ends at `t` is one the recording cut short: in
  /// a set, already as deep as the person's reps (`cutShortDepth` of their typical range, not
  /// partial), and begun less than a rep's median duration ago (so not someone sitting down
  /// after the set). Real recordings often stop at the bottom of the last rep, and people count
  /// it. Strict counting, which wants the way back seen, does not.
  private func wasCutShort(at t: Double) -> Bool {
    let drop = peak - trough
    guard !strict, inSet(at: peakTime), drop >= fullDrop(at: t), !isShallow(drop, at: t),
      let typical = typicalRange(at: t, fullOnly: false), drop >= Self.cutShortDepth * typical,
      let duration = median(at: t, side: nil, fullOnly: false, of: .duration)
    else { return false }
    return t - peakTime <= duration
  }

  /// How much of the typical range a rep cut short by the end must already have moved: the
  /// movements people make after a set (a bar put down, a dip on the way out) are shallower.
  static let cutShortDepth = 0.75

  /// Ends the rep under way at `t`: counts it, or refuses it as too slow or too fast. A rep
  /// `cutShort` by the end of the stream is neither timed nor given a form cue (its way back
  /// up was never seen).
  private func finishRep(at t: Double, cutShort: Bool = false, emit: (RepEvent) -> Void) {
    atBottom = false
    let start = peakTime
    let duration = t - start
    let range = peak - trough
    defer { startTop(smoothed!, t) }
    if cutShort {
      var cut = rep(from: start, to: t, range: range)
      cut.cue = nil
      return count(cut, trough: trough, emit: emit)
    }
    // Longer than any rep: a drift (walking up to the camera), not a movement.
    guard duration <= maxRepSeconds else {
      refuse(Rejection(reason: .tooSlow, start: start, end: t, rangeOfMotion: range), emit: emit)
      return
    }
    // The pace of reps more than `learn_seconds` ago (an earlier set) judges nothing.
    if t - lastRepEnd > learnSeconds { recentDurations.removeAll() }
    let tempo = recentDurations.count >= 3 ? Double(recentDurations.median!) : 0
    recentDurations.add(Float(duration))
    // A rhythm quicker than `min_rep_seconds` allows says how quick a rep may be: reps of
    // 0.4 s are a cadence, not a glitch. Quicker than the person's own recent pace: not one of
    // their reps, whatever a rhythm shows later; quicker only than `min_rep_seconds`: a rhythm
    // found later may show that it was.
    let shortest = rhythm.map(shortestRep(in:)) ?? minRepSeconds
    let offPace = duration < Self.tempoFloor * tempo
    guard duration >= shortest && !offPace else {
      refuse(
        Rejection(
          reason: .tooFast, start: start, end: t, rangeOfMotion: range,
          cue: definition.tooFastCue), final: offPace, emit: emit)
      return
    }
    count(rep(from: start, to: t, range: range), trough: trough, emit: emit)
  }

  /// The rep from `start` to `t`: its timing, side, form cue, and whether it was partial.
  private func rep(from start: Double, to t: Double, range: Double) -> Rep {
    let formCue = rules.cue(
      duration: t - start, start: peak * sign, extreme: trough * sign, range: range)
    var rep = Rep(
      count: 0, start: start, end: t, rangeOfMotion: range, timeDown: troughTime - start,
      timeUp: t - troughTime, side: troughSide.map { $0 == .left ? "left" : "right" },
      cue: formCue)
    rep.partial = isShallow(range, at: t)
    if rep.partial { rep.cue = partial?.cue ?? formCue }
    return rep
  }

  /// The quickest rep within a rhythm: `min_rep_seconds`, or less for a rhythm quicker than
  /// that allows (`tempoFloor` of its period, but no less than `shortestRhythmRep`).
  private func shortestRep(in rhythm: Cadence) -> Double {
    max(Self.shortestRhythmRep, min(minRepSeconds, Self.tempoFloor * rhythm.period))
  }

  /// Refuses a movement. A `final` refusal (interrupted: the person moved, or went out of
  /// sight; or off the person's own pace) is not a rep whatever a rhythm shows later: the
  /// cycles within it are not counted as passed over. Others (too small or too quick for the
  /// thresholds that held before the rhythm was known) may be.
  private func refuse(_ rejection: Rejection, final: Bool = false, emit: (RepEvent) -> Void) {
    if final || rejection.reason == .interrupted || rejection.reason == .outOfSight {
      cycles.heard(from: rejection.start, to: rejection.end, .final)
    } else if rejection.reason == .tooFast {
      cycles.heard(
        from: rejection.start, to: rejection.end, .quick(rejection.end - rejection.start))
    }
    emit(.rejected(rejection))
  }

  /// Counts a rep: its number, when it ended, what to learn from it once its way back up is
  /// known.
  private func count(_ counted: Rep, trough: Double, emit: (RepEvent) -> Void) {
    var counted = counted
    count += 1
    counted.count = count
    lastRepEnd = counted.end
    lastThresholdRep = counted.end
    cycles.heard(from: counted.start, to: counted.end, .rep(taken: false))
    pendingTrough = trough
    pendingDrop = counted.rangeOfMotion
    pendingSide = troughSide
    pendingRep = (counted.duration, !counted.partial)
    emit(.rep(counted))
  }

  /// Whether a counted rep is shallower than `fraction` of the person's recent full reps (of
  /// all recent reps while none is full). Before any rep is known, none is.
  private func isShallow(_ range: Double, at t: Double) -> Bool {
    guard fixedEnter == nil,
      let typical = typicalRange(at: t, fullOnly: true) ?? typicalRange(at: t, fullOnly: false)
    else { return false }
    return range < fullFraction * typical
  }

  /// Learns the last rep's range once the signal has come back as far as it will: the smaller
  /// of the way down and the way back up. Getting into position (arms up to the rack before a
  /// shoulder press) makes a first "rep" with a long way down and a short way back; counting
  /// that as the person's range would make every real rep look partial.
  private func learnPendingRange(at t: Double) {
    guard let trough = pendingTrough else { return }
    let range = min(pendingDrop, peak - trough)
    pendingTrough = nil
    recentReps.append((range, t, pendingRep.duration, pendingSide, pendingRep.full))
  }

  /// The body size a rep is measured in: it follows the estimate only between reps, so a step
  /// in the estimate (a change of posture changes which segments show whole) cannot make or
  /// break a rep; what the engine holds is converted to the new size, as the same picture.
  /// When the picture's own scale changes every frame (`scaleIsPerFrame`), each frame is
  /// measured in its own.
  private func measuringScale(_ bodySize: Float) -> Float {
    if scaleIsPerFrame { return bodySize }
    guard scaled, let old = scale else {
      scale = bodySize
      return bodySize
    }
    guard !atBottom, old != bodySize, bodySize > 0 else { return old }
    let ratio = Double(old / bodySize)
    smoothed = smoothed.map { $0 * ratio }
    peak *= ratio
    dipTop *= ratio
    dipLow *= ratio
    pendingTrough = pendingTrough.map { $0 * ratio }
    pendingDrop *= ratio
    scale = bodySize
    return bodySize
  }

  private func startTop(_ s: Double, _ t: Double) {
    peak = s
    peakTime = t
    peakSetAt = t
    dipTop = s
    dipLow = s
    dipStart = t
  }
}
