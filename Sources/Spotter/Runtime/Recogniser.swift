import ActionModel
import Poses
import RepCounting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A person's exercise recognition: each tick's features through the streaming classifier,
/// every `stride` ticks a prediction of the last window (unless too little of it shows a
/// person), smoothed into the starts and ends it returns (`Decision`), which the session hands
/// to its `SetTracker`.
///
/// At a start, where the classifier hesitated between exercises that look alike from some
/// cameras (a definition's `looks_like`: the runner-up of one of the predictions that started
/// it was a look-alike, with at least `hesitation` of the probability), the engines decide:
/// the look-alike starts instead if its engine counts more reps in the recent frames than the
/// classifier's choice's does.
struct Recogniser {
  /// Features, the window ring and the streaming network.
  let stream: FeatureStream
  private let labels: [String]
  private let options: SessionOptions
  private let batchesPredictions: Bool
  private var probabilities: [Float]
  private var smoother: LabelSmoother
  /// Whether the last window classified showed a person (nil before the first).
  private var wasPresent: Bool?
  private var ticks = 0
  /// Batched predictions: the time of the prediction waiting for `makeDuePrediction`.
  private var pending: Double?
  /// Per label, the labels of the exercises that look like it (`looks_like`).
  private let lookAlikes: [[Int]]
  /// The runner-up of each of the last `dwell` predictions, and its probability.
  private var runnersUp: FixedRing<(label: Int, probability: Float)>
  /// The stream's frames are normalised to their own box: probabilities are raised to the
  /// model's `normalisedFramesPower` (its temperature for such streams).
  var framesAreBoxed = false
  /// `Classifier.normalisedFramesPower`.
  private let normalisedFramesPower: Float?
  /// The model's temperature (`ModelMetadata.temperature`): the network's own probabilities
  /// are the calibrated ones raised to it.
  private let temperature: Float
  /// The network's own probabilities, (K): what the smoother judges (its thresholds were
  /// measured on them), where `probabilities` are what is reported.
  private var raw: [Float]
  /// Tests: probabilities written over the network's, at each prediction's time.
  var script: ((_ t: Double, _ probabilities: inout [Float]) -> Void)?

  /// A runner-up with this much of the probability means the classifier hesitated.
  static let hesitation: Float = 0.2

  /// What a prediction changed: the set under way ended (at that time), and another started.
  struct Decision {
    var ended: Double?
    /// The set ended because its movement stopped though the classifier kept its label.
    var endedStill = false
    var started: (label: String, at: Double, confidence: Float)?
  }

  init(
    classifier: Classifier, catalogue: ExerciseCatalogue, options: SessionOptions,
    batchesPredictions: Bool
  ) {
    stream = FeatureStream(classifier: classifier)
    let labels = classifier.labels
    self.labels = labels
    self.options = options
    self.batchesPredictions = batchesPredictions
    probabilities = [Float](repeating: 0, count: classifier.config.classes)
    smoother = LabelSmoother(options: options, otherLabel: labels.firstIndex(of: Labels.other))
    lookAlikes = labels.map { label in
      (catalogue.definition(forLabel: label)?.looksLike ?? []).compactMap(labels.firstIndex(of:))
    }
    runnersUp = FixedRing(capacity: max(1, options.dwell), repeating: (0, 0))
    normalisedFramesPower = classifier.normalisedFramesPower
    temperature = Float(classifier.metadata.temperature ?? 1)
    raw = [Float](repeating: 0, count: classifier.config.classes)
  }

  /// A prediction is waiting for the caller's batch (`Session.predictionDue`).
  var predictionDue: Bool { pending != nil }

  /// Takes one tick's pose; returns whether a prediction is due at it.
  mutating func push(_ pose: Pose) -> Bool {
    stream.push(pose)
    ticks += 1
    return ticks % options.stride == 0
  }

  /// A prediction is due: say whether the window shows a person, then classify it now, or
  /// leave it for the caller's batch (`pending`). `sets`: the person's sets as of `t`, which
  /// the smoother asks before it ends one.
  mutating func predict(
    at t: Double, sets: inout some SetView, emit: (SpotterEvent) -> Void
  ) -> Decision {
    let fraction = options.presenceFraction
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
    guard enough else { return smooth(label: nil, confidence: 0, at: t, sets: &sets) }
    if batchesPredictions {
      pending = t
      return Decision()
    }
    return classify(at: t, sets: &sets, emit: emit)
  }

  /// Makes the prediction left for the caller's batch (whose network state has caught up), with
  /// the sets as of its time (the ticks since are held).
  mutating func makePending(sets: inout some SetView, emit: (SpotterEvent) -> Void) -> Decision {
    guard let t = pending else { return Decision() }
    pending = nil
    return classify(at: t, sets: &sets, emit: emit)
  }

