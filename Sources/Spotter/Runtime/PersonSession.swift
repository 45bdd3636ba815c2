import ActionModel
import Poses
import RepCounting

/// One person's stream, the core of a `Session`: frames in (their times already checked),
/// events out (README, "How the code is laid out").
///
/// Each frame: follow one person and resample to the model's rate; compute the frame's
/// features and push them through the streaming classifier; every `stride` frames, classify
/// the last window (unless too little of it shows a person); smooth the predictions into
/// exercise starts and ends; hand the stream to the exercise's rep engine, which first replays
/// the buffered history (backfill). The steady state allocates nothing per frame.
///
/// One for a chosen exercise (`Runtime.makeSession(counting:)`) has no classifier: its
/// exercise starts at the first tick and ends with the stream or a goal; the rest is the same.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance"), but
/// for the two that events are emitted from inside.
final class PersonSession {
  let runtime: Runtime
  /// Checked (as `smoother`): events are emitted while it is being changed, so an `emit` that
  /// called back into the session traps instead of corrupting it.
  private var pipeline: FramePipeline
  /// Features, the window ring and the streaming network (nil for a chosen exercise).
  private let stream: FeatureStream?
  /// The exercise chosen for this session (its definition's name), if not the classifier's.
  private let chosenExercise: String?
  /// A chosen exercise's set ended at its goal: nothing after it is counted.
  @exclusivity(unchecked) private var chosenSetOver = false
  @exclusivity(unchecked) private var probabilities: [Float]
  private var smoother: LabelSmoother
  /// The smoother is reporting a change (`smooth`), and a goal was reached meanwhile (backfill
  /// counted the reps as the exercise started): the smoother cannot be changed from inside
  /// itself, so it is told to end and hold once it has returned.
  @exclusivity(unchecked) private var smoothing = false
  @exclusivity(unchecked) private var holdAfterSmoothing = false
  /// The last `historySeconds` of ticks, for backfill.
  @exclusivity(unchecked) private var history: FixedRing<(t: Double, pose: Pose)>
  @exclusivity(unchecked) private var wasPresent: Bool?
  @exclusivity(unchecked) private var ticks = 0
  @exclusivity(unchecked) private var lastTime = 0.0
  /// `pipeline.takeovers` as last seen, and whether someone else has taken the stream over
  /// since the rep engines learned from the person they knew (read after each frame: events
  /// come from inside the pipeline's push).
  @exclusivity(unchecked) private var takeoversSeen = 0
  @exclusivity(unchecked) private var enginesKnowAnotherPerson = false
  /// The exercise under way: its engine and when it began.
  @exclusivity(unchecked) private var counter: RepCounter?
  @exclusivity(unchecked) private var activeLabel: String?
  @exclusivity(unchecked) private var activeSince = 0.0
  /// Per exercise, the last tick its engine was given, so backfill never counts a stretch
  /// twice for the same exercise (a stretch another exercise's engine saw, when the classifier
  /// was wrong at first, is replayed).
  @exclusivity(unchecked) private var countedUntil: [String: Double] = [:]
  /// The last tick the engine under way was given, written to `countedUntil` when its
  /// exercise ends: a plain store each tick instead of a dictionary's hashing of the label.
  @exclusivity(unchecked) private var activeCountedUntil: Double?
  @exclusivity(unchecked) private var counters: [String: RepCounter] = [:]
  /// Half the classifier's window, in seconds: how far a prediction lags the change it shows.
  private let halfWindow: Double
  /// When the last exercise ended, and the end of the last rep counted.
  @exclusivity(unchecked) private var lastEnd = -Double.infinity
  @exclusivity(unchecked) private var lastRepEnd = -Double.infinity
  /// What backfill counted, held until the start is reported.
  @exclusivity(unchecked) private var backfill: [RepEvent] = []
  /// Per exercise, in the order first seen.
  @exclusivity(unchecked) private var totals: [ExerciseTotal] = []
  /// Per exercise with a `range_joint`: each side's rep ranges (degrees) and its best.
  @exclusivity(unchecked) private var angleRanges: [AngleRanges] = []
  /// The frames are normalised to their own box (`FrameBoxCorrector`): the engines are told.
  @exclusivity(unchecked) private var positionsAreLost = false
  /// Batched predictions: the time of the prediction waiting for `makeDuePrediction(emit:)`,
  /// and the ticks that arrived after it, held until it is made. A tick that finds the ring
  /// full makes the prediction itself (`tick`): a burst of frames, or one frame after a long
  /// gap (a tick for every 1/30 s of it), may bring any number of ticks before the caller's
  /// batch, and none may be lost.
  private let batchesPredictions: Bool
  @exclusivity(unchecked) private var pendingPrediction: Double?
  @exclusivity(unchecked) private var heldTicks: FixedRing<(t: Double, pose: Pose)>

