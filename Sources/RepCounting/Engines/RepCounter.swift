import Poses

/// Counts reps of one exercise from canonical poses: the body-size estimate, checks that the
/// person is staying in place and that the joints the exercise keeps still (its `anchors`)
/// do, a word when the joints it is counted from are out of sight, and the engine.
///
/// No exercise carries the whole body across the room, so while the hip centre travels
/// sideways in the picture faster than `travelLimit` body sizes a second for a fifth of a
/// second or more, or when nobody has been seen for a second, the engine waits and then starts
/// afresh: a walk into position counts nothing. Where a walk ends, the body's size is measured
/// afresh too: the person may stop nearer the camera or further from it. Travel is measured
/// over half a second, so a hip flickering in and out of view is not a step; sideways only,
/// because squats, push-ups and jumps move the hips up and down, quickly. Getting down to the floor (and, for a
/// definition that anchors the feet, walking towards the camera) is left to the anchors.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
public final class RepCounter {
  public let engine: any RepEngine
  /// Two seconds of history, as for the features: shorter follows someone walking closer a
  /// little sooner but lets jitter through as a slow wander of every signal.
  @exclusivity(unchecked) private var size = BodySizeEstimator(history: 60)
  @exclusivity(unchecked) public var travelLimit: Float = 2
  /// The hip centre across the picture over the last half second (nil when no hip was seen):
  /// room for 0.5 s at up to 128 frames a second; a faster stream keeps a shorter trail.
  @exclusivity(unchecked) private var trail = FixedRing<(t: Double, x: Float?)>(
    capacity: 64, repeating: (0, nil))
  @exclusivity(unchecked) private var anchors: AnchorTracker?
  @exclusivity(unchecked) private var visibility: VisibilityWatch
  /// The definition's `range_joint`, followed for each rep's angles.
  @exclusivity(unchecked) private var angles: JointAngleTrail?
  @exclusivity(unchecked) private var lastSeen: Double?
  @exclusivity(unchecked) private var moving: Float = 0  // an EMA of "travelling this frame", 0...1
  @exclusivity(unchecked) private var interrupted = false
  /// The definition's `min_confidence`, kept: `definition` is the engine's, a copy of the
  /// whole definition each time it is read.
  private let minConfidence: Float

  /// The stream's frames were each normalised to their own box (`FrameBoxCorrector`): the
  /// picture's scale changes from frame to frame and where the person is in it is lost. Then the
  /// body size follows the last five frames and each frame is measured in its own scale (a
  /// squat's shrinking box is the picture zooming in), travel is not judged, and anchors are
  /// followed side to side. Measured on Countix-Fitness (tune half) and synthetic sets written
  /// both ways: `Sources/RepCounting/README.md`.
  @exclusivity(unchecked) public var positionsAreLost = false {
    didSet {
      guard positionsAreLost != oldValue else { return }
      anchors?.relative = positionsAreLost
      size = BodySizeEstimator(history: positionsAreLost ? 5 : 60)
      engine.scaleIsPerFrame = positionsAreLost
    }
  }

  public init(_ definition: ExerciseDefinition) {
    engine = ExerciseCatalogue.makeEngine(definition)
    anchors = definition.anchors.map(AnchorTracker.init)
    visibility = VisibilityWatch(definition)
    minConfidence = Float(definition.minConfidence)
    angles = definition.rangeJoint.map {
      JointAngleTrail(joint: $0, minConfidence: Float(definition.minConfidence))
    }
  }

  public var definition: ExerciseDefinition { engine.definition }
  public var count: Int { engine.count }

