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
  /// The median of the last reads and the measured jitter.
  @exclusivity(unchecked) private var conditioner: SignalConditioner
  /// What the person's recent reps taught: their range, duration, side and pace.
  @exclusivity(unchecked) private var history: RepHistory
  /// When the reps ended and how long they took, for the set's movement.
  @exclusivity(unchecked) private var pace: RepPace
  /// The noise floor: no rep, and no refusal, is smaller than `noise_multiple` (16 by default)
  /// times the measured jitter, but the floor never rises above `min_range`. 16 times about
  /// 0.3 σ is about 5 σ of the joints' white noise; real jitter is also slower than white
  /// (detectors smooth their output, pipelines rescale whole frames), and what the medians let
  /// through of it raises the measure less. 16 was chosen on the Countix tune half with its
  /// poses shaken (`Sources/RepCounting/README.md`). The cap keeps signals that are small next
  /// to their noise countable.
  private let noiseMultiple: Double
  private var noiseFloor: Double {
    min(
      (rhythm.current == nil ? noiseMultiple : Self.rhythmNoiseMultiple)
        * conditioner.noiseDeviation, minRange)
  }
  /// Within a rhythm, the noise floor is this many times the jitter: a movement that repeats
  /// cycle after cycle is told from noise by its regularity (the correlation over seconds),
  /// not by its size in one frame's noise, so reps smaller than 16 times the jitter count.
  static let rhythmNoiseMultiple = 3.0
  /// The deviation of the signal's frame-to-frame noise, as measured (0 before five reads).
  var noiseDeviation: Double { conditioner.noiseDeviation }
  /// A rep quicker than this share of the median duration of the last cycles (counted or not,
  /// once there are three; forgotten after `learn_seconds` without a rep) is not one of this
  /// set's reps.
  static let tempoFloor = 0.4
  /// No rep, whatever the rhythm, is quicker than this.
  static let shortestRhythmRep = 0.2
  /// The side that led at the bottom of the rep under way.
  @exclusivity(unchecked) private var troughSide: SideChoice?
  /// Offsets and distances are in body sizes, measured at `scale` (angles need none).
  private let scaled: Bool
  @exclusivity(unchecked) private var scale: Float?
  @exclusivity(unchecked) var scaleIsPerFrame = false
  @exclusivity(unchecked) var onSample: ((SignalSample) -> Void)?
  /// Which of a definition's signals this engine reads (for samples).
  @exclusivity(unchecked) var signalIndex = 0
  /// The rhythm the set keeps in the smoothed signal.
  @exclusivity(unchecked) private var rhythm = SetRhythm()
  /// The last cycles of movement, counted or not.
  @exclusivity(unchecked) private var cycles = RecentCycles()
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
    history = RepHistory(learnSeconds: thresholds.learnSeconds ?? 30)
    noiseMultiple = thresholds.jitterMultiple
    minRepSeconds = definition.minRepSeconds ?? 0
    maxRepSeconds = definition.maxRepSeconds ?? 8
    pace = RepPace(memory: history.learnSeconds, longestPeriod: maxRepSeconds)
    partial = definition.partial
    rhythmFloor = definition.partial?.minRange ?? learnedMinRange
    strict = definition.strict ?? false
    conditioner = SignalConditioner(medianLength: counting.medianLength)
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

  /// Keeps the recent reps (their ranges and tempo, for `learn_seconds`) and the measured noise;
  /// the set's pace (`movement(at:)`) is its own.
  func startSet() {
    abandon()
    count = 0
    pace.removeAll()
  }

  /// Forgets the movement under way, keeping the count and what was learned.
  private func abandon() {
    reader.restart()
    smoothed = nil
    atBottom = false
    lastTime = nil
    conditioner.restart()
    history.dropPending()
    scale = nil
    cycles.restart()
  }

  func reset() {
    startSet()
    rhythm.forget()
    cycles.removeAll()
    conditioner.forget()
    history.removeAll()
    pace.removeAll()
  }

  // MARK: thresholds

  /// The drop that starts a rep (adaptive). Strict: `min_range`, then once reps are known
  /// `fraction` of the typical range but at least `min_range_learned`. Otherwise: within a set
  /// `count_fraction` of the typical range but at least `min_range_learned`; else `min_range`.
  private func required(at t: Double) -> Double {
    let noise = noiseFloor
    guard let typical = typicalRange(at: t, fullOnly: false) else { return max(minRange, noise) }
    if strict { return max(learnedMinRange, fullFraction * typical, noise) }
    if rhythm.current != nil { return max(rhythmFloor, countFraction * typical, noise) }
    guard inSet(at: t) else { return max(minRange, noise) }
    return max(learnedMinRange, countFraction * typical, noise)
  }

  /// The drop of a full rep: what the top is judged by (how near the peak still counts as the
  /// top, how fast a resting level sinks), so shallow reps do not move where a rep starts.
  private func fullDrop(at t: Double) -> Double {
    guard let typical = typicalRange(at: t, fullOnly: false) else { return minRange }
    return max(learnedMinRange, fullFraction * typical)
  }

  /// Whether a set is under way: a rhythm is held, or the reps say so (`RepHistory.inSet`).
  private func inSet(at t: Double) -> Bool {
    rhythm.current != nil || history.inSet(at: t)
  }

  /// The typical range of a rep: the rhythm's swing, else the recent reps' (`RepHistory`).
  private func typicalRange(at t: Double, fullOnly: Bool) -> Double? {
    if let current = rhythm.current { return current.swing }
    return history.typicalRange(at: t, fullOnly: fullOnly)
  }

  /// Where the signal is when the stream ends, which the median and the EMA reach only frames
  /// later: the lower of the last two reads (turned to go down first), so both must be back
  /// for a rep to count there and one wild last frame cannot make one; nil unless the last two
  /// frames were read.
  private var lastTwoReadsLow: Double? {
    guard let (newest, before) = conditioner.lastTwoReads else { return nil }
    return min(sign * newest, sign * before)
  }

  /// How many frames the median spans and how much of each new value the EMA takes: the
  /// definition's, but lighter for a rhythm quicker than a second, so that reps of half a
  /// second keep their tops and bottoms (the median spans at most a fifth of a cycle).
  private var smoothingForRhythm: (median: Int, alpha: Double) {
    let length = conditioner.medianLength
    guard let current = rhythm.current, current.period < 1, let frameStep = conditioner.frameStep,
      frameStep > 0
    else {
      return (length, alpha)
    }
    let span = Int(current.period / frameStep / 5)
    return (min(length, max(3, span | 1)), min(1, alpha / current.period))
  }

  /// Feeds the smoothed signal to the rhythm, which takes what the cadence estimate finds if
  /// that swings enough to be reps (`SetRhythm`), and to the cycles.
  private func followCadence(_ s: Double, t: Double) {
    rhythm.follow(
      s, at: t, floor: rhythmSwingFloor, unanchoredFloor: unanchoredFloor,
      anchored: t - history.lastThresholdRep <= history.learnSeconds)
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

  /// What the engine sees of the set's movement at `t` (`RepPace.movement`): the rhythm held,
  /// the reps' pace, or a rep under way since the signal left its top.
  /// A rhythm is held only while the engine reads frames: the counter stops giving it any
  /// while the person walks across the picture, and the last rhythm found is then stale.
  func movement(at t: Double) -> SetMovement {
    let reading = lastTime.map { t - $0 <= 0.5 } ?? false
    return pace.movement(
      at: t, rhythmPeriod: reading ? rhythm.current?.period : nil,
      underWaySince: atBottom ? peakTime : nil)
  }

  // MARK: frames

  func process(_ pose: Pose, t: Double, bodySize: Float, emit: (RepEvent) -> Void) {
    let bodySize = measuringScale(bodySize)
    // After a gap, frames from before it must not steady the ones after it.
    if let lastTime, t - lastTime > 0.15 {
      reader.forgetRecent()
      conditioner.restart()
    }
    guard let read = reader.value(pose, bodySize: bodySize, minConfidence: minConfidence) else {
      conditioner.missedRead()
      return
    }
    let smoothing = smoothingForRhythm
    let raw = conditioner.condition(read, length: smoothing.median)
    let value = raw * sign
    let dt = lastTime.map { max(0, t - $0) } ?? 0
    conditioner.step(dt)
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
    } else if let current = rhythm.current, t - peakTime > 2 * current.period + 0.5,
      let top = rhythm.highest(over: 1.25 * current.period)
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
    } else if let current = rhythm.current, t - peakSetAt > 1.25 * current.period,
      let top = rhythm.highest(over: 1.25 * current.period), top.value < peak
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
      history.learnPendingRange(peak: peak, at: t)
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
      strict || rhythm.current != nil ? partial.minRange : max(partial.minRange, learnedMinRange),
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
    guard let rhythm = rhythm.current, let lockedSince = self.rhythm.lockedSince, !strict else {
      return
    }
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
    guard rhythm.current == nil, !strict else { return }
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
    history.countedCycle(end: cycle.end)
    pace.add(end: cycle.end, duration: cycle.end - cycle.start)
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
      let duration = history.median(at: t, side: nil, fullOnly: false, of: .duration)
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
    let tempo = history.pace(adding: duration, at: t)
    // A rhythm quicker than `min_rep_seconds` allows says how quick a rep may be: reps of
    // 0.4 s are a cadence, not a glitch. Quicker than the person's own recent pace: not one of
    // their reps, whatever a rhythm shows later; quicker only than `min_rep_seconds`: a rhythm
    // found later may show that it was.
    let shortest = rhythm.current.map(shortestRep(in:)) ?? minRepSeconds
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
    history.counted(
      end: counted.end, trough: trough, drop: counted.rangeOfMotion, duration: counted.duration,
      full: !counted.partial, side: troughSide)
    pace.add(end: counted.end, duration: counted.duration)
    cycles.heard(from: counted.start, to: counted.end, .rep(taken: false))
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
    history.rescale(by: ratio)
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