  /// A session whose exercises the runtime's classifier recognises.
  /// - Parameter batchesPredictions: see `predictionDue`.
  init(runtime: Runtime, batchesPredictions: Bool = false) {
    let classifier = runtime.classifier!
    self.runtime = runtime
    self.batchesPredictions = batchesPredictions
    chosenExercise = nil
    pipeline = FramePipeline(fps: classifier.metadata.fps)
    stream = FeatureStream(classifier: classifier)
    heldTicks = FixedRing(capacity: batchesPredictions ? 64 : 1, repeating: (0, .nobody))
    probabilities = [Float](repeating: 0, count: classifier.config.classes)
    smoother = LabelSmoother(
      options: runtime.options, otherLabel: classifier.labels.firstIndex(of: Labels.other))
    let capacity = max(1, Int(runtime.options.historySeconds * classifier.metadata.fps))
    history = FixedRing(capacity: capacity, repeating: (0, .nobody))
    backfill.reserveCapacity(16)
    countedUntil.reserveCapacity(classifier.labels.count)
    halfWindow = Double(classifier.config.window) / classifier.metadata.fps / 2
    // One engine per label, made now: starting an exercise mid-stream allocates nothing.
    for label in classifier.labels {
      if let definition = runtime.catalogue.definition(forLabel: label) {
        addCounter(definition, as: label)
      }
    }
  }

  /// A session of one chosen exercise, counted by `definition` from the first tick: no
  /// classifier, no predictions, no history to backfill from. Its events name the exercise
  /// by the definition's name.
  init(runtime: Runtime, counting definition: ExerciseDefinition) {
    self.runtime = runtime
    batchesPredictions = false
    chosenExercise = definition.name
    pipeline = FramePipeline(fps: runtime.classifier?.metadata.fps ?? Self.chosenTickRate)
    stream = nil
    heldTicks = FixedRing(capacity: 1, repeating: (0, .nobody))
    probabilities = []
    smoother = LabelSmoother(options: runtime.options, otherLabel: nil)
    history = FixedRing(capacity: 1, repeating: (0, .nobody))
    halfWindow = 0
    addCounter(definition, as: definition.name)
    // The summary names the exercise even if nobody was ever seen.
    totals.append(ExerciseTotal(name: definition.name, reps: 0, activeSeconds: 0))
  }

  /// The tick rate of a chosen exercise's session when the runtime has no model to set it:
  /// the rate the rep engines' definitions are written for.
  static let chosenTickRate = 30.0

  private func addCounter(_ definition: ExerciseDefinition, as label: String) {
    counters[label] = RepCounter(definition)
    if let joint = definition.rangeJoint {
      angleRanges.append(AngleRanges(label: label, joint: joint))
    }
  }

  /// Hears each tick (a frame followed and resampled, as the engines and the network get it),
  /// for pictures of the session (`spotter report`). Nil by default.
  @exclusivity(unchecked) var onTick: ((Pose, Double) -> Void)?

  /// Hears each rep engine's signal and levels, frame by frame, with its exercise's label (for
  /// pictures of a set: `spotter report`). Samples of a set's backfill come when it is
  /// recognised, with their own times. Nil by default: then nothing is made.
  @exclusivity(unchecked) var onSignalSample: ((String, SignalSample) -> Void)? {
    didSet {
      for (label, counter) in counters {
        counter.engine.onSample = onSignalSample.map { hook in { hook(label, $0) } }
      }
    }
  }

