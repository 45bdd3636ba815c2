import Poses

/// The last cycles of movement in a signal engine's smoothed signal, counted as reps or not.
///
/// A zig-zag over the signal (turned to go down first): a top, then a bottom at least
/// `threshold` below it, then a top at least `threshold` above that is a cycle, whatever the
/// engine's thresholds made of it. Once the cadence shows that the person moves in a rhythm,
/// the cycles the thresholds passed over (the first reps of a set of small reps, each short of
/// the first rep's `min_range`; the reps under a top that a settling swing set too high) are
/// the rhythm's reps, and the engine counts them then: a steady rhythm is never passed over in
/// silence.
///
/// Allocates only at `init`, and when a stream ends (`countAlikeRun`): nothing per frame.
struct RecentCycles {
  /// When a cycle left its top, reached its lowest point and came back to the next top; the
  /// smaller of its way down and back up; the level of the top it came back to; whether the
  /// engine has heard it for good (counted it, or refused it whatever the rhythm); if the
  /// engine refused it as quicker than `min_rep_seconds`, how long the engine measured it; and
  /// if it lies in a rep the engine counted but is not that rep's first cycle (the first rep's
  /// floors took several quick cycles for one), how long that rep took.
  typealias Cycle = (
    start: Double, bottom: Double, end: Double, range: Double, top: Double, counted: Bool,
    refusedDuration: Double?, withinRep: Double?
  )

  /// What the engine made of a span of the signal.
  enum Hearing {
    /// Counted as a rep (`taken`: one of the cycles within is that rep).
    case rep(taken: Bool)
    /// Refused as quicker than `min_rep_seconds`, measured that long.
    case quick(Double)
    /// Refused whatever a rhythm shows, or a cycle counted for one.
    case final
  }

  /// Room for the cycles of the seconds the cadence estimate needs to find a rhythm.
  static let capacity = 12

  private var cycles = FixedRing<Cycle>(
    capacity: capacity, repeating: (0, 0, 0, 0, 0, false, nil, nil))
  /// The spans of the last reps counted and movements refused, so that a cycle recorded after
  /// the engine heard it is known as heard.
  private var heard = FixedRing<(start: Double, end: Double, hearing: Hearing)>(
    capacity: 8, repeating: (0, 0, .final))
  private var rising = true
  private var extreme: (value: Double, t: Double)?
  private var lastTop: (value: Double, t: Double)?
  private var lastBottom: (value: Double, t: Double)?

  /// Follows the signal at `t`; a cycle is recorded when the fall after its second top passes
  /// `threshold`.
  mutating func follow(_ value: Double, at t: Double, threshold: Double) {
    guard let current = extreme else {
      extreme = (value, t)
      return
    }
    if rising {
      if value > current.value {
        extreme = (value, t)
      } else if current.value - value >= threshold {
        recordCycle(endingAt: current)
        lastTop = current
        rising = false
        extreme = (value, t)
      }
    } else {
      if value < current.value {
        extreme = (value, t)
      } else if value - current.value >= threshold {
        lastBottom = current
        rising = true
        extreme = (value, t)
      }
    }
  }

  /// The signal ends: a cycle whose way back up is `threshold` or more, but that no fall
  /// followed, is recorded.
  mutating func closeLastCycle(threshold: Double) {
    guard rising, let current = extreme, let bottom = lastBottom,
      current.value - bottom.value >= threshold
    else { return }
    recordCycle(endingAt: current)
    lastTop = current
    lastBottom = nil
  }

  /// Records the cycle from the last top down to the last bottom and back up to `end`.
  private mutating func recordCycle(endingAt end: (value: Double, t: Double)) {
    guard let top = lastTop, let bottom = lastBottom, top.t < bottom.t else { return }
    let range = min(top.value - bottom.value, end.value - bottom.value)
    var cycle: Cycle = (top.t, bottom.t, end.t, range, end.value, false, nil, nil)
    for age in 0..<heard.count
    where (heard[age: age].start...heard[age: age].end).contains(bottom.t) {
      Self.hear(&cycle, &heard[age: age])
    }
    cycles.append(cycle)
  }

