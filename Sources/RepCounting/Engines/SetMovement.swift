import Poses

/// What an engine sees of its set's movement at a moment: whether it goes on, and when the last
/// rep ended. The session keeps a set under way while its movement goes on, whatever the
/// classifier's doubts, and ends it at its last rep when the movement stops
/// (`Sources/Spotter/Runtime/SetTracker.swift`).
public struct SetMovement: Equatable, Sendable {
  /// The movement goes on: a rhythm is held, a rep ended within the last two periods of the
  /// set's pace, or a rep is under way (the signal away from its top for no longer than the
  /// person's reps take).
  public var goesOn: Bool
  /// When the last rep counted ended (−∞ before any).
  public var lastRep: Double
  /// The median duration of the recent reps, nil before any.
  public var repDuration: Double?
  /// The set's pace: the median time from one rep's end to the next (the rhythm's period, or
  /// twice a rep's duration, before two reps), nil before any.
  public var period: Double?
  /// A rep is under way: the signal has left its top, for no longer than the person's reps
  /// take.
  public var repUnderWay: Bool
  /// Two reps, or a rhythm and a rep, give the set a pace: only then does the movement keep a
  /// set between its reps, or say that it has stopped.
  public var paced: Bool

  public init(
    goesOn: Bool, lastRep: Double, repDuration: Double?, period: Double?, repUnderWay: Bool,
    paced: Bool
  ) {
    self.goesOn = goesOn
    self.lastRep = lastRep
    self.repDuration = repDuration
    self.period = period
    self.repUnderWay = repUnderWay
    self.paced = paced
  }

  /// Nothing moving, no rep known.
  public static let still = SetMovement(
    goesOn: false, lastRep: -.infinity, repDuration: nil, period: nil, repUnderWay: false,
    paced: false)
}

/// The pace of an engine's reps: when the last ones ended and how long each took, from which it
/// tells whether the movement goes on (`SetMovement`).
///
/// A set of slow reps (one every 8 s, the person standing tall between them) is no rhythm the
/// cadence estimate can hold (it looks at periods up to 4 s), so its pace comes from the reps
/// themselves: the median time from one rep's end to the next. Allocates only at `init`.
struct RepPace {
  /// The last reps' ends and durations (oldest first).
  private var reps = FixedRing<(end: Double, duration: Double)>(capacity: 6, repeating: (0, 0))
  /// How long ago a rep still tells the pace (an earlier set's reps tell nothing).
  let memory: Double
  /// The slowest pace a set keeps: reps further apart are separate sets.
  let longestPeriod: Double

  init(memory: Double, longestPeriod: Double) {
    self.memory = memory
    self.longestPeriod = longestPeriod
  }

  var lastRep: Double { reps.last?.end ?? -.infinity }

  mutating func add(end: Double, duration: Double) { reps.append((end, duration)) }

  mutating func removeAll() { reps.removeAll() }

  /// The median duration of the reps within `memory` of `t`.
  func typicalDuration(at t: Double) -> Double? {
    withUnsafeTemporaryAllocation(of: Double.self, capacity: reps.capacity) { sorted in
      var count = 0
      for rep in reps where t - rep.end <= memory {
        count = sorted.insertSorted(rep.duration, count: count)
      }
      return count == 0 ? nil : sorted[count / 2]
    }
  }

  /// The median time between consecutive reps' ends within `memory` of `t` (nil with fewer
  /// than two).
  func typicalPeriod(at t: Double) -> Double? {
    withUnsafeTemporaryAllocation(of: Double.self, capacity: reps.capacity) { sorted in
      var count = 0
      var previous: Double?
      for rep in reps where t - rep.end <= memory {
        if let previous { count = sorted.insertSorted(rep.end - previous, count: count) }
        previous = rep.end
      }
      return count == 0 ? nil : sorted[count / 2]
    }
  }

  /// The movement at `t`: it goes on while `rhythmPeriod` is held, and, once two reps (or the
  /// rhythm) give a pace, within two periods of the last rep, or while a rep is under way since
  /// `underWaySince` for no longer than one and a half of the person's reps.
  func movement(at t: Double, rhythmPeriod: Double?, underWaySince: Double?) -> SetMovement {
    let duration = typicalDuration(at: t)
    let pace = typicalPeriod(at: t) ?? rhythmPeriod
    let period = duration.map { max(pace ?? 2 * $0, $0) }
    // One rep is no pace: it takes two (or a rhythm) for a set to be kept between its reps or
    // through one under way.
    var goesOn = rhythmPeriod != nil
    var underWay = false
    if let pace, let duration {
      underWay = underWaySince.map { t - $0 <= max(1.5 * duration, 1) } ?? false
      goesOn = goesOn || underWay || t - lastRep <= min(2 * max(pace, duration), 2 * longestPeriod)
    }
    return SetMovement(
      goesOn: goesOn, lastRep: lastRep, repDuration: duration, period: period,
      repUnderWay: underWay, paced: pace != nil && duration != nil)
  }
}

extension UnsafeMutableBufferPointer<Double> {
  /// Inserts `value` into the first `count` values (ascending); returns the new count. For
  /// medians sorted on the stack, with no array in the loop.
  @inline(__always)
  func insertSorted(_ value: Double, count: Int) -> Int {
    var slot = count
    while slot > 0, self[slot - 1] > value {
      self[slot] = self[slot - 1]
      slot -= 1
    }
    self[slot] = value
    return count + 1
  }
}