  /// The exercise under way, if any.
  var currentExercise: String? { activeLabel }
  /// Reps of the exercise under way.
  var currentReps: Int { counter?.count ?? 0 }

  /// Takes one frame, whose time the stream has checked; calls `emit` with each event it
  /// causes.
  func push(_ frame: PeopleFrame, emit: (SpotterEvent) -> Void) {
    pipeline.push(frame) { pose, t in tick(pose, t: t, emit: emit) }
    if pipeline.takeovers != takeoversSeen {
      takeoversSeen = pipeline.takeovers
      enginesKnowAnotherPerson = true
    }
    if pipeline.correctsBoxedFrames { losePositions() }
  }

  /// Takes one tick that the caller followed and resampled itself (`Session.push(tick:)`).
  func push(tick pose: Pose, t: Double, positionsAreLost lost: Bool, emit: (SpotterEvent) -> Void) {
    if lost { losePositions() }
    tick(pose, t: t, emit: emit)
  }

  /// The frames are normalised to their own box: the engines are told, once.
  private func losePositions() {
    guard !positionsAreLost else { return }
    positionsAreLost = true
    for counter in counters.values { counter.positionsAreLost = true }
  }

  // MARK: batched predictions (`Session.predictionDue`)

  var predictionDue: Bool { pendingPrediction != nil }

  /// The network's state: made at the first prediction (`FeatureStream.streamState`).
  var streamState: StreamState { stream!.streamState }

  /// Makes the due prediction (if any), then processes the ticks held since, up to the next
  /// prediction due. Allocates nothing.
  func makeDuePrediction(emit: (SpotterEvent) -> Void) {
    guard let t = pendingPrediction else { return }
    pendingPrediction = nil
    probabilities.withUnsafeMutableBufferPointer { stream!.probabilities(into: $0) }
    decide(at: t, emit: emit)
    while pendingPrediction == nil, let held = heldTicks.first {
      heldTicks.removeOldest()
      tick(held.pose, t: held.t, emit: emit)
    }
  }

  // MARK: the frame path

  private func tick(_ pose: Pose, t: Double, emit: (SpotterEvent) -> Void) {
    if pendingPrediction != nil && heldTicks.isFull {
      // Made alone, as a session that does not batch makes it: the same events.
      makeDuePrediction(emit: emit)
    }
    if pendingPrediction != nil {
      heldTicks.append((t, pose))
      return
    }
    ticks += 1
    lastTime = t
    onTick?(pose, t)
    if let chosenExercise {
      if counter == nil && !chosenSetOver {
        start(chosenExercise, at: t, confidence: 1, emit: emit)
      }
      if let counter {
        counter.process(pose, t: t) {
          repEvent(for: chosenExercise, $0, backfilled: false, emit: emit)
        }
        checkGoal(at: t, emit: emit)
      }
      return
    }
    stream!.push(pose)
    history.append((t, pose))
    if let counter {
      counter.process(pose, t: t) { repEvent(for: activeLabel!, $0, backfilled: false, emit: emit) }
      activeCountedUntil = t
      checkGoal(at: t, emit: emit)
    }
    guard ticks % runtime.options.stride == 0 else { return }
    predict(at: t, emit: emit)
  }

  /// A prediction is due: say whether the window shows a person, then classify it now, or
  /// leave it for the caller's batch.
  private func predict(at t: Double, emit: (SpotterEvent) -> Void) {
    guard let stream else { return }
    let fraction = runtime.options.presenceFraction
    let enough = stream.showsAPerson(inAtLeast: fraction)
    // While a stream's first window fills, it is mostly padding, not an empty room: a stream
    // whose frames so far show a person is not said to have nobody in view.
    let filling =
      !enough && wasPresent == nil && stream.framesSeen < stream.window.capacity
      && Float(stream.framesWithAPerson) >= fraction * Float(stream.framesSeen)
    if wasPresent != enough && !filling {
      wasPresent = enough
      emit(.presence(t: t, present: enough))
    }
    guard enough else {
      smooth(label: nil, confidence: 0, at: t, emit: emit)
      return
    }
    if batchesPredictions {
      pendingPrediction = t
      return
    }
    probabilities.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
    decide(at: t, emit: emit)
  }

