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
  /// Shallower than the person's own full reps: counted, and cued.
  public var partial: Bool
  /// The side that led the rep, for exercises done a side at a time (`side` max or min).
  public var side: String?
  /// The most important form cue for this rep, if a rule failed (or the partial cue).
  public var cue: String?
  /// The definition's `range_joint` on each side, in degrees, at the top and the bottom.
  public var angles: JointAngles?

  public init(
    count: Int, start: Double, end: Double, rangeOfMotion: Double, timeDown: Double, timeUp: Double,
    partial: Bool = false, side: String? = nil, cue: String? = nil
  ) {
    self.count = count
    self.start = start
    self.end = end
    self.rangeOfMotion = rangeOfMotion
    self.timeDown = timeDown
    self.timeUp = timeUp
    self.partial = partial
    self.side = side
    self.cue = cue
  }
}

/// A movement the engine saw and did not count, and why: the report and the tests read these,
/// and a person hears the cue.
public struct Rejection: Equatable, Sendable {
  public enum Reason: String, Sendable, CaseIterable {
    /// Within a set, a movement that turned back before it was big enough to be a rep at all.
    case tooSmall = "too_small"
    /// Only with strict counting: a movement short of a full rep.
    case partial
    /// Quicker than `min_rep_seconds`.
    case tooFast = "too_fast"
    /// The bottom held longer than `max_rep_seconds`: a drift or someone sitting down.
    case tooSlow = "too_slow"
    /// A rep under way dropped: an anchor moved, the person walked, or left the picture.
    case interrupted
    /// A rep under way dropped because the joints it is counted from went out of sight.
    case outOfSight = "out_of_sight"
  }

  public var reason: Reason
  /// When the movement began and when it was refused.
  public var start: Double
  public var end: Double
  /// How far it moved, in the signal's units.
  public var rangeOfMotion: Double
  /// What interrupted it, for `interrupted`: `anchor`, `travel`, `gap`.
  public var detail: String?
  public var cue: String?

  public init(
    reason: Reason, start: Double, end: Double, rangeOfMotion: Double, detail: String? = nil,
    cue: String? = nil
  ) {
    self.reason = reason
    self.start = start
    self.end = end
    self.rangeOfMotion = rangeOfMotion
    self.detail = detail
    self.cue = cue
  }
}

/// What a rep engine reports as frames go by.
public enum RepEvent: Equatable, Sendable {
  case rep(Rep)
  /// A movement not counted, with its reason (and maybe a cue).
  case rejected(Rejection)
  /// A cue that belongs to no movement (a joint out of sight).
  case cue(message: String, t: Double)
}

/// What a signal engine saw in one frame, for pictures of a set (`spotter report`): the signal
/// and the levels it was judged against, in the signal's own units and direction.
public struct SignalSample: Equatable, Sendable {
  public var t: Double
  /// 0 for the definition's signal, 1… for its alternatives.
  public var signal: Int
  /// The smoothed signal.
  public var value: Double
  /// The top a rep is measured from (the peak, for a rep that goes down first).
  public var top: Double
  /// Where the signal must get to for a rep to start.
  public var countLevel: Double
  /// The person's typical range so far, if known.
  public var typicalRange: Double?

  public init(
    t: Double, signal: Int, value: Double, top: Double, countLevel: Double, typicalRange: Double?
  ) {
    self.t = t
    self.signal = signal
    self.value = value
    self.top = top
    self.countLevel = countLevel
    self.typicalRange = typicalRange
  }
}

/// Why a rep under way is abandoned from outside the engine.
public enum Interruption: String, Sendable {
  /// An anchor (the hands of a push-up, the feet of a squat) left its place.
  case anchor
  /// The person crossed the picture.
  case travel
  /// Nobody was seen for a while.
  case gap
  /// The joints it is counted from have been out of sight for seconds.
  case outOfSight = "out_of_sight"
  /// The stream ended: for the signal engine, a rep already on its way back up counts, and so
  /// does one the recording cut short as deep as the person's reps; the staged engine, which needs
  /// its last stage seen, refuses a rep under way.
  case end

  /// The reason a rep under way that this ends is refused with.
  public var rejection: Rejection.Reason { self == .outOfSight ? .outOfSight : .interrupted }
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
  /// A new set by the same person: no reps and nothing under way, but what was learned from
  /// their recent reps (how far they move, within the definition's `learn_seconds`) and how
  /// noisy the signal is stays, so a set split by a moment out of view is not judged as a
  /// stranger's first reps.
  func startSet()
  /// The body size changes from frame to frame with the picture's own scale (frames normalised
  /// to their own box): measure each frame in its own scale and convert nothing held between
  /// frames. Engines that read only angles ignore it.
  var scaleIsPerFrame: Bool { get set }
  /// Hears each frame's `SignalSample` (nil: nobody listens, and nothing is made).
  var onSample: ((SignalSample) -> Void)? { get set }
  /// Abandons the rep in progress, keeping the count and what was learned: the person walked
  /// away, or across the room, or the stream ended, and what comes next starts afresh. A rep
  /// that was under way is reported as `interrupted` (or `out_of_sight`), except one that the
  /// end of the stream finds on its way back up, which the signal engine counts.
  func interrupt(at t: Double, because reason: Interruption, emit: (RepEvent) -> Void)
  /// What the engine sees of the set's movement at `t`, the time of the last frame it took
  /// or later. Allocates nothing.
  func movement(at t: Double) -> SetMovement
}
