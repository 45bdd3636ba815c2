/// Turns poses at irregular times into a steady stream at `fps` (30 by default), causally.
///
/// The output clock starts at the first input's time (or where `startClock(at:)` says) and ticks
/// every 1/fps seconds. Each tick
/// is made from the two input frames around it:
/// - When they are at most `maxGap` apart (a short gap, 0.25 s by default), a joint present in
///   both is interpolated linearly (confidence: the smaller), and a joint present in one only is
///   taken from the nearer frame if that one has it; a tick next to a frame with nobody takes
///   the nearer frame as it is, since a person is never interpolated into or out of view.
/// - Across a longer gap, a tick within half a tick of either frame takes that frame, and every
///   other tick is nobody detected: the person really was not seen then.
///
/// - Across a gap longer than `longestGap` (10 s by default), the ticks stop after that long
///   (nobody), and the clock moves on to the next frame: nothing downstream remembers that far
///   back (a window is 2 s, a rep at most 8 s), and a frame an hour after the last must not
///   cost an hour of ticks.
///
/// A tick is emitted as soon as the input frame at or after it arrives, so the resampler adds at
/// most one input interval of latency and allocates nothing. At times so large that a double
/// cannot tell one tick from the next (readers refuse them; the library's callers may not), a
/// frame makes one tick.
public struct Resampler: Sendable {
  public let fps: Double
  public let maxGap: Double
  public let longestGap: Double
  private var previous: (t: Double, pose: Pose)?
  private var start = 0.0
  /// Where the clock's first tick falls, if not at the first input (`startClock(at:)`).
  private var firstTick: Double?
  /// How many ticks have been emitted.
  public private(set) var emitted = 0

  public init(fps: Double = 30, maxGap: Double = 0.25, longestGap: Double = 10) {
    precondition(fps > 0 && maxGap >= 0 && longestGap > maxGap)
    self.fps = fps
    self.maxGap = maxGap
    self.longestGap = longestGap
  }

  /// Makes the first tick fall at `t` rather than at the first input's time: a stream that goes
  /// on from another's (a resumed session) keeps the other's clock, so its ticks are the other's
  /// ticks and not a fraction of a tick off them, whatever the frames' times. Ticks up to the
  /// first input take its pose. Before the first input only.
  public mutating func startClock(at t: Double) {
    precondition(previous == nil, "Resampler.startClock: the clock has started")
    firstTick = t
  }

  /// Takes one input frame and calls `emit` with each output tick it completes, in order, and
  /// the tick's time.
  ///
  /// - Parameters:
  ///   - t: the frame's time in seconds. A frame whose time is not a finite number, or is before
  ///     the previous frame's, is ignored: the stream's readers and sessions refuse such frames
  ///     with an error first (`Session.push`); here they must not stop the process.
  ///   - pose: the followed person, or `.nobody`.
  public mutating func push(t: Double, pose: Pose, emit: (_ pose: Pose, _ t: Double) throws -> Void)
    rethrows
  {
    guard t.isFinite else { return }
    guard let (t0, before) = previous else {
      previous = (t, pose)
      start = firstTick.map { t - $0 < longestGap ? $0 : t } ?? t
      while tickTime <= t + 1e-9 {
        let tick = tickTime
        try emitTick(pose, emit)
        if tickTime <= tick { break }
      }
      return
    }
    guard t >= t0 else { return }
    let gap = t - t0
    if gap > longestGap {
      while tickTime <= t0 + longestGap + 1e-9 {
        let tick = tickTime
        try emitTick(tick - t0 <= 0.5 / fps ? before : .nobody, emit)
        if tickTime <= tick { break }  // times too large to tell ticks apart
      }
      start = t - Double(emitted) / fps  // the next tick falls on t
    }
    while tickTime <= t + 1e-9 {
      let tick = tickTime
      let sample: Pose
      if gap <= maxGap {
        sample = Self.interpolate(before, pose, fraction: gap > 0 ? Float((tick - t0) / gap) : 1)
      } else {
        let halfTick = 0.5 / fps
        if tick - t0 <= halfTick {
          sample = before
        } else if t - tick <= halfTick {
          sample = pose
        } else {
          sample = .nobody
        }
      }
      try emitTick(sample, emit)
      if tickTime <= tick { break }
    }
    previous = (t, pose)
  }

  /// The time of the next tick to emit.
  private var tickTime: Double { start + Double(emitted) / fps }

  private mutating func emitTick(_ pose: Pose, _ emit: (Pose, Double) throws -> Void) rethrows {
    let t = tickTime
    emitted += 1
    try emit(pose, t)
  }

  /// The pose `fraction` of the way from `a` to `b`, by the rules in the type's doc.
  public static func interpolate(_ a: Pose, _ b: Pose, fraction: Float) -> Pose {
    let nearer = fraction < 0.5 ? a : b
    guard a.hasPerson, b.hasPerson else { return nearer }
    var result = Pose()
    for index in result.joints.indices {
      let (ja, jb) = (a.joints[index], b.joints[index])
      if !ja.isMissing && !jb.isMissing {
        result.joints[index] = Joint(
          x: ja.x + (jb.x - ja.x) * fraction, y: ja.y + (jb.y - ja.y) * fraction,
          confidence: min(ja.confidence, jb.confidence))
      } else {
        result.joints[index] = nearer.joints[index]
      }
    }
    return result
  }
}
