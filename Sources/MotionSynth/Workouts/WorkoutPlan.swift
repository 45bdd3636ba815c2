import Foundation
import Randomness

/// What a synthetic person does, in order: exercise sets, rests and other movement.
///
/// Written as text for `spotter synth --workout`: `squat:10, rest:20, jumping_jack:15,
/// walking:8, push_up:10` — an exercise with its reps, `rest` or an `other` kind with seconds.
public struct WorkoutPlan: Sendable, Equatable {
  public enum Item: Sendable, Equatable {
    case exercise(ExerciseMotion, reps: Int, partialReps: Int)
    case other(OtherActivity.Kind, seconds: Double)
    /// Standing about or fidgeting between sets.
    case rest(seconds: Double)
  }

  public var items: [Item]

  public init(items: [Item]) { self.items = items }

  /// The demo's workout: squats, a rest, jumping jacks, walking about, push-ups, and a switch
  /// to bicep curls.
  public static let demo = WorkoutPlan(items: [
    .exercise(.squat, reps: 10, partialReps: 0), .rest(seconds: 8),
    .exercise(.jumpingJack, reps: 15, partialReps: 0),
    .other(.walking, seconds: 6), .exercise(.pushUp, reps: 8, partialReps: 0),
    .exercise(.bicepCurl, reps: 12, partialReps: 0),
  ])

  /// One set of one exercise between two short rests.
  public static func single(_ motion: ExerciseMotion, reps: Int, partialReps: Int = 0)
    -> WorkoutPlan
  {
    WorkoutPlan(items: [
      .rest(seconds: 2), .exercise(motion, reps: reps, partialReps: partialReps), .rest(seconds: 2),
    ])
  }

  /// A random workout of `sets` sets with rests and other movement between them, each set one
  /// of `motions` (every exercise by default; the draws are the same whichever list is given,
  /// so a list of all of them draws the workouts the default does).
  ///
  /// - Parameter others: the kinds of other movement drawn between sets (`Kind.classic`, the
  ///   kinds random workouts have always drawn, by default).
  public static func random(
    sets: Int, of motions: [ExerciseMotion] = ExerciseMotion.allCases,
    others: [OtherActivity.Kind] = OtherActivity.Kind.classic,
    generator: inout SeededGenerator
  ) -> WorkoutPlan {
    precondition(!motions.isEmpty, "WorkoutPlan.random: no exercises to draw from")
    var items: [Item] = []
    // Half the workouts start with a walk into position; half end with a walk away.
    if generator.unit() < 0.5 { items.append(.other(.walking, seconds: 3 + 5 * generator.unit())) }
    for index in 0..<sets {
      let motion = motions[Int(generator.next() % UInt64(motions.count))]
      let partial = generator.unit() < 0.25 ? 1 : 0
      items.append(.exercise(motion, reps: 3 + Int(generator.next() % 13), partialReps: partial))
      if index + 1 < sets {
        let kind = others[Int(generator.next() % UInt64(others.count))]
        items.append(
          generator.unit() < 0.5
            ? .rest(seconds: 3 + 10 * generator.unit())
            : .other(kind, seconds: 3 + 8 * generator.unit()))
      }
    }
    if generator.unit() < 0.5 { items.append(.other(.walking, seconds: 3 + 5 * generator.unit())) }
    return WorkoutPlan(items: items)
  }

  /// Parses the text form. Errors say which item was wrong and what is allowed.
  public static func parse(_ text: String) throws -> WorkoutPlan {
    var items: [Item] = []
    for (index, raw) in text.split(separator: ",").enumerated() {
      let part = raw.trimmingCharacters(in: .whitespaces)
      let pieces = part.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
      guard pieces.count == 2, let amount = Double(pieces[1]), amount > 0, amount.isFinite else {
        throw WorkoutPlanError(
          message: "item \(index + 1) '\(part)' must be NAME:NUMBER, e.g. squat:10 or rest:20")
      }
      let name = pieces[0]
      if let motion = ExerciseMotion(rawValue: name) {
        guard amount == amount.rounded(), amount <= 500 else {
          throw WorkoutPlanError(
            message: "item \(index + 1) '\(part)': reps must be a whole number up to 500")
        }
        items.append(.exercise(motion, reps: Int(amount), partialReps: 0))
      } else if name == "rest" {
        items.append(.rest(seconds: amount))
      } else if let kind = OtherActivity.Kind(rawValue: name) {
        items.append(.other(kind, seconds: amount))
      } else {
        let names =
          ExerciseMotion.allCases.map(\.rawValue) + ["rest"]
          + OtherActivity.Kind.allCases.map(\.rawValue)
        throw WorkoutPlanError(
          message:
            "item \(index + 1): unknown activity '\(name)'; expected one of "
            + "\(names.joined(separator: ", "))"
        )
      }
    }
    guard !items.isEmpty else {
      throw WorkoutPlanError(message: "the workout is empty; e.g. squat:10, rest:20, push_up:8")
    }
    return WorkoutPlan(items: items)
  }
}

public struct WorkoutPlanError: Error, CustomStringConvertible, Equatable {
  public var message: String
  public var description: String { message }
}
