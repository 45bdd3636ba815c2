/// A whole pose file through the front of the runtime (`FramePipeline`): one person followed,
/// resampled to a steady rate. For tools that look at a recording as a whole (evaluation,
/// training); a live stream goes frame by frame instead.
public struct ResampledRecording: Sendable {
  /// One pose per tick, `.nobody` where nobody was followed.
  public var ticks: [(t: Double, pose: Pose)]
  /// Lines the reader reported and skipped.
  public var badLines: Int
  /// The first tick after which the pipeline knew that the frames were each normalised to
  /// their own box (and corrected them), nil if never: a live stream's rep engine learns it
  /// there too, so tools replaying the recording tell theirs at the same tick.
  public var positionsLostAfterTick: Int?

  public init(ticks: [(t: Double, pose: Pose)], badLines: Int = 0) {
    self.ticks = ticks
    self.badLines = badLines
  }

  /// Reads a whole pose file (any format `PoseFiles.open` reads) at `fps`; `prepare` sees each
  /// decoded frame first, and may change it or drop it by returning false (`spotter eval
  /// --shake`, `--frame-rate`).
  public static func read(
    _ path: String, fps: Double = 30, prepare: ((inout PeopleFrame) -> Bool)? = nil
  ) throws -> ResampledRecording {
    let source = try PoseFiles.open(path, prepare: prepare)
    var pipeline = FramePipeline(fps: fps)
    var recording = ResampledRecording(ticks: [])
    try source.readAll { frame in
      pipeline.push(frame) { pose, t in recording.ticks.append((t, pose)) }
      if pipeline.correctsBoxedFrames && recording.positionsLostAfterTick == nil {
        recording.positionsLostAfterTick = recording.ticks.count - 1
      }
    } skipped: { _ in
      recording.badLines += 1
    }
    return recording
  }

  /// The ticks inside `start...end` (from the first or to the last tick when nil).
  public func slice(from start: Double?, to end: Double?) -> ArraySlice<(t: Double, pose: Pose)> {
    let from = start ?? -.infinity
    let to = end ?? .infinity
    let first = ticks.firstIndex { $0.t >= from - 1e-9 } ?? ticks.count
    let last = ticks.lastIndex { $0.t <= to + 1e-9 } ?? -1
    return first <= last ? ticks[first...last] : []
  }
}
