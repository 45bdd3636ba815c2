import Poses

/// One counted rep and how it went.
public struct Rep: Equatable, Sendable {
  /// 1 for the first rep of the set.
  public var count: Int
  public var start: Double
  public var end: Double
  public var duration: Double { end - start }
  /// How far the signal moved, in its units (degrees, or body sizes).
  public var rangeOfMotion: Double
  /// Seconds going into the rep (down, for a squat) and coming back.
  public var timeDown: Double
  public var timeUp: Double
  /// The most important form cue for this rep, if a rule failed.
  public var cue: String?

  public init(
    count: Int, start: Double, end: Double, rangeOfMotion: Double, timeDown: Double, timeUp: Double,
    cue: String? = nil
  ) {
    self.count = count
    self.start = start
    self.end = end
    self.rangeOfMotion = rangeOfMotion
    self.timeDown = timeDown
    self.timeUp = timeUp
    self.cue = cue
  }
}

/// What a rep engine reports as frames go by.
public enum RepEvent: Equatable, Sendable {
  case rep(Rep)
  /// A cue that belongs to no counted rep: a partial rep, a rep too fast to count.
  case cue(message: String, t: Double)
}

/// A rep engine: counts one exercise from canonical poses at a steady frame rate.
public protocol RepEngine: AnyObject {
  var definition: ExerciseDefinition { get }
  /// Reps counted so far.
  var count: Int { get }
  /// Takes one frame. `bodySize` is the person's size in the image; `emit` hears each event.
  /// Allocates nothing.
  func process(_ pose: Pose, t: Double, bodySize: Float, emit: (RepEvent) -> Void)
  /// Back to the start: no reps, nothing learned.
  func reset()
  /// The body size changes from frame to frame with the picture's own scale (frames normalised
  /// to their own box): measure each frame in its own scale and convert nothing held between
  /// frames. Engines that read only angles ignore it.
  var scaleIsPerFrame: Bool { get set }
  /// Abandons the rep in progress, keeping the count and what was learned: the person walked
  /// away, or across the room, and what comes next starts afresh.
  func interrupt()
}
