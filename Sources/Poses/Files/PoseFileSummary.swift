/// What a pose input holds, read end to end: what `spotter inspect` reports.
public struct PoseFileSummary: Sendable {
  public var name: String
  public var header: PoseFileHeader
  /// Frames decoded (bad lines not counted).
  public var frames = 0
  /// Time from the first frame to the last, in seconds.
  public var duration = 0.0
  /// Frames with the followed person present.
  public var framesWithPerson = 0
  /// The most people in one frame.
  public var maxPeople = 0
  /// Per canonical joint, the mean confidence over frames with a person (missing counts 0).
  public var meanConfidence: [Double] = Array(repeating: 0, count: CanonicalJoint.count)
  public var badLines = 0
  /// The first few bad-line errors, in order.
  public var firstErrors: [PoseFileError] = []
  /// The time from which the frames are known to be normalised each to its own box
  /// (`FrameBoxCorrector`: their scale and position are lost), if they are.
  public var boxNormalisedFrom: Double?
  /// The time from which the followed person's scores were raised to the definitions' scale
  /// (`ScoreScale`: the detector scores low), and the largest factor they were raised by.
  public var scoresRaisedFrom: Double?
  public var largestScoreFactor: Float = 1

  /// Frames per second measured from the times: (frames − 1) / duration.
  public var measuredFPS: Double? {
    duration > 0 && frames > 1 ? Double(frames - 1) / duration : nil
  }

  public var personShare: Double { frames > 0 ? Double(framesWithPerson) / Double(frames) : 0 }

  /// Reads `source` to its end.
  ///
  /// - Parameters:
  ///   - keepErrors: how many bad-line errors to keep.
  ///   - progress: called every 10,000 frames with the frames read so far.
  public static func read(
    _ source: any PoseSource, keepErrors: Int = 5, progress: ((Int) -> Void)? = nil
  ) throws -> PoseFileSummary {
    var summary = PoseFileSummary(name: source.name, header: source.header)
    var selector = PersonSelector()
    var scale = ScoreScale()
    var corrector = FrameBoxCorrector()
    var sums = Array(repeating: 0.0, count: CanonicalJoint.count)
    var first: Double?
    try source.readAll { frame in
      summary.frames += 1
      if first == nil { first = frame.t }
      summary.duration = frame.t - first!
      summary.maxPeople = max(summary.maxPeople, frame.people.count)
      let pose = selector.select(frame.people)
      let raised = scale.rescale(pose)
      if raised != pose {
        if summary.scoresRaisedFrom == nil { summary.scoresRaisedFrom = frame.t }
        summary.largestScoreFactor = max(summary.largestScoreFactor, scale.factor)
      }
      if summary.boxNormalisedFrom == nil {
        _ = corrector.correct(raised, box: frame.box)
        if corrector.isCorrecting { summary.boxNormalisedFrom = frame.t }
      }
      if pose.hasPerson {
        summary.framesWithPerson += 1
        for index in pose.joints.indices { sums[index] += Double(pose.joints[index].confidence) }
      }
      if let progress, summary.frames % 10_000 == 0 { progress(summary.frames) }
    } skipped: { error in
      summary.badLines += 1
      if summary.firstErrors.count < keepErrors { summary.firstErrors.append(error) }
    }
    if summary.framesWithPerson > 0 {
      summary.meanConfidence = sums.map { $0 / Double(summary.framesWithPerson) }
    }
    return summary
  }
}
