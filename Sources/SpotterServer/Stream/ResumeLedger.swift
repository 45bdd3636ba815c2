import History
import Spotter

/// Where a stream of one person stands for resuming (README, "Resuming a session"): the resume
/// point its checkpoints carry, when the last was taken and what the client was last told,
/// and, for a stream that resumed another session, which of the frames the client resends
/// were counted already.
///
/// The resume point is the stream time a resumed session counts on from. It stays behind
/// every set under way (a set's reps are counted again from the resent frames), and while no
/// counted set is under way it follows the stream the backfill horizon behind (a set recognised
/// later may count reps from that far back). It falls on a tick after which a prediction was
/// made (`moveResumePoint`), so that a resumed session's ticks, windows and labels fall where
/// this one's did.
struct ResumeLedger {
  /// Stream seconds between two checkpoints of a session with no counted set under way (one
  /// is also taken at each rep and at the end of each set).
  static let checkpointSeconds = 5.0
  /// How much later than a checkpoint's time the first frame after a resume may come and
  /// still count as the frames after it resent.
  static let resendSlack = 1.0

  private(set) var resumePoint = 0.0
  /// When the last checkpoint was taken, in stream time.
  private(set) var lastCheckpoint = -Double.infinity
  /// The resume point the client was last told (`checkpoint` events).
  private var resumePointTold = -Double.infinity
  /// The session's finished sets the history has stored (with a checkpoint): the next
  /// checkpoint carries the sets from here on, so its cost does not grow with the session.
  private(set) var setsStored = 0
  /// Whether a counted set is under way: the resume point then stays where it is.
  var countedSetUnderWay = false
  /// A set ended during the session's last call: the resume point moves there, and a
  /// checkpoint is taken, once the call has returned (the session is busy emitting meanwhile).
  var setEndedAt: Double?
  /// The time of this session's first tick: its first frame's, or, resumed, the tick after the
  /// checkpoint's (ticks are reckoned from it).
  private(set) var firstFrame: Double?
  /// The time of the last frame counted: a client that takes the live session over resends
  /// the frames after it.
  private(set) var lastCounted = -Double.infinity

  /// The checkpoint resumed, until the first frame after it shows whether the client resent
  /// the frames after its `t`.
  private(set) var resumed: Checkpoint?
  /// Frames up to this time were counted before the resume: resent ones are skipped.
  private(set) var resendFrom: Double?
  /// The client is resending the frames after a resume: none is dropped as late until a
  /// round finds no more than the backlog waiting, `replaySeconds` or more after the first
  /// resent frames were read (`replayBegan`): a client that resends line by line may have
  /// sent only a few when the first round reads them.
  var replaying = false {
    didSet { if replaying { replayBegan = nil } }
  }
  var replayBegan: Double?
  static let replaySeconds = 1.0

  /// Goes on from `checkpoint`, whose frames up to its time were counted, on the first
  /// session's clock (`rate` ticks a second): its first tick is the one after the checkpoint's.
  mutating func resume(from checkpoint: Checkpoint, rate: Double) {
    resumed = checkpoint
    resendFrom = checkpoint.t
    resumePointTold = checkpoint.t  // the session event tells it
    replaying = true
    resumePoint = checkpoint.t
    firstFrame = checkpoint.t + 1 / rate
  }

  /// The session counted a frame, at `t`.
  mutating func counted(frameAt t: Double) {
    if firstFrame == nil { firstFrame = t }
    lastCounted = t
  }

  /// The live session moves to another connection (its client reconnected): the frames it
  /// resends are all kept, as a resume's are, and those up to the last counted are skipped.
  /// Returns the point the client is told to resend after: the last resume point it was told
  /// of, which the history holds (a later resume elsewhere starts there, so the client must
  /// keep the frames after it; the last frame counted, without a history or before any
  /// checkpoint was told).
  mutating func takeOver(keepsHistory: Bool) -> Double? {
    // Only forward: a session that resumed a checkpoint and has counted nothing since keeps
    // skipping what the checkpoint covers (and stays resumed, for `takeResent`).
    if lastCounted.isFinite { resendFrom = max(resendFrom ?? lastCounted, lastCounted) }
    replaying = true
    guard keepsHistory else { return resendFrom }
    return resumePointTold.isFinite ? resumePointTold : nil
  }

