/// One exercise's share of a session: the reps counted and the seconds it was under way.
public struct ExerciseTotal: Equatable, Sendable {
  public var name: String
  public var reps: Int
  public var activeSeconds: Double
  /// Sets of it that reached their goal.
  public var goalsReached = 0
  /// The range its joint moved through, per side, over the session's reps.
  public var angles: AngleSummary?

  public init(name: String, reps: Int, activeSeconds: Double, goalsReached: Int = 0) {
    self.name = name
    self.reps = reps
    self.activeSeconds = activeSeconds
    self.goalsReached = goalsReached
  }
}

/// What a stream skipped or lost, reported with its summary.
public struct StreamCounters: Equatable, Sendable {
  /// Input lines reported as `error` events and skipped.
  public var badLines = 0
  /// Served streams only (nil otherwise): frames dropped as late, and events dropped because
  /// the client did not read them.
  public var droppedFrames: Int?
  public var droppedEvents: Int?

  public init(badLines: Int = 0, droppedFrames: Int? = nil, droppedEvents: Int? = nil) {
    self.badLines = badLines
    self.droppedFrames = droppedFrames
    self.droppedEvents = droppedEvents
  }
}

/// How far a joint moved over a session's reps, per side, in degrees: the best rep, the median
/// rep, and the difference between the sides' medians (what a physiotherapist follows).
public struct AngleSummary: Equatable, Sendable {
  public struct Side: Equatable, Sendable {
    public var best: Double
    public var median: Double

    public init(best: Double, median: Double) {
      self.best = best
      self.median = median
    }
  }

  public var joint: String
  public var left: Side?
  public var right: Side?

  public init(joint: String, left: Side?, right: Side?) {
    self.joint = joint
    self.left = left
    self.right = right
  }

  /// |left median − right median|, when both sides were seen.
  public var difference: Double? {
    guard let left, let right else { return nil }
    return abs(left.median - right.median)
  }
}
