import Poses

/// Counts reps of a scalar signal with hysteresis (Sources/RepCounting/README.md).
///
/// Each frame: read the signal (holding everything while its joints are missing or unsure),
/// smooth it with an EMA, then run a two-state machine. Internally the signal is turned so a rep
/// always goes *down* first. At the top, the engine waits for the signal to drop past the entry
/// threshold; at the bottom, it follows the lowest point and counts the rep when the signal
/// comes back past the exit threshold: one count, on one edge.
///
/// Thresholds are fixed numbers, or adaptive: the rep must move at least `min_range`, and at
/// least `fraction` of the person's typical range over the last `learn_seconds` (the median of
/// their recent full reps, or for alternating sides the smaller of the two sides' medians),
/// measured from the highest point before the drop; once those reps are known, the floor is
/// `min_range_learned` (a walk or a still person never makes them).
/// So the engine learns each person's range within their first reps, from any camera angle,
/// and rests, walking or a change of view seconds ago do not dilute it. Movements past
/// `partial.min_range` that turn back before the threshold are partial reps: not counted, but
/// cued. A rep completes when the signal is back by the drop required to start one, or by
/// `return_fraction` of its own drop if less.
final class SignalEngine: RepEngine {
  let definition: ExerciseDefinition
  private(set) var count = 0
  private var reader: SignalReader
  private var rules: FormRules
  private let sign: Double  // +1 for down, −1 for up: internal values always go down first
  private let alpha: Double
  private let minConfidence: Float
  private let fixedEnter: Double?
  private let fixedExit: Double?
  private let minRange: Double
  private let learnedMinRange: Double
  private let returnFraction: Double
  private let fraction: Double
  private let learnSeconds: Double
  private let minRepSeconds: Double
  private let partial: ExerciseDefinition.PartialRule?
  /// A rep takes at most this long (`max_rep_seconds`, 8 s by default); a slower "rep" is a
  /// drift, and a bottom held longer is someone sitting down: back to the top.
  private let maxRepSeconds: Double