  /// The prediction from `probabilities`: reported if asked, then smoothed.
  private func decide(at t: Double, emit: (SpotterEvent) -> Void) {
    let options = runtime.options
    let labels = runtime.classifier!.labels
    let best = probabilities.indexOfLargest!
    let confidence = probabilities[best]
    if options.reportPredictions {
      emit(
        .prediction(
          t: t, label: labels[best], confidence: Double(confidence),
          lowConfidence: confidence < options.lowConfidence,
          probabilities: labels.indices.map { (labels[$0], Double(probabilities[$0])) }))
    }
    smooth(label: best, confidence: confidence, at: t, emit: emit)
  }

  private func smooth(label: Int?, confidence: Float, at t: Double, emit: (SpotterEvent) -> Void) {
    let labels = runtime.classifier!.labels
    smoothing = true
    smoother.observe(label: label, confidence: confidence, t: t) { change in
      switch change {
      case .started(let index, let at):
        start(labels[index], at: at, confidence: confidence, emit: emit)
      case .ended(_, let at): end(at: at, byClassifier: true, emit: emit)
      }
    }
    smoothing = false
    if holdAfterSmoothing {
      holdAfterSmoothing = false
      smoother.endAndHold()
    }
  }

  private func start(_ label: String, at t: Double, confidence: Float, emit: (SpotterEvent) -> Void)
  {
    activeLabel = label
    activeSince = t
    if !totals.contains(where: { $0.name == label }) {
      totals.append(ExerciseTotal(name: label, reps: 0, activeSeconds: 0))
    }
    guard let counter = counters[label] else {  // `other`, or no definition: nothing to count
      emit(.exerciseStarted(t: t, exercise: label, confidence: Double(confidence)))
      return
    }
    // The person's earlier sets of this exercise taught the engine how they move; after someone
    // else took the stream over, no engine knows the person followed now.
    if enginesKnowAnotherPerson {
      enginesKnowAnotherPerson = false
      for known in counters.values { known.reset() }
    }
    counter.startSet()
    self.counter = counter
    // Backfill: the engine replays the buffered history first, oldest tick first, from the
    // oldest frame the first confident window saw (earlier frames are the activity before),
    // but not ticks an engine has already seen (after a switch back, the reps of the earlier
    // stretch were counted there), nor those of the set before (up to its end).
    backfill.removeAll(keepingCapacity: true)
    lastRepEnd = -.infinity
    let reach = t - 2 * halfWindow
    for age in stride(from: history.count - 1, through: 0, by: -1) {
      let (time, pose) = history[age: age]
      guard time > countedUntil[label, default: -.infinity], time >= reach, time > lastEnd else {
        continue
      }
      counter.process(pose, t: time) { backfill.append($0) }
      // A goal reached in the backfill ends the set before a live tick: these were counted.
      activeCountedUntil = time
    }
    // The first confident window saw the set in its newer half, so the set began about half a
    // window before; or earlier, with the first rep backfill found.
    activeSince = max(t - halfWindow, lastEnd)
    for case .rep(let rep) in backfill {
      activeSince = max(min(activeSince, rep.start), lastEnd)
      break
    }
    emit(.exerciseStarted(t: activeSince, exercise: label, confidence: Double(confidence)))
    for event in backfill { repEvent(for: label, event, backfilled: true, emit: emit) }
    checkGoal(at: max(t, lastRepEnd), emit: emit)  // a backfilled rep may have reached it
  }

  /// Ends the set under way when it reaches its goal (reps, backfilled ones too, or time); the
  /// exercise may start again once the classifier has seen something else.
  private func checkGoal(at t: Double, emit: (SpotterEvent) -> Void) {
    guard let label = activeLabel, let counter, !runtime.options.goals.isEmpty else { return }
    for goal in runtime.options.goals where goal.applies(to: label) {
      guard goal.isReached(reps: counter.count, seconds: t - activeSince) else { continue }
      emit(.goalReached(t: t, exercise: label, goal: goal.description))
      let index = totals.firstIndex { $0.name == label }!
      totals[index].goalsReached += 1
      end(at: t, byClassifier: false, emit: emit)
      if chosenExercise != nil {
        chosenSetOver = true
      } else if smoothing {
        holdAfterSmoothing = true
      } else {
        smoother.endAndHold()
      }
      return
    }
  }

