import ActionModel
import Poses
import RepCounting

/// One person's stream, the core of a `Session`: frames in (their times already checked),
/// events out (README, "How the code is laid out"). Three parts, each changed by one call per
/// tick, here in `tick`:
///
/// - the `FramePipeline` follows one person and resamples to the model's rate;
/// - the `Recogniser` (nil for a chosen exercise) pushes each tick's features through the
///   streaming classifier and, every `stride` ticks, classifies the last window and smooths
///   the predictions into exercise starts and ends;
/// - the `SetTracker` hands the stream to the exercise's rep engine, which first replays the
///   kept ticks (backfill), checks goals, ends sets and keeps the totals.
///
/// A session for a chosen exercise (`Runtime.makeSession(counting:)`) has no recogniser: its
/// exercise starts at the first tick and ends with the stream or a goal. The steady state
/// allocates nothing per frame.
///
/// The three parts keep Swift's run-time exclusivity check: events are emitted while each is
/// being changed, so an `emit` that called back into the session traps instead of corrupting
/// it. That is a few checks a tick; the rest skip it (README, "Performance").
final class PersonSession {
  private var pipeline: FramePipeline
  private var recogniser: Recogniser?
  private var sets: SetTracker
  /// `pipeline.takeovers` as last seen (read after each frame: events come from inside the
  /// pipeline's push).
  @exclusivity(unchecked) private var takeoversSeen = 0
  /// Batched predictions: the ticks that arrived after the due prediction, held until it is
  /// made (at most `heldTickLimit`). A tick that finds the ring full makes the prediction
  /// itself (`tick`): a burst of frames, or one frame after a long gap (a tick for every
  /// 1/30 s of it), may bring any number of ticks before the caller's batch, and none may be
  /// lost.
  @exclusivity(unchecked) private var heldTicks: FixedRing<(t: Double, pose: Pose)>

  /// The ticks a batching session holds for its due prediction: half a second at 30 fps, more
  /// than a prediction's stride (10), so a live client's frames, which come a few at a time,
  /// wait for the caller's batch. A burst that brings more gets its prediction made alone:
  /// the same events, one fewer prediction sharing the batch's weight reads. Every batching
  /// session keeps room for them all: 224 bytes a tick.
  static let heldTickLimit = 16

  /// A session whose exercises the runtime's classifier recognises.
  /// - Parameter batchesPredictions: see `Session.predictionDue`.
  init(runtime: Runtime, batchesPredictions: Bool = false) {
    let classifier = runtime.classifier!
    let fps = classifier.metadata.fps
    pipeline = FramePipeline(fps: fps)
    recogniser = Recogniser(
      classifier: classifier, catalogue: runtime.catalogue, options: runtime.options,
      batchesPredictions: batchesPredictions)
    heldTicks = FixedRing(
      capacity: batchesPredictions ? Self.heldTickLimit : 1, repeating: (0, .nobody))
    sets = SetTracker(
      labels: classifier.labels, options: runtime.options, catalogue: runtime.catalogue,
      halfWindow: Double(classifier.config.window) / fps / 2, tickRate: fps)
  }

  /// A session of one chosen exercise, counted by `definition` from the first tick: no
  /// classifier, no predictions, no history to backfill from. Its events name the exercise
  /// by the definition's name.
  init(runtime: Runtime, counting definition: ExerciseDefinition) {
    pipeline = FramePipeline(fps: runtime.classifier?.metadata.fps ?? Self.chosenTickRate)
    recogniser = nil
    heldTicks = FixedRing(capacity: 1, repeating: (0, .nobody))
    sets = SetTracker(counting: definition, options: runtime.options)
  }

  /// The tick rate of a chosen exercise's session when the runtime has no model to set it:
  /// the rate the rep engines' definitions are written for.
  static let chosenTickRate = 30.0

  /// Hears each tick (a frame followed and resampled, as the engines and the network get it).
  @exclusivity(unchecked) var onTick: ((Pose, Double) -> Void)?

  /// Hears each rep engine's signal and levels, with its exercise's label.
  @exclusivity(unchecked) var onSignalSample: ((String, SignalSample) -> Void)? {
    didSet { sets.onSignalSample = onSignalSample }
  }

