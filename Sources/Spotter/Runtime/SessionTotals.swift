import Poses
import RepCounting

/// A person's totals so far: per exercise, in the order first seen, reps, active seconds,
/// goals reached and each side's range of motion; the summary's `exercises`.
struct SessionTotals {
  private var totals: [ExerciseTotal] = []
  /// Per exercise with a `range_joint`.
  private var angleRanges: [AngleRanges] = []

  /// Ranges of `joint` are kept for `label`'s reps (made when the session is, so a rep
  /// allocates nothing).
  mutating func measureRanges(of label: String, joint: JointAngle) {
    angleRanges.append(AngleRanges(label: label, joint: joint))
  }

  /// `label` is in the summary from now on, even with no reps.
  mutating func include(_ label: String) {
    if !totals.contains(where: { $0.name == label }) {
      totals.append(ExerciseTotal(name: label, reps: 0, activeSeconds: 0))
    }
  }

  mutating func rep(of label: String, angles: JointAngles?) {
    if let angles, let index = angleRanges.firstIndex(where: { $0.label == label }) {
      angleRanges[index].add(angles)
    }
  }

  mutating func ended(_ label: String, reps: Int, seconds: Double) {
    let index = totals.firstIndex { $0.name == label }!
    totals[index].reps += reps
    totals[index].activeSeconds += max(0, seconds)
  }

  /// Counts sets this person finished in an earlier session (one this session resumes).
  mutating func carry(_ sets: [SetRecord]) {
    for set in sets {
      include(set.exercise)
      ended(set.exercise, reps: set.count, seconds: set.activeSeconds)
    }
  }

  mutating func goalReached(_ label: String) {
    let index = totals.firstIndex { $0.name == label }!
    totals[index].goalsReached += 1
  }

  /// The totals, with the set under way (`active`: its exercise, reps and seconds so far).
  func summary(active: (label: String, reps: Int, seconds: Double)?) -> [ExerciseTotal] {
    totals.map { total in
      var total = total
      total.angles = angleRanges.first { $0.label == total.name }?.summary
      guard let active, total.name == active.label else { return total }
      total.reps += active.reps
      total.activeSeconds += active.seconds
      return total
    }
  }
}

/// One exercise's rep ranges on each side, in degrees: the last 64 for the median, the best of
/// all; the summary's `range_of_motion` (a session's, and `spotter count`'s). Allocated when
/// the session starts.
public struct AngleRanges: Sendable {
  public let label: String
  public let joint: JointAngle
  private var left = RunningMedian(capacity: 64)
  private var right = RunningMedian(capacity: 64)
  private var best: (left: Double, right: Double) = (0, 0)

  public init(label: String, joint: JointAngle) {
    self.label = label
    self.joint = joint
  }

  /// Takes a rep's angles.
  public mutating func add(_ angles: JointAngles) {
    if let side = angles.left {
      left.add(Float(side.range))
      best.left = max(best.left, side.range)
    }
    if let side = angles.right {
      right.add(Float(side.range))
      best.right = max(best.right, side.range)
    }
  }

  /// The reps' ranges so far, nil before a rep had a side seen.
  public var summary: AngleSummary? {
    let l = left.median.map { AngleSummary.Side(best: best.left, median: Double($0)) }
    let r = right.median.map { AngleSummary.Side(best: best.right, median: Double($0)) }
    guard l != nil || r != nil else { return nil }
    return AngleSummary(joint: joint.rawValue, left: l, right: r)
  }
}