  /// Ends the exercise under way at `t`: the end of the stream, or where the classifier first
  /// saw something else. Then its window had the set in its older half, so the set ended about
  /// half a window before; but not before the last rep was done.
  private func end(at t: Double, byClassifier: Bool, emit: (SpotterEvent) -> Void) {
    guard let label = activeLabel else { return }
    if let counted = activeCountedUntil { countedUntil[label] = counted }
    activeCountedUntil = nil
    // Never before the set's last rep ended: its frames are this set's, and the next set's
    // backfill starts after them (one movement is never counted by two exercises).
    let t = max(byClassifier ? min(t, max(t - halfWindow, lastRepEnd, activeSince)) : t, lastRepEnd)
    lastEnd = t
    let reps = counter?.count ?? 0
    emit(.exerciseEnded(t: t, exercise: label, reps: reps))
    let index = totals.firstIndex { $0.name == label }!
    totals[index].reps += reps
    totals[index].activeSeconds += max(0, t - activeSince)
    activeLabel = nil
    counter = nil
  }

  private func repEvent(
    for label: String, _ event: RepEvent, backfilled: Bool, emit: (SpotterEvent) -> Void
  ) {
    if case .rep(let rep) = event {
      lastRepEnd = max(lastRepEnd, rep.end)
      if let angles = rep.angles, let index = angleRanges.firstIndex(where: { $0.label == label }) {
        angleRanges[index].add(angles)
      }
    }
    SpotterEvent.events(of: event, exercise: label, backfilled: backfilled, emit: emit)
  }

  /// Ends the stream: closes the exercise under way and emits the summary, with `counters`
  /// (the stream's bad lines, and what its caller lost on the way).
  func finish(emit: (SpotterEvent) -> Void, counters: StreamCounters) {
    while predictionDue { makeDuePrediction(emit: emit) }
    if let label = activeLabel, let counter {
      counter.finish(at: lastTime) { repEvent(for: label, $0, backfilled: false, emit: emit) }
      checkGoal(at: lastTime, emit: emit)  // the last rep may have reached it
    }
    if chosenExercise != nil {
      end(at: lastTime, byClassifier: false, emit: emit)
    } else {
      smoother.finish(at: lastTime) { _ in end(at: lastTime, byClassifier: false, emit: emit) }
    }
    emit(.summary(t: lastTime, exercises: summary, counters: counters))
  }

  /// The summary so far: per exercise, reps and active seconds.
  var summary: [ExerciseTotal] {
    totals.map { total in
      var total = total
      total.angles = angleRanges.first { $0.label == total.name }?.summary
      guard total.name == activeLabel else { return total }
      total.reps += counter?.count ?? 0
      total.activeSeconds += lastTime - activeSince
      return total
    }
  }
}

/// One exercise's rep ranges on each side, in degrees: the last 64 for the median, the best of
/// all; the summary's `range_of_motion` (a session's, and `spotter count`'s). Allocated when
/// the session starts.
public struct AngleRanges: Sendable {
  public let label: String
  public let joint: JointAngle
  private var left = RunningMedian(capacity: 64)
  private var right = RunningMedian(capacity: 64)
  private var best: (left: Double, right: Double) = (0, 0)

  public init(label: String, joint: JointAngle) {
    self.label = label
    self.joint = joint
  }

  /// Takes a rep's angles.
  public mutating func add(_ angles: JointAngles) {
    if let side = angles.left {
      left.add(Float(side.range))
      best.left = max(best.left, side.range)
    }
    if let side = angles.right {
      right.add(Float(side.range))
      best.right = max(best.right, side.range)
    }
  }

  /// The reps' ranges so far, nil before a rep had a side seen.
  public var summary: AngleSummary? {
    let l = left.median.map { AngleSummary.Side(best: best.left, median: Double($0)) }
    let r = right.median.map { AngleSummary.Side(best: best.right, median: Double($0)) }
    guard l != nil || r != nil else { return nil }
    return AngleSummary(joint: joint.rawValue, left: l, right: r)
  }
}