  /// Tests: the classifier's probabilities come from `script` (`Recogniser.script`).
  func scriptPredictions(_ script: @escaping (_ t: Double, _ probabilities: inout [Float]) -> Void)
  {
    recogniser?.script = script
  }

  var currentExercise: String? { sets.activeLabel }
  var currentReps: Int { sets.currentReps }
  var summary: [ExerciseTotal] { sets.summary }
  var tickClock: (ticks: Int, rate: Double) { (pipeline.ticks, pipeline.tickRate) }
  func startClock(at t: Double) { pipeline.startClock(at: t) }
  func carry(_ earlier: [SetRecord]) { sets.carry(earlier) }

  /// Takes one frame, whose time the stream has checked; calls `emit` with each event it
  /// causes.
  func push(_ frame: PeopleFrame, emit: (SpotterEvent) -> Void) {
    pipeline.push(frame) { pose, t in tick(pose, t: t, emit: emit) }
    if pipeline.takeovers != takeoversSeen {
      takeoversSeen = pipeline.takeovers
      sets.takenOver()
    }
    if pipeline.correctsBoxedFrames { losePositions() }
  }

  /// Takes one tick that the caller followed and resampled itself (`Session.push(tick:)`).
  func push(tick pose: Pose, t: Double, positionsAreLost lost: Bool, emit: (SpotterEvent) -> Void) {
    if lost { losePositions() }
    tick(pose, t: t, emit: emit)
  }

  /// The frames are normalised to their own box: the engines are told, and the recogniser
  /// takes the model's temperature for such streams.
  private func losePositions() {
    sets.losePositions()
    recogniser?.framesAreBoxed = true
  }

  // MARK: batched predictions (`Session.predictionDue`)

  var predictionDue: Bool { recogniser?.predictionDue ?? false }

  /// The network's state: made at the first prediction (`FeatureStream.streamState`).
  var streamState: StreamState { recogniser!.stream.streamState }

  /// Makes the due prediction (if any), then processes the ticks held since, up to the next
  /// prediction due. Allocates nothing.
  func makeDuePrediction(emit: (SpotterEvent) -> Void) {
    guard predictionDue else { return }
    apply(recogniser!.makePending(sets: &sets, emit: emit), emit: emit)
    while !predictionDue, let held = heldTicks.first {
      heldTicks.removeOldest()
      tick(held.pose, t: held.t, emit: emit)
    }
  }

  // MARK: the frame path

  /// One tick: every part's change for it is made here.
  private func tick(_ pose: Pose, t: Double, emit: (SpotterEvent) -> Void) {
    if predictionDue {
      // Made alone, as a session that does not batch makes it: the same events.
      if heldTicks.isFull { makeDuePrediction(emit: emit) }
      if predictionDue {
        heldTicks.append((t, pose))
        return
      }
    }
    onTick?(pose, t)
    let due = recogniser?.push(pose) ?? false
    switch sets.tick(pose, t: t, emit: emit) {
    case .nothing: break
    case .goalReached(let label): recogniser?.endAndHold(label)
    case .resumed(let label): recogniser?.resume(label)
    }
    if due {
      apply(recogniser!.predict(at: t, sets: &sets, emit: emit), emit: emit)
    }
  }

  /// The recogniser's decision, handed to the sets: the end first (a switch), then the start,
  /// whose backfill may reach a goal and hold the exercise.
  private func apply(_ decision: Recogniser.Decision, emit: (SpotterEvent) -> Void) {
    if let at = decision.ended {
      sets.classifierEnded(at: at, watch: decision.endedStill, emit: emit)
    }
    sets.hear(doubts: recogniser!.doubtsSetUnderWay, held: recogniser!.heldLabel, emit: emit)
    if let started = decision.started,
      sets.start(started.label, at: started.at, confidence: started.confidence, emit: emit)
    {
      recogniser!.endAndHold()
    }
  }

  /// Ends the stream: closes the exercise under way and emits the summary, with `counters`
  /// (the stream's bad lines, and what its caller lost on the way).
  func finish(emit: (SpotterEvent) -> Void, counters: StreamCounters) {
    while predictionDue { makeDuePrediction(emit: emit) }
    sets.finish(doubtedSince: recogniser?.doubtedSince, emit: emit)
    _ = recogniser?.finish()
    emit(.summary(t: sets.lastTime, exercises: sets.summary, counters: counters))
  }
}
