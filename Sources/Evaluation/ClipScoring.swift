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

  /// Reps counted by `definition` over the clip, as `spotter count` counts them: a session
  /// for the chosen exercise, given the clip's ticks of the recording resampled once. With
  /// them, what the engine said on the way: each rep and each movement it refused (`rep` and
  /// `rejected`; cues that belong to no movement are left out), for the tempo table's silent
  /// misses. A `rep` event, flagged partial or not, is one of the count.
  public static func countReps(
    _ recording: ResampledRecording, from start: Double?, to end: Double?,
    definition: ExerciseDefinition
  ) -> CountedReps {
    let runtime = Runtime(classifier: nil, catalogue: ExerciseCatalogue(definitions: [definition]))
    let session = runtime.makeSession(counting: definition)
    var counted = CountedReps(count: 0, events: [])
    let keep: (SpotterEvent) -> Void = { event in
      switch event {
      case .rep(_, _, let rep, _): counted.events.append(.rep(rep))
      case .repRejected(_, _, let rejection): counted.events.append(.rejected(rejection))
      case .summary(_, let totals, _): counted.count = totals.first?.reps ?? 0
      default: break
      }
    }
    let ticks = recording.slice(from: start, to: end)
    for (index, tick) in zip(ticks.indices, ticks) {
      let lost = recording.positionsLostAfterTick.map { index > $0 } ?? false
      session.push(tick: tick.pose, t: tick.t, positionsAreLost: lost, emit: keep)
    }
    session.finish(emit: keep)
    return counted
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