  /// The session ends before it counted a frame after the checkpoint it resumed: the set then
  /// under way keeps the checkpoint's reps, ending at its last (nil when there was none).
  mutating func endBeforeResent() -> SetRecord? {
    defer { (resumed, resendFrom) = (nil, nil) }
    guard var set = resumed?.underWay, let last = set.reps.last else { return nil }
    set.end = last.t
    return set
  }

  /// Whether the frame at `t` is due a checkpoint by time alone.
  func checkpointDue(at t: Double) -> Bool { t - lastCheckpoint >= Self.checkpointSeconds }

  /// A checkpoint is taken at `t`: the next by time is due `checkpointSeconds` later.
  mutating func checkpointTaken(at t: Double) { lastCheckpoint = t }

  /// What the first frames after a resume are.
  enum Resent: Equatable {
    /// Counted before the resume: skipped.
    case skipped
    /// The first frame counted: the client resent what followed the checkpoint.
    case counted
    /// The frames after the checkpoint's time `after` were not resent: the set under way at
    /// the checkpoint keeps its reps, and ends at its last. The frame is counted if it comes
    /// after that rep; else it is skipped, with the frames up to it (`resendFrom`), which the
    /// carried reps cover.
    case notResent(SetRecord, after: Double)
  }

  /// Whether a frame at `t` after a resume is counted: frames up to the checkpoint's time were
  /// counted before it. The first one counted tells whether the client resent what followed
  /// the checkpoint; when it did not, the set then under way keeps the checkpoint's reps, the
  /// resume point moves past them, and no frame up to the last of them is counted again.
  mutating func takeResent(_ t: Double, tickRate: Double) -> Resent {
    // Half a tick past the resume point: the frame of its own tick, its time written rounded,
    // may come a hair after it.
    guard let from = resendFrom, t > from + 0.5 / tickRate else { return .skipped }
    resendFrom = nil
    defer { resumed = nil }
    guard let checkpoint = resumed, var set = checkpoint.underWay, let last = set.reps.last,
      t > from + Self.resendSlack
    else { return .counted }
    set.end = last.t
    resumePoint = max(resumePoint, last.t)
    if t <= last.t + 0.5 / tickRate { resendFrom = last.t }
    return .notResent(set, after: from)
  }

  /// Moves the resume point forward, up to `t`: to the last tick at or before it after which
  /// a prediction was made. A resumed session's first frame is then the next tick's, so its
  /// ticks fall on this one's and it predicts at the same ticks (predictions are counted from
  /// a session's first tick): its windows, and so its labels, are this session's.
  mutating func moveResumePoint(to t: Double, rate: Double, predictionStride: Int) {
    guard let first = firstFrame else { return }
    var tick = Int(((t - first) * rate).rounded(.down))
    tick -= (tick + 1) % predictionStride
    guard tick >= 0 else { return }
    resumePoint = max(resumePoint, first + Double(tick) / rate)
  }

  /// `t` as the client is told it (`resend_from`): to the millisecond, rounded down, so that the
  /// frames it resends after it cover every frame after `t`.
  static func written(_ t: Double) -> String {
    JSONText.time((t * 1000).rounded(.down) / 1000)
  }

  /// A checkpoint at `t` was stored, with the session's finished sets before `setsThrough`:
  /// whether the client is to be told (it has not been told of one as late).
  mutating func tell(stored t: Double, setsThrough: Int) -> Bool {
    setsStored = max(setsStored, setsThrough)
    guard t > resumePointTold else { return false }
    resumePointTold = t
    return true
  }
}
