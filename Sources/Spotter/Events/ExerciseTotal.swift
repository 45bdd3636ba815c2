/// One exercise's share of a session: the reps counted and the seconds it was under way.
public struct ExerciseTotal: Equatable, Sendable {
  public var name: String
  public var reps: Int
  public var activeSeconds: Double
  /// Sets of it that reached their goal.
  public var goalsReached = 0

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
