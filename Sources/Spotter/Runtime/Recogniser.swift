import ActionModel
import Poses

/// A person's exercise recognition: each tick's features through the streaming classifier,
/// every `stride` ticks a prediction of the last window (unless too little of it shows a
/// person), smoothed into the starts and ends it returns (`Decision`), which the session hands
/// to its `SetTracker`.
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

  /// What a prediction changed: the set under way ended (at that time), and another started.
  struct Decision {
    var ended: Double?
    var started: (label: String, at: Double, confidence: Float)?
  }

  init(classifier: Classifier, options: SessionOptions, batchesPredictions: Bool) {
    stream = FeatureStream(classifier: classifier)
    labels = classifier.labels
    self.options = options
    self.batchesPredictions = batchesPredictions
    probabilities = [Float](repeating: 0, count: classifier.config.classes)
    smoother = LabelSmoother(options: options, otherLabel: labels.firstIndex(of: Labels.other))
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
  /// leave it for the caller's batch (`pending`).
  mutating func predict(at t: Double, emit: (SpotterEvent) -> Void) -> Decision {
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
    guard enough else { return smooth(label: nil, confidence: 0, at: t) }
    if batchesPredictions {
      pending = t
      return Decision()
    }
    return classify(at: t, emit: emit)
  }

  /// Makes the prediction left for the caller's batch (whose network state has caught up).
  mutating func makePending(emit: (SpotterEvent) -> Void) -> Decision {
    guard let t = pending else { return Decision() }
    pending = nil
    return classify(at: t, emit: emit)
  }

  /// The window's probabilities: reported if asked, then smoothed.
  private mutating func classify(at t: Double, emit: (SpotterEvent) -> Void) -> Decision {
    probabilities.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
    let best = probabilities.indexOfLargest!
    let confidence = probabilities[best]
    if options.reportPredictions {
      emit(
        .prediction(
          t: t, label: labels[best], confidence: Double(confidence),
          lowConfidence: confidence < options.lowConfidence,
          probabilities: labels.indices.map { (labels[$0], Double(probabilities[$0])) }))
    }
    return smooth(label: best, confidence: confidence, at: t)
  }

  private mutating func smooth(label: Int?, confidence: Float, at t: Double) -> Decision {
    let changes = smoother.observe(label: label, confidence: confidence, t: t)
    return Decision(
      ended: changes.ended?.at,
      started: changes.started.map { (labels[$0.label], $0.at, confidence) })
  }

  /// The set under way reached its goal and ended: its exercise may start again only after
  /// the classifier has seen something else.
  mutating func endAndHold() { smoother.endAndHold() }

  /// The stream ends; returns whether a set was under way.
  mutating func finish() -> Bool { smoother.finish() }
}
