import Foundation
import Randomness

/// How one person does one set: the variety real people show, drawn once per set.
public struct ExerciseStyle: Sendable {
  /// Scales the range of full reps (0.85–1.05).
  public var depth: Double
  /// Extra range on the person's left (positive) or right (negative) side: uneven form.
  public var asymmetry: Double
  /// 0 narrow … 1 wide stance or grip.
  public var width: Double
  /// How far the trunk leans in exercises where it may (0–1).
  public var lean: Double
  /// Which of the exercise's variants (knee push-ups, alternating curls, …).
  public var variant: Int
  /// Sloppiness: the amplitude, in degrees, of slow wobble on every angle.
  public var wobble: Double
  /// Phases of the wobble, so no two sets wobble alike.
  public var phases: [Double]
  /// How much each rep's depth strays from the set's (a share: 0.075 is ±7.5%).
  public var depthSpread = 0.075
  /// How much slower the last reps are than the first (0: steady; 0.3: 30% slower).
  public var fatigue = 0.0
  /// A pause within the set, after this share of the reps (nil: none), and its length.
  public var pause: (after: Double, seconds: Double)? = nil
  /// Equipment held: a bar across the back, dumbbells at the sides (exercises done standing).
  public var equipment: Equipment = .none
  /// Kipping: the legs swing and the hips drive each pull-up (0: strict; 1: a full kip).
  public var swing = 0.0

  public enum Equipment: Sendable { case none, barOnBack, dumbbells }

  public init(
    depth: Double, asymmetry: Double, width: Double, lean: Double, variant: Int, wobble: Double,
    phases: [Double]
  ) {
    self.depth = depth
    self.asymmetry = asymmetry
    self.width = width
    self.lean = lean
    self.variant = variant
    self.wobble = wobble
    self.phases = phases
  }

  public static func random(using generator: inout SeededGenerator) -> ExerciseStyle {
    ExerciseStyle(
      depth: 0.85 + 0.2 * generator.unit(), asymmetry: 0.12 * (2 * generator.unit() - 1),
      width: generator.unit(),
      lean: generator.unit(), variant: Int(generator.next() % 3), wobble: 1 + 5 * generator.unit(),
      phases: (0..<8).map { _ in 2 * .pi * generator.unit() })
  }

  /// A set as people do it outside a lab: half the time less than full range (half and quarter
  /// squats, short push-ups, crunches rather than sit-ups), reps that stray in depth, slowing
  /// through the set, sometimes a pause in the middle, and for standing exercises a bar or
  /// dumbbells. Calibrated against real sets (Countix-Fitness, Penn Action): real reps take
  /// 0.9–1.8 s (sit-ups 2–3 s) and their depth varies by about a quarter within a set.
  public static func everyday(using generator: inout SeededGenerator) -> ExerciseStyle {
    var style = random(using: &generator)
    let range = generator.unit()
    style.depth =
      range < 0.5
      ? 0.8 + 0.25 * generator.unit()
      : range < 0.8 ? 0.5 + 0.25 * generator.unit() : 0.32 + 0.18 * generator.unit()
    style.depthSpread = 0.1 + 0.15 * generator.unit()
    style.fatigue = 0.4 * generator.unit()
    if generator.unit() < 0.25 {
      style.pause = (0.3 + 0.4 * generator.unit(), 1.5 + 3 * generator.unit())
    }
    let held = generator.unit()
    style.equipment = held < 0.2 ? .barOnBack : held < 0.4 ? .dumbbells : .none
    style.swing = generator.unit() < 0.4 ? 0.5 + 0.5 * generator.unit() : 0
    return style
  }

  /// A set as rehabilitation does it: slow, controlled and deep (squats and lunges past
  /// parallel), the arms held forward for balance, steady from rep to rep. Real deep rehab
  /// squats are what the classifier read as `other` from every side.
  public static func rehab(using generator: inout SeededGenerator) -> ExerciseStyle {
    var style = random(using: &generator)
    style.depth = 1.1 + 0.2 * generator.unit()
    style.variant = 0  // arms forward, in the exercises where the arms are free
    style.wobble = 0.5 + 1.5 * generator.unit()
    style.depthSpread = 0.05
    return style
  }

  /// How much slower than the exercise's usual tempo a rehab set goes: 1.4–2.2 times its
  /// slowest.
  static func rehabTempo(
    _ motion: ExerciseMotion, using generator: inout SeededGenerator
  ) -> Double {
    motion.tempo.upperBound * (1.4 + 0.8 * generator.unit())
  }

  /// Plain form, for tests that need the textbook movement.
  public static let textbook = ExerciseStyle(
    depth: 1, asymmetry: 0, width: 0.5, lean: 0.5, variant: 0, wobble: 0,
    phases: Array(repeating: 0, count: 8))

  /// A slow wobble in degrees at time `t`, channel `index` (each limb its own).
  func wobble(_ index: Int, at t: Double) -> Double {
    wobble * (0.6 * sin(1.3 * t + phases[index % 8]) + 0.4 * sin(3.1 * t + phases[(index + 3) % 8]))
  }
}
