/// The rhythm a set keeps in one signal engine's smoothed signal: the cadence estimate's period
/// and swing, once they are a set's (`SignalEngine`, "Counting keeps time").
///
/// The estimate's rhythm is a set's once the estimate has held it for `sustainedPeriods` of its
/// periods (its period within 30%), it swings at least the engine's rhythm floor, and either a
/// rep the thresholds alone counted lies within the engine's `learn_seconds` (`anchored`) or it
/// swings the floor of a rhythm with no rep of its own: a person standing still sways their
/// arms in a rhythm too (a front raise's signal follows), but never through a whole rep, nor as
/// far as a set of small reps. Allocates only at `init` (the estimate's buffers).
struct SetRhythm {
  /// A rhythm counts once it has held this many of its periods: a few seconds of regular
  /// movement in a long video (a detector's wobble, fidgeting) is not yet a set.
  static let sustainedPeriods = 2.0

  /// The person's cadence in the smoothed signal.
  private(set) var cadence = CadenceEstimator()
  /// The rhythm the set keeps, nil outside one.
  private(set) var current: Cadence?
  /// The rhythm the estimate last found, and since when it has held.
  private var held: Cadence?
  private(set) var lockedSince: Double?

  /// Follows the smoothed signal at `t`. `floor`: the least swing of a rhythm of reps;
  /// `unanchoredFloor`: the least swing of one with no rep the thresholds counted recently.
  mutating func follow(
    _ value: Double, at t: Double, floor: Double, unanchoredFloor: Double, anchored: Bool
  ) {
    cadence.add(value, at: t)
    let found = cadence.current.flatMap { $0.swing >= floor ? $0 : nil }
    if let found {
      if let held, abs(found.period - held.period) <= 0.3 * held.period {
        // the same rhythm, held
      } else {
        lockedSince = t
      }
    } else {
      lockedSince = nil
    }
    held = found
    if let found, let lockedSince, t - lockedSince >= Self.sustainedPeriods * found.period,
      anchored || found.swing >= unanchoredFloor
    {
      current = found
    } else {
      current = nil
    }
  }

  /// The highest value over the last `seconds`, and when it was.
  func highest(over seconds: Double) -> (value: Double, t: Double)? {
    cadence.highest(over: seconds)
  }

  /// No rhythm known: a new person.
  mutating func forget() {
    cadence.forget()
    current = nil
    held = nil
    lockedSince = nil
  }
}