  /// Takes one frame (resampled to a steady rate; `.nobody` where nobody was seen).
  public func process(_ pose: Pose, t: Double, emit: (RepEvent) -> Void) {
    guard pose.hasPerson else { return }
    var bodySize = size.update(with: pose)
    if let lastSeen, t - lastSeen > 1 {
      // Nobody for a second: whatever was under way is over.
      engine.interrupt(at: t, because: .gap, emit: emit)
      trail.removeAll()
      visibility.restart()
    }
    let afterGap = lastSeen.map { t - $0 > 0.15 } ?? false
    lastSeen = t
    while let oldest = trail.first, t - oldest.t > 0.5 { trail.removeOldest() }
    trail.append((t, Self.centreX(pose)))
    if let oldest = trail.first, t - oldest.t > 0.25 {
      moving += 0.2 * ((travelling(span: Float(t - oldest.t), size: bodySize) ? 1 : 0) - moving)
    }
    if anchors?.moved(
      pose, bodySize: bodySize, minConfidence: minConfidence, afterGap: afterGap)
      == true
    {
      // The hands or feet moved: getting into position, not a rep.
      engine.interrupt(at: t, because: .anchor, emit: emit)
    }
    if moving > 0.5 && !positionsAreLost {
      if !interrupted { engine.interrupt(at: t, because: .travel, emit: emit) }
      interrupted = true
      return
    }
    if interrupted {
      // The walk is over: the size learned along it (the median of the last two seconds) is
      // not this person's where they stop, and a size catching up under someone standing
      // still moves every signal as a rep would.
      size.reset()
      bodySize = size.update(with: pose)
      interrupted = false
    }
    if let cue = visibility.check(pose, t: t) {
      engine.interrupt(at: t, because: .outOfSight, emit: emit)
      emit(.cue(message: cue, t: t))
    }
    angles?.observe(pose, t: t)
    engine.process(pose, t: t, bodySize: bodySize) { withAngles($0, emit) }
  }

  /// A rep gets the definition's `range_joint` angles over its span.
  private func withAngles(_ event: RepEvent, _ emit: (RepEvent) -> Void) {
    guard let angles, case .rep(var rep) = event else { return emit(event) }
    rep.angles = angles.angles(from: rep.start, to: rep.end)
    emit(.rep(rep))
  }

  /// The stream ended at `t`: a rep already on its way back up counts (the smoothing that
  /// steadies the signal lags it by a few frames; signal engines only), and so does one cut
  /// short within a set as deep as the person's reps, begun less than a rep's time ago; any other is
  /// refused as `interrupted` (detail `end`), or `gap` when nobody was seen in the last second.
  /// Frames after this start afresh.
  public func finish(at t: Double, emit: (RepEvent) -> Void) {
    guard let lastSeen else { return }
    if t - lastSeen > 1 {
      engine.interrupt(at: t, because: .gap, emit: emit)
    } else {
      engine.interrupt(at: lastSeen, because: .end) { withAngles($0, emit) }
    }
  }

  /// Back to the start: no reps, nothing learned (a new person).
  public func reset() {
    engine.reset()
    restartWatches()
  }

  /// A new set by the same person (`RepEngine.startSet`): the count starts again, what the
  /// engine learned from their reps stays; where they stand and what is in sight is looked at
  /// afresh.
  public func startSet() {
    engine.startSet()
    restartWatches()
  }

  private func restartWatches() {
    anchors?.reset()
    visibility.restart()
    angles?.reset()
    size.reset()
    trail.removeAll()
    lastSeen = nil
    moving = 0
  }

  /// Whether the hip centre crossed the picture too fast over the trail. Without a hip in view
  /// (an upper-body framing), travel is not judged.
  private func travelling(span: Float, size: Float) -> Bool {
    guard let x = trail.last?.x, let firstX = trail.first(where: { $0.x != nil })?.x else {
      return false
    }
    return abs(x - firstX) / max(size, 1e-6) / span > travelLimit
  }

  /// Where the body is across the picture: the hips' centre, or the one hip seen. Never the
  /// mean of all joints, which moves whenever the arms do.
  private static func centreX(_ pose: Pose) -> Float? {
    let (left, right) = (pose[.leftHip], pose[.rightHip])
    switch (left.confidence > 0.3, right.confidence > 0.3) {
    case (true, true): return (left.x + right.x) / 2
    case (true, false): return left.x
    case (false, true): return right.x
    case (false, false): return nil
    }
  }
}
