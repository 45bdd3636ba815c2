import Poses

/// What a signal engine has learned from the person's recent reps: how far they move (each
/// rep's range, learned once its way back up is known), how long their reps take, which side
/// led, and when the last ones ended (`SignalEngine`, "Count what a person would count").
/// Forgotten after the definition's `learn_seconds`, and by `SignalEngine.reset` (a new
/// person); a new set by the same person keeps it. Allocates only at `init`.
struct RepHistory {
  /// The last six reps learned: range, when it was learned, duration, leading side, whether
  /// full.
  private var reps = FixedRing<
    (range: Double, time: Double, duration: Double, side: SideChoice?, full: Bool)
  >(capacity: 6, repeating: (0, 0, 0, nil, false))
  /// The durations of the last reps finished, counted or refused, for the person's own pace.
  private var durations = RunningMedian(capacity: 6)
  /// The last rep counted: its trough, drop, duration, fullness and side, until its way back up
  /// is known.
  private var pendingTrough: Double?
  private var pendingDrop = 0.0
  private var pendingRep: (duration: Double, full: Bool, side: SideChoice?) = (0, false, nil)
  /// When the last rep was counted (a cycle counted for a rhythm too).
  private(set) var lastRepEnd = -Double.infinity
  /// When the thresholds alone last counted a rep (not a cycle counted for a rhythm).
  private(set) var lastThresholdRep = -Double.infinity
  /// `learn_seconds`: reps older than this teach nothing.
  let learnSeconds: Double

  init(learnSeconds: Double) {
    self.learnSeconds = learnSeconds
  }

  /// A measure of a learned rep, for `median(at:side:fullOnly:of:)`.
  enum Measure { case range, duration }

  /// The median of a measure of the reps learned in the last `learn_seconds` (led by `side`, if
  /// given; full ones only, if asked). Runs several times a frame: sorts on the stack, with no
  /// array or key path in the loop.
  func median(at t: Double, side: SideChoice?, fullOnly: Bool, of measure: Measure) -> Double? {
    withUnsafeTemporaryAllocation(of: Double.self, capacity: reps.capacity) { sorted in
      var count = 0
      for entry in reps where t - entry.time <= learnSeconds {
        if let side, entry.side != side { continue }
        if fullOnly && !entry.full { continue }
        count = sorted.insertSorted(
          measure == .range ? entry.range : entry.duration, count: count)
      }
      return count == 0 ? nil : sorted[count / 2]
    }
  }

  /// The median range of the recent reps; when the sides alternate (a knee raise led by each
  /// leg in turn), the smaller of the two sides' medians: seen from above, a leg raised a little
  /// less looks half as high, and it is held to its own reps, not the other leg's.
  func typicalRange(at t: Double, fullOnly: Bool) -> Double? {
    let all = median(at: t, side: nil, fullOnly: fullOnly, of: .range)
    guard let left = median(at: t, side: .left, fullOnly: fullOnly, of: .range),
      let right = median(at: t, side: .right, fullOnly: fullOnly, of: .range)
    else { return all }
    return min(left, right)
  }

  /// Whether a set is under way at `t` by the reps alone: the last rep ended within two of the
  /// recent reps' median durations (a pause longer than that, and the next rep must prove
  /// itself again).
  func inSet(at t: Double) -> Bool {
    guard let duration = median(at: t, side: nil, fullOnly: false, of: .duration) else {
      return false
    }
    return t - lastRepEnd <= 2 * max(duration, 0.5)
  }

  /// A rep the thresholds counted: ended at `end`, at the bottom `trough` below a drop of
  /// `drop`, led by `side`; learned once the signal has come back as far as it will.
  mutating func counted(
    end: Double, trough: Double, drop: Double, duration: Double, full: Bool, side: SideChoice?
  ) {
    lastRepEnd = end
    lastThresholdRep = end
    pendingTrough = trough
    pendingDrop = drop
    pendingRep = (duration, full, side)
  }

  /// A cycle counted for a rhythm, ending at `end`.
  mutating func countedCycle(end: Double) { lastRepEnd = max(lastRepEnd, end) }

  /// Learns the last rep's range once the signal has come back as far as it will (up to the
  /// top `peak`): the smaller of the way down and the way back up. Getting into position (arms
  /// up to the rack before a shoulder press) makes a first "rep" with a long way down and a
  /// short way back; counting that as the person's range would make every real rep look
  /// partial.
  mutating func learnPendingRange(peak: Double, at t: Double) {
    guard let trough = pendingTrough else { return }
    let range = min(pendingDrop, peak - trough)
    pendingTrough = nil
    reps.append((range, t, pendingRep.duration, pendingRep.side, pendingRep.full))
  }

  /// The person's recent pace (the median duration of their last reps finished, once there
  /// are three within `learn_seconds`; else 0), before a rep of `duration` finished at `t`
  /// joins it.
  mutating func pace(adding duration: Double, at t: Double) -> Double {
    if t - lastRepEnd > learnSeconds { durations.removeAll() }
    let pace = durations.count >= 3 ? Double(durations.median!) : 0
    durations.add(Float(duration))
    return pace
  }

  /// The measuring scale changed by `ratio`: the pending rep is converted, as the same picture.
  mutating func rescale(by ratio: Double) {
    pendingTrough = pendingTrough.map { $0 * ratio }
    pendingDrop *= ratio
  }

  /// The movement under way was abandoned: its pending rep is not learned.
  mutating func dropPending() { pendingTrough = nil }

  /// A new person: nothing learned.
  mutating func removeAll() {
    dropPending()
    reps.removeAll()
    durations.removeAll()
    lastRepEnd = -.infinity
    lastThresholdRep = -.infinity
  }
}