  /// The window's probabilities: reported (calibrated, for the stream's kind) if asked, then
  /// smoothed (the network's own). A calibrated model's reported confidence is how often
  /// windows like this one are right, and `low_confidence` marks those right less than about
  /// 60% of the time; the smoother keeps to the network's own probabilities, on which its
  /// thresholds count real sets best (Weights/MODEL_CARD.md, "Confidence").
  private mutating func classify(
    at t: Double, sets: inout some SetView, emit: (SpotterEvent) -> Void
  ) -> Decision {
    probabilities.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
    script?(t, &probabilities)
    for index in raw.indices { raw[index] = probabilities[index] }
    if temperature != 1 { Self.raise(&raw, to: temperature) }
    if framesAreBoxed, let power = normalisedFramesPower { Self.raise(&probabilities, to: power) }
    let best = raw.indexOfLargest!
    let confidence = raw[best]
    var runnerUp = best == 0 ? 1 : 0
    for index in raw.indices where index != best {
      if raw[index] > raw[runnerUp] { runnerUp = index }
    }
    runnersUp.append((runnerUp, raw[runnerUp]))
    let reported = probabilities[best]
    if options.reportPredictions {
      emit(
        .prediction(
          t: t, label: labels[best], confidence: Double(reported),
          lowConfidence: reported < Self.reliable,
          probabilities: labels.indices.map { (labels[$0], Double(probabilities[$0])) }))
    }
    return smooth(label: best, confidence: confidence, reported: reported, at: t, sets: &sets)
  }

  /// A calibrated prediction under this is right less than about 60% of the time, and is
  /// reported as low-confidence.
  static let reliable: Float = 0.6

  private mutating func smooth(
    label: Int?, confidence: Float, reported: Float = 0, at t: Double, sets: inout some SetView
  ) -> Decision {
    let changes = smoother.observe(
      label: label, confidence: confidence, t: t, movement: sets.movement(at: t),
      secondOpinion: { label in sets.repsSeen(by: labels[label]) > 0 })
    if label == nil { runnersUp.removeAll() }
    guard var started = changes.started else {
      return Decision(ended: changes.ended?.at, endedStill: changes.endedStill, started: nil)
    }
    if let rival = hesitatedRival(of: started.label),
      sets.repsSeen(by: labels[rival]) > sets.repsSeen(by: labels[started.label])
    {
      smoother.resume(rival, settledAgainst: started.label)
      started.label = rival
    }
    return Decision(
      ended: changes.ended?.at, endedStill: changes.endedStill,
      started: (labels[started.label], started.at, reported))
  }

  /// p^power, normalised: the softmax of the logits at another temperature. Allocates nothing.
  static func raise(_ probabilities: inout [Float], to power: Float) {
    var sum: Float = 0
    for index in probabilities.indices {
      probabilities[index] = powf(max(probabilities[index], 1e-30), power)
      sum += probabilities[index]
    }
    for index in probabilities.indices { probabilities[index] /= sum }
  }

  /// The look-alike of `label` that was the runner-up of one of the last `dwell` predictions
  /// with at least `hesitation` of the probability, if any (the likeliest).
  private func hesitatedRival(of label: Int) -> Int? {
    var rival: (label: Int, probability: Float)?
    for runnerUp in runnersUp
    where runnerUp.probability >= Self.hesitation && lookAlikes[label].contains(runnerUp.label) {
      if runnerUp.probability > rival?.probability ?? 0 { rival = runnerUp }
    }
    return rival?.label
  }

  /// The set of `label` goes on: its engine counted a rep after the smoother had ended it.
  mutating func resume(_ label: String) {
    if let index = labels.firstIndex(of: label) { smoother.resume(index) }
  }

  /// The set under way reached its goal and ended: its exercise may start again only after
  /// the classifier has seen something else.
  mutating func endAndHold(_ label: String? = nil) {
    smoother.endAndHold(label.flatMap(labels.firstIndex(of:)))
  }

  /// Whether the classifier doubts the set under way while its movement keeps it.
  var doubtsSetUnderWay: Bool { smoother.doubtsSetUnderWay }

  /// The label that may not start again until the classifier sees something else, if any.
  var heldLabel: String? { smoother.held.map { labels[$0] } }

  /// Since when the classifier has doubted the set under way (nil while it agrees).
  var doubtedSince: Double? { smoother.doubtedSince }

  /// The stream ends; returns whether a set was under way.
  mutating func finish() -> Bool { smoother.finish() }
}

/// What the recogniser asks of a person's sets (`SetTracker`) before it ends one.
protocol SetView {
  /// What the engine of the set under way sees of its movement at `t`.
  func movement(at t: Double) -> SetMovement
  /// The reps `label`'s engine counts in the kept frames.
  mutating func repsSeen(by label: String) -> Int
}
