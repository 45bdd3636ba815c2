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
/// Allocates only at `init`.
struct RecentCycles {
  /// When a cycle left its top, reached its lowest point and came back to the next top; the
  /// smaller of its way down and back up; the level of the top it came back to; whether the
  /// engine has heard it for good (counted it, or refused it whatever the rhythm); and, if the
  /// engine refused it as quicker than `min_rep_seconds`, how long the engine measured it.
  typealias Cycle = (
    start: Double, bottom: Double, end: Double, range: Double, top: Double, counted: Bool,
    refusedDuration: Double?
  )

  /// Room for the cycles of the seconds the cadence estimate needs to find a rhythm.
  static let capacity = 12

  private var cycles = FixedRing<Cycle>(
    capacity: capacity, repeating: (0, 0, 0, 0, 0, false, nil))
  /// The spans of the last reps counted and movements refused, so that a cycle recorded after
  /// the engine heard it is known as heard: for good, or as too quick (its measured duration).
  private var heard = FixedRing<(start: Double, end: Double, quick: Double?)>(
    capacity: 8, repeating: (0, 0, nil))
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
        if let top = lastTop, let bottom = lastBottom, top.t < bottom.t {
          let range = min(top.value - bottom.value, current.value - bottom.value)
          var cycle: Cycle = (top.t, bottom.t, current.t, range, current.value, false, nil)
          for span in heard where (span.start...span.end).contains(bottom.t) {
            if let quick = span.quick {
              cycle.refusedDuration = quick
            } else {
              cycle.counted = true
            }
          }
          cycles.append(cycle)
        }
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

  /// The engine counted a rep, or refused a movement for good, from `start` to `end`; or, with
  /// `quick`, refused it as quicker than `min_rep_seconds`, having measured it that long.
  mutating func heard(from start: Double, to end: Double, quick: Double? = nil) {
    heard.append((start, end, quick))
    for age in 0..<cycles.count where (start...end).contains(cycles[age: age].bottom) {
      if let quick {
        cycles[age: age].refusedDuration = quick
      } else {
        cycles[age: age].counted = true
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
      heard.append((cycle.start, cycle.end, nil))
      body(cycle)
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