  private var smoothed: Double?
  private var atBottom = false
  private var peak = 0.0
  private var peakTime = 0.0
  private var peakSetAt = 0.0  // when the peak was last raised
  private var trough = 0.0
  private var troughTime = 0.0
  private var dipTop = 0.0  // the highest point since the last rep or partial, while at the top
  private var dipLow = 0.0  // the lowest point since `dipTop`
  private var lastTime: Double?
  /// The ranges and end times of the last six full reps.
  private var recentRanges = FixedRing<(range: Double, time: Double, side: SideChoice?)>(
    capacity: 6, repeating: (0, 0, nil))
  private var scratch: [Double] = []
  /// The last rep's trough and drop, until its way back up is known.
  private var pendingTrough: Double?
  private var pendingDrop = 0.0
  /// The side that led at the bottom of the rep under way, and of the pending one.
  private var troughSide: SideChoice?
  private var pendingSide: SideChoice?
  /// Offsets and distances are in body sizes, measured at `scale` (angles need none).
  private let scaled: Bool
  private var scale: Float?

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
    returnFraction = thresholds.returnFraction ?? 1
    fraction = thresholds.fraction ?? 0.5
    learnSeconds = thresholds.learnSeconds ?? 30
    minRepSeconds = definition.minRepSeconds ?? 0
    maxRepSeconds = definition.maxRepSeconds ?? 8
    partial = definition.partial
    scratch.reserveCapacity(8)
  }

  func interrupt() {
    reader.restart()
    smoothed = nil
    atBottom = false
    lastTime = nil
    pendingTrough = nil
    scale = nil
  }

  func reset() {
    reader.restart()
    count = 0
    smoothed = nil
    atBottom = false
    lastTime = nil
    recentRanges.removeAll()
    pendingTrough = nil
    scale = nil
  }

  /// The drop that starts a rep (adaptive): min_range, or once the person's full reps in the
  /// last `learn_seconds` are known, `fraction` of their median range but at least
  /// min_range_learned.
  private func required(at t: Double) -> Double {
    guard let typical = typicalRange(at: t) else { return minRange }
    return max(learnedMinRange, fraction * typical)
  }

  /// The median of the recent full reps' ranges; when the sides alternate (a knee raise led by
  /// each leg in turn), the smaller of the two sides' medians: seen from above, a leg raised a
  /// little less looks half as high, and it is held to its own reps, not the other leg's.
  private func typicalRange(at t: Double) -> Double? {
    let all = median(at: t, side: nil)
    guard let left = median(at: t, side: .left), let right = median(at: t, side: .right) else {
      return all
    }
    return min(left, right)
  }

  /// The median range of the full reps in the last `learn_seconds` (led by `side`, if given).
  private func median(at t: Double, side: SideChoice?) -> Double? {
    scratch.removeAll(keepingCapacity: true)
    for entry in recentRanges where t - entry.time <= learnSeconds {
      if let side, entry.side != side { continue }
      // Insertion into a sorted list of at most eight: no allocation, no sort buffer.
      var slot = scratch.count
      scratch.append(entry.range)
      while slot > 0, scratch[slot - 1] > entry.range {
        scratch[slot] = scratch[slot - 1]
        slot -= 1
      }
      scratch[slot] = entry.range
    }
    return scratch.isEmpty ? nil : scratch[scratch.count / 2]
  }

  func process(_ pose: Pose, t: Double, bodySize: Float, emit: (RepEvent) -> Void) {
    let bodySize = measuringScale(bodySize)
    // After a gap, frames from before it must not steady the ones after it.
    if let lastTime, t - lastTime > 0.15 { reader.forgetRecent() }
    guard let raw = reader.value(pose, bodySize: bodySize, minConfidence: minConfidence) else {
      return
    }
    let value = raw * sign
    let dt = lastTime.map { max(0, t - $0) } ?? 0
    lastTime = t
    guard let previous = smoothed else {
      smoothed = value
      startTop(value, t)
      rules.beginRep()
      return
    }
    // After a gap the smoothing starts again from what is seen: it is there to steady jitter,
    // not to bridge a person who went out of view.
    let s = dt > 0.15 ? value : previous + alpha * (value - previous)
    smoothed = s
    if atBottom {
      rules.observe(pose, main: raw, bodySize: bodySize, minConfidence: minConfidence)
      if s < trough {
        trough = s
        troughTime = t
        troughSide = reader.leadingSide
      }
      let back =
        fixedExit.map { s >= $0 }
        ?? (s >= trough + min(required(at: t), returnFraction * (peak - trough)))
      if back {
        finishRep(at: t, emit: emit)
      } else if t - peakTime > maxRepSeconds {
        atBottom = false
        startTop(s, t)
      }
      return
    }
    // At the top: the peak follows the signal up at once and, after 1.5 s below it, down slowly
    // (a third of the required drop a second), so a new resting level is learned within
    // seconds while a rep in progress is measured from its real top. The rep
    // starts when the signal last left the top (within a tenth of the drop of the peak).
    let needed = required(at: t)
    if s >= peak {
      peak = s
      peakSetAt = t
      rules.beginRep()  // a rep is measured from the top it leaves
    } else if t - peakSetAt > 1.5 {
      // Below the peak for a while without a rep: a new resting level, not a rep under way.
      peak = max(s, peak - needed * dt / 3)
    }
    if s >= peak - 0.1 * needed { peakTime = t }
    rules.observe(pose, main: raw, bodySize: bodySize, minConfidence: minConfidence)
    let dropped = fixedEnter.map { s <= $0 } ?? (s <= peak - needed)
    if dropped {
      learnPendingRange(at: t)
      atBottom = true
      trough = s
      troughTime = t
      troughSide = reader.leadingSide
      return
    }
    // A dip that turns back before the threshold: a partial rep, measured from the highest
    // point before it (which, unlike the peak, does not sink while the dip lasts).
    if s >= dipTop {
      dipTop = s
      dipLow = s
    } else {
      dipLow = min(dipLow, s)
      if let partial, dipTop - dipLow >= partial.minRange, s >= dipLow + partial.minRange {
        emit(.cue(message: partial.cue, t: t))
        dipTop = s
        dipLow = s
      }
    }
  }

  private func finishRep(at t: Double, emit: (RepEvent) -> Void) {
    atBottom = false
    let start = peakTime
    let duration = t - start
    let range = peak - trough
    defer { startTop(smoothed!, t) }
    // Longer than any rep: a drift (walking up to the camera), not a movement.
    guard duration <= maxRepSeconds else { return }
    guard duration >= minRepSeconds else {
      if let message = definition.tooFastCue { emit(.cue(message: message, t: t)) }
      return
    }
    count += 1
    pendingTrough = trough
    pendingDrop = range
    pendingSide = troughSide
    emit(
      .rep(
        Rep(
          count: count, start: start, end: t, rangeOfMotion: range, timeDown: troughTime - start,
          timeUp: t - troughTime,
          cue: rules.cue(
            duration: duration, start: peak * sign, extreme: trough * sign, range: range))))
  }

  /// Learns the last rep's range once the signal has come back as far as it will: the smaller
  /// of the way down and the way back up. Getting into position (arms up to the rack before a
  /// shoulder press) makes a first "rep" with a long way down and a short way back; counting
  /// that as the person's range would make every real rep look partial.
  private func learnPendingRange(at t: Double) {
    guard let trough = pendingTrough else { return }
    let range = min(pendingDrop, peak - trough)
    pendingTrough = nil
    recentRanges.append((range, t, pendingSide))
  }

  /// The body size a rep is measured in: it follows the estimate only between reps, so a step
  /// in the estimate (a change of posture changes which segments show whole) cannot make or
  /// break a rep; what the engine holds is converted to the new size, as the same picture.
  var scaleIsPerFrame = false

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
  }
}
