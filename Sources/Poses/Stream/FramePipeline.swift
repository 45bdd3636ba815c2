/// The front of every stream: follow one person, put joint scores on one scale (`ScoreScale`)
/// and frames normalised to their own box back into proportion (`FrameBoxCorrector`), resample
/// to a steady frame rate.
///
/// Takes decoded frames (any number of people, irregular times) and hands on one pose per tick
/// of a steady clock, `.nobody` where nobody was followed. Allocates nothing per frame.
public struct FramePipeline: Sendable {
  private var selector = PersonSelector()
  private var scores = ScoreScale()
  private var corrector = FrameBoxCorrector()
  private var resampler: Resampler

  /// Whether scores are put on one scale (`ScoreScale`). Off only for recordings drawn on that
  /// scale to begin with (`spotter train --synthetic`'s MotionSynth workouts), where a body seen
  /// mostly hidden would pass for a detector that scores low. Synthetic files trained on as
  /// annotations go through the scale like any file: `spotter synth`'s files, heavy noise and
  /// views from behind without a face included, are not raised (README, "How a frame flows").
  private let raisesScores: Bool

  public init(fps: Double = 30, raisesScores: Bool = true) {
    resampler = Resampler(fps: fps)
    self.raisesScores = raisesScores
  }

  /// Whether the stream's frames were each normalised to their own box (and are corrected).
  public var correctsBoxedFrames: Bool { corrector.isCorrecting }

  /// Times someone else took the stream over (`PersonSelector.takeovers`).
  public var takeovers: Int { selector.takeovers }

  /// Ticks emitted so far.
  public var ticks: Int { resampler.emitted }
  /// Ticks a second.
  public var tickRate: Double { resampler.fps }

  /// The first tick falls at `t` (`Resampler.startClock(at:)`).
  public mutating func startClock(at t: Double) { resampler.startClock(at: t) }

  /// Takes one decoded frame; calls `emit` for each resampled tick it completes.
  public mutating func push(_ frame: PeopleFrame, emit: (_ pose: Pose, _ t: Double) throws -> Void)
    rethrows
  {
    let selected = selector.select(frame.people)
    let pose = corrector.correct(raisesScores ? scores.rescale(selected) : selected, box: frame.box)
    try resampler.push(t: frame.t, pose: pose, emit: emit)
  }
}
