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

  public static func random(using generator: inout SeededGenerator) -> ExerciseStyle {
    ExerciseStyle(
      depth: 0.85 + 0.2 * generator.unit(), asymmetry: 0.12 * (2 * generator.unit() - 1),
      width: generator.unit(),
      lean: generator.unit(), variant: Int(generator.next() % 3), wobble: 1 + 5 * generator.unit(),
      phases: (0..<8).map { _ in 2 * .pi * generator.unit() })
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
