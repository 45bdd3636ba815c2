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

  public init(fps: Double = 30) {
    resampler = Resampler(fps: fps)
  }

  /// Whether the stream's frames were each normalised to their own box (and are corrected).
  public var correctsBoxedFrames: Bool { corrector.isCorrecting }

  /// Ticks emitted so far.
  public var ticks: Int { resampler.emitted }

  /// Takes one decoded frame; calls `emit` for each resampled tick it completes.
  public mutating func push(_ frame: PeopleFrame, emit: (_ pose: Pose, _ t: Double) throws -> Void)
    rethrows
  {
    let pose = corrector.correct(scores.rescale(selector.select(frame.people)), box: frame.box)
    try resampler.push(t: frame.t, pose: pose, emit: emit)
  }
}
