import Foundation
import Randomness

/// When each rep of a set happens and how deep it goes: the shared rhythm of every exercise.
///
/// A set starts and ends at rest (depth 0). Each rep goes down, may pause at the bottom,
/// comes up, and may pause at the top; depth follows a half cosine, so speed is zero at both
/// ends as in real movement. Tempo varies ±15 % from rep to rep. Partial reps can be mixed in
/// after the first two full reps: movements begun and abandoned, 10–18% of the way down, too
/// small to be reps at all (a shallow rep that completes its cycle is a rep, and is drawn by
/// the set's depth instead). Alternating exercises switch side every rep.
public struct RepTimeline: Sendable {
  public struct Rep: Sendable {
    public var start: Double
    public var bottom: Double  // reaches full depth
    public var rise: Double  // leaves the bottom
    public var end: Double
    public var depth: Double  // 1: the full range of the exercise
    public var isPartial: Bool
    public var side: Side
  }

  public enum Side: Sendable {
    case left, right
    var other: Side { self == .left ? .right : .left }
  }

  public let reps: [Rep]
  public let duration: Double

  /// - Parameters:
  ///   - reps: full reps to do.
  ///   - secondsPerRep: the mean time of one rep's movement, 0.5–3 s.
  ///   - partialReps: abandoned movements mixed in (not reps).
  ///   - alternating: whether each rep is led by the other side.
  ///   - depthSpread: how far each rep's depth strays from `depth` (a share).
  ///   - fatigue: how much slower the last rep is than the first (a share).
  ///   - pause: a rest within the set, after a share of the reps.
  public init(
    reps count: Int, secondsPerRep: Double, partialReps: Int = 0, alternating: Bool = false,
    depth: Double = 1, depthSpread: Double = 0.075, fatigue: Double = 0,
    pause: (after: Double, seconds: Double)? = nil,
    generator: inout SeededGenerator
  ) {
    var reps: [Rep] = []
    var t = 0.25 + 0.6 * generator.unit()  // getting set
    var side: Side = generator.unit() < 0.5 ? .left : .right
    let partialSlots = Self.partialSlots(reps: count, partialReps: partialReps, &generator)
    let bottomPause = generator.unit() < 0.4 ? 0.1 + 0.5 * generator.unit() : 0
    let topPause = generator.unit() < 0.5 ? 0.1 + 0.6 * generator.unit() : 0.05 * generator.unit()
    let slots = count + partialReps
    let pauseSlot = pause.map { Int(($0.after * Double(slots)).rounded()) }
    for slot in 0..<slots {
      let partial = partialSlots.contains(slot)
      let slowing = 1 + fatigue * Double(slot) / Double(max(1, slots - 1))
      let moving =
        secondsPerRep * slowing * (0.85 + 0.3 * generator.unit()) * (partial ? 0.6 : 1)
      let down = moving * (0.4 + 0.2 * generator.unit())
      let hold = partial ? 0 : bottomPause * (0.5 + generator.unit())
      let start = t
      let bottom = start + down
      let rise = bottom + hold
      let end = rise + (moving - down)
      let depthOfRep = Self.depth(
        partial: partial, set: depth, spread: depthSpread, &generator)
      reps.append(
        Rep(
          start: start, bottom: bottom, rise: rise, end: end, depth: depthOfRep, isPartial: partial,
          side: side))
      if alternating { side = side.other }
      t = end + topPause * (0.5 + generator.unit())
      if slot + 1 == pauseSlot, let pause { t += pause.seconds }
    }
    self.reps = reps
    duration = t + 0.3 + 0.7 * generator.unit()
  }

  /// Where a set's abandoned movements go among its `reps + partialReps` slots: after the first
  /// two full reps, since people warm into a set, and a counter meeting a new person learns
  /// their range from the first reps.
  static func partialSlots(
    reps count: Int, partialReps: Int, _ generator: inout SeededGenerator
  ) -> Set<Int> {
    var slots = Set<Int>()
    let first = min(2, count)
    while slots.count < partialReps {
      slots.insert(first + Int(generator.unit() * Double(count - first + partialReps)))
    }
    return slots
  }

  /// How deep one rep goes: an abandoned movement 10–18% of the way down, a rep the set's
  /// depth give or take `spread`.
  static func depth(
    partial: Bool, set depth: Double, spread: Double, _ generator: inout SeededGenerator
  ) -> Double {
    partial
      ? 0.1 + 0.08 * generator.unit()
      : depth * (1 - spread + 2 * spread * generator.unit() - 0.025)
  }

  /// The full reps' time spans.
  public var repBounds: [ClosedRange<Double>] {
    reps.filter { !$0.isPartial }.map { $0.start...$0.end }
  }

  /// Depth (0 at rest, 1 at the bottom of a full rep) and the leading side at time `t`.
  public func position(at t: Double) -> (depth: Double, side: Side) {
    for rep in reps where t < rep.end {
      guard t > rep.start else { return (0, rep.side) }
      let amount: Double
      if t < rep.bottom {
        amount = ease((t - rep.start) / (rep.bottom - rep.start))
      } else if t < rep.rise {
        amount = 1
      } else {
        amount = 1 - ease((t - rep.rise) / (rep.end - rep.rise))
      }
      return (amount * rep.depth, rep.side)
    }
    return (0, reps.last?.side ?? .left)
  }

  private func ease(_ u: Double) -> Double { (1 - cos(.pi * min(max(u, 0), 1))) / 2 }
}