  /// What the engine made of the signal from `start` to `end`, for the cycles within (those
  /// recorded, and those recorded later).
  mutating func heard(from start: Double, to end: Double, _ hearing: Hearing) {
    var span = (start: start, end: end, hearing: hearing)
    for age in stride(from: cycles.count - 1, through: 0, by: -1)
    where (start...end).contains(cycles[age: age].bottom) {
      Self.hear(&cycles[age: age], &span)
    }
    heard.append(span)
  }

  /// Marks `cycle` with what the engine made of the span it lies in.
  private static func hear(
    _ cycle: inout Cycle, _ span: inout (start: Double, end: Double, hearing: Hearing)
  ) {
    switch span.hearing {
    case .final: cycle.counted = true
    case .quick(let duration): cycle.refusedDuration = duration
    case .rep(let taken):
      if taken {
        cycle.withinRep = span.end - span.start
      } else {
        cycle.counted = true
        span.hearing = .rep(taken: true)
      }
    }
  }

  /// Takes, oldest first, each cycle that ended within `horizon` seconds of `t`, no later than
  /// `before`, was not counted, and `qualifies`: marks it counted and hands it to `body`.
  mutating func countUncounted(
    at t: Double, horizon: Double, before: Double, where qualifies: (Cycle) -> Bool,
    then body: (Cycle) -> Void
  ) {
    var count = 0
    for age in 0..<cycles.count where t - cycles[age: age].end <= horizon { count += 1 }
    for age in stride(from: count - 1, through: 0, by: -1) {
      let cycle = cycles[age: age]
      guard !cycle.counted, cycle.end <= before, qualifies(cycle) else { continue }
      cycles[age: age].counted = true
      heard.append((cycle.start, cycle.end, .final))
      body(cycle)
    }
  }

  /// Takes the longest run of cycles that ended within `horizon` seconds of `t`, were not
  /// counted and `qualify`, if it has at least `fewest` cycles alike: one after another, their
  /// bottoms `0.6…1.6` of the median time between bottoms apart, each at least half their
  /// median range. Bottoms, not tops, time a run: the tops before and after a set lie on
  /// plateaus. Marks them counted and hands each to `body` with that median time.
  mutating func countAlikeRun(
    at t: Double, horizon: Double, fewest: Int, where qualifies: (Cycle) -> Bool,
    then body: (Cycle, _ period: Double) -> Void
  ) {
    var ages: [Int] = []
    for age in stride(from: cycles.count - 1, through: 0, by: -1) {
      let cycle = cycles[age: age]
      if t - cycle.end <= horizon, !cycle.counted, qualifies(cycle) { ages.append(age) }
    }
    guard ages.count >= fewest else { return }
    let intervals = zip(ages, ages.dropFirst()).map {
      cycles[age: $1].bottom - cycles[age: $0].bottom
    }
    let period = intervals.sorted()[intervals.count / 2]
    let range = ages.map { cycles[age: $0].range }.sorted()[ages.count / 2]
    var best = 0..<0
    var start = 0
    for index in ages.indices {
      let deep = cycles[age: ages[index]].range >= 0.5 * range
      let inStep = index == start || (0.6 * period...1.6 * period).contains(intervals[index - 1])
      if !(deep && inStep) { start = deep ? index : index + 1 }
      if index + 1 - start > best.count { best = start..<(index + 1) }
    }
    guard best.count >= fewest else { return }
    for index in best {
      cycles[age: ages[index]].counted = true
      let cycle = cycles[age: ages[index]]
      heard.append((cycle.start, cycle.end, .final))
      body(cycle, period)
    }
  }

  /// The signal was not followed for a while: the next cycle starts afresh.
  mutating func restart() {
    extreme = nil
    lastTop = nil
    lastBottom = nil
    rising = true
  }

  mutating func removeAll() {
    restart()
    cycles.removeAll()
    heard.removeAll()
  }
}
