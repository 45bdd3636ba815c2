import ActionModel
import Poses
import RepCounting
import Spotter

/// One annotated clip scored: what the classifier and the rep engine make of it.
public enum ClipScoring {
  /// The classifier's probabilities over a clip, as a session that starts at the clip's first
  /// frame sees it: a window every `stride` frames, zero-padded before the clip began, and
  /// only the windows in which at least `presenceFraction` of the frames show a person (the
  /// session classifies no others). A clip too short or too empty for any such window is
  /// scored by its last window, padded, so that every clip gets a label (a session would
  /// give it none).
  ///
  /// - Returns: each window's probabilities, and their mean (the clip's scores).
  public static func classify(
    _ recording: ResampledRecording, from start: Double?, to end: Double?,
    classifier: Classifier, stride: Int = 10,
    presenceFraction: Float = SessionOptions().presenceFraction
  ) -> (windows: [[Float]], mean: [Float]) {
    let ticks = recording.slice(from: start, to: end)
    let stream = FeatureStream(classifier: classifier)
    var windows: [[Float]] = []
    for (index, tick) in ticks.enumerated() {
      stream.push(tick.pose)
      if (index + 1) % stride == 0 && stream.showsAPerson(inAtLeast: presenceFraction) {
        windows.append(stream.probabilities())
      }
    }
    if windows.isEmpty && !ticks.isEmpty { windows.append(stream.probabilities()) }
    var mean = [Float](repeating: 0, count: classifier.config.classes)
    for window in windows { for k in mean.indices { mean[k] += window[k] / Float(windows.count) } }
    return (windows, mean)
  }

  /// Reps counted by `definition` over the clip, as `spotter count` counts them, and what the
  /// engine said on the way: each rep and each movement it refused (`rep` and `rejected`
  /// events; cues that belong to no movement are left out), for the tempo table's silent misses.
  ///
  /// The count is the counter's own, which is what `spotter count` prints; a `rep` event,
  /// flagged partial or not, is one of them.
  public static func countReps(
    _ recording: ResampledRecording, from start: Double?, to end: Double?,
    definition: ExerciseDefinition
  ) -> CountedReps {
    let counter = RepCounter(definition)
    let ticks = recording.slice(from: start, to: end)
    var events: [RepEvent] = []
    let keep: (RepEvent) -> Void = { event in
      switch event {
      case .rep, .rejected: events.append(event)
      case .cue: break
      }
    }
    for (index, tick) in zip(ticks.indices, ticks) {
      if let lost = recording.positionsLostAfterTick, index > lost {
        counter.positionsAreLost = true
      }
      counter.process(tick.pose, t: tick.t, emit: keep)
    }
    if let last = ticks.last { counter.finish(at: last.t, emit: keep) }
    return CountedReps(count: counter.count, events: events)
  }
}

/// A clip's reps as the engine counted them: the count, and the reps and refusals it reported.
public struct CountedReps: Sendable {
  public var count: Int
  /// `rep` and `rejected` events, in the order the engine gave them.
  public var events: [RepEvent]

  public init(count: Int, events: [RepEvent]) {
    self.count = count
    self.events = events
  }
}
