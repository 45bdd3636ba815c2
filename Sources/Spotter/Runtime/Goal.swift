/// A target that ends a set: a number of reps, or a time under way (`--goal squat:20`,
/// `--goal 60s`, `--goal lunge:45s`). Without an exercise it holds for every set.
public struct Goal: Equatable, Sendable, CustomStringConvertible {
  public enum Target: Equatable, Sendable {
    case reps(Int)
    case seconds(Double)
  }

  /// The exercise it is for (nil: any).
  public var exercise: String?
  public var target: Target

  public init(exercise: String?, target: Target) {
    self.exercise = exercise
    self.target = target
  }

  /// Reads `20`, `squat:20`, `60s`, `squat:45s`; nil for anything else.
  public init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard (1...2).contains(parts.count), let amount = parts.last, !amount.isEmpty else {
      return nil
    }
    exercise = parts.count == 2 ? parts[0] : nil
    if exercise?.isEmpty == true { return nil }
    if amount.hasSuffix("s"), let seconds = Double(amount.dropLast()), seconds > 0,
      seconds.isFinite
    {
      target = .seconds(seconds)
    } else if let reps = Int(amount), reps > 0 {
      target = .reps(reps)
    } else {
      return nil
    }
  }

  public var description: String {
    let amount: String
    switch target {
    case .reps(let reps): amount = "\(reps)"
    case .seconds(let seconds):
      amount = (seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") + "s"
    }
    return exercise.map { "\($0):\(amount)" } ?? amount
  }

  /// Whether it holds for sets of `exercise`.
  public func applies(to exercise: String) -> Bool { self.exercise.map { $0 == exercise } ?? true }

  /// Whether a set with `reps` counted and `seconds` under way has reached it.
  public func isReached(reps: Int, seconds: Double) -> Bool {
    switch target {
    case .reps(let target): reps >= target
    case .seconds(let target): seconds >= target
    }
  }
}
