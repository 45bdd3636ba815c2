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

  /// Reps counted by `definition` over the clip, as `spotter count` counts them.
  public static func countReps(
    _ recording: ResampledRecording, from start: Double?, to end: Double?,
    definition: ExerciseDefinition
  ) -> Int {
    let counter = RepCounter(definition)
    let ticks = recording.slice(from: start, to: end)
    for (index, tick) in zip(ticks.indices, ticks) {
      if let lost = recording.positionsLostAfterTick, index > lost {
        counter.positionsAreLost = true
      }
      counter.process(tick.pose, t: tick.t) { _ in }
    }
    if let last = ticks.last { counter.finish(at: last.t) { _ in } }
    return counter.count
  }
}
