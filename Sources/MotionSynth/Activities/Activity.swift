/// Something a synthetic person does for a while: an exercise set, a rest, a walk.
public protocol Activity: Sendable {
  /// The ground-truth label (README, "Labels"): an exercise, or `other`.
  var label: String { get }
  /// Seconds.
  var duration: Double { get }
  /// Full reps (partial ones are not counted), and when each began and ended, in local seconds.
  var repBounds: [ClosedRange<Double>] { get }
  /// The body at local time `t` in 0...duration.
  func state(at t: Double) -> BodyState
}

extension Activity {
  public var repBounds: [ClosedRange<Double>] { [] }
}
