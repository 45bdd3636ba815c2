import ActionModel
import Foundation
import Poses
import RepCounting

/// One annotated clip read and scored: what the classifier and the rep engine make of it.
public enum ClipScoring {
  /// A pose file's frames, resampled to 30 fps with one person followed, and its bad lines.
  public struct Recording: Sendable {
    public var ticks: [(t: Double, pose: Pose)]
    public var badLines: Int
  }

  /// Reads a whole pose file through the runtime's front end.
  public static func read(_ path: String, fps: Double = 30) throws -> Recording {
    let source = try PoseFiles.open(path)
    var pipeline = FramePipeline(fps: fps)
    var frame = PeopleFrame()
    var ticks: [(t: Double, pose: Pose)] = []
    var bad = 0
    loop: while true {
      switch try source.next(into: &frame) {
      case .end: break loop
      case .skipped: bad += 1
      case .frame: pipeline.push(frame) { pose, t in ticks.append((t, pose)) }
      }
    }
    return Recording(ticks: ticks, badLines: bad)
  }

  /// The ticks inside `start...end` (the whole recording when nil).
  static func slice(_ recording: Recording, _ start: Double?, _ end: Double?) -> ArraySlice<
    (t: Double, pose: Pose)
  > {
    let from = start ?? -.infinity
    let to = end ?? .infinity
    let first = recording.ticks.firstIndex { $0.t >= from - 1e-9 } ?? recording.ticks.count
    let last = recording.ticks.lastIndex { $0.t <= to + 1e-9 } ?? -1
    return first <= last ? recording.ticks[first...last] : []
  }

  /// The classifier's probabilities over a clip, as a stream that starts at the clip's first
  /// frame sees it: a window every `stride` frames, zero-padded before the clip began (so a
  /// clip shorter than the window is classified padded, as the runtime would).
  ///
  /// - Returns: each window's probabilities, and their mean (the clip's scores).
  public static func classify(
    _ recording: Recording, from start: Double?, to end: Double?, classifier: Classifier,
    stride: Int = 10
  ) -> (windows: [[Float]], mean: [Float]) {
    let ticks = slice(recording, start, end)
    let stream = classifier.makeStream()
    var extractor = FeatureExtractor(spec: classifier.metadata.features)
    var features = [Float](repeating: 0, count: classifier.config.inputFeatures)
    var windows: [[Float]] = []
    for (index, tick) in ticks.enumerated() {
      features.withUnsafeMutableBufferPointer { extractor.extract(tick.pose, into: $0) }
      features.withUnsafeBufferPointer { stream.push($0) }
      if (index + 1) % stride == 0 || index == ticks.count - 1 {
        windows.append(stream.probabilities())
      }
    }
    var mean = [Float](repeating: 0, count: classifier.config.classes)
    for window in windows { for k in mean.indices { mean[k] += window[k] / Float(windows.count) } }
    return (windows, mean)
  }

  /// Reps counted by `definition` over the clip.
  public static func countReps(
    _ recording: Recording, from start: Double?, to end: Double?, definition: ExerciseDefinition
  ) -> Int {
    let counter = RepCounter(definition)
    for tick in slice(recording, start, end) { counter.process(tick.pose, t: tick.t) { _ in } }
    return counter.count
  }
}
