import ActionModel
import Foundation

/// Accuracy against annotations: window and clip accuracy, per-class precision and recall, a
/// confusion matrix, and rep-count error where the annotations give reps.
public struct EvaluationReport: Sendable {
  public let labels: [String]
  /// Clip-level counts, [truth][predicted].
  public private(set) var confusion: [[Int]]
  public private(set) var windowsCorrect = 0
  public private(set) var windowsTotal = 0
  /// Per clip with annotated reps: what was counted against what was done.
  public private(set) var reps: [RepScore] = []
  /// Per clip with annotated reps, for the table by tempo (`spotter eval --tempo`): its time,
  /// rep bounds and the engine's events too.
  public private(set) var tempoClips: [TempoClip] = []
  /// Clips whose label the model does not know (skipped for accuracy).
  public private(set) var unknownLabels: [String: Int] = [:]
  /// Clips that give reps under a label no exercise definition counts (not counted).
  public private(set) var uncountedLabels: [String: Int] = [:]
  /// Clips given the wrong label, in the order added: where to look first.
  public private(set) var mislabelled: [MislabelledClip] = []

  public init(labels: [String]) {
    self.labels = labels
    confusion = Array(repeating: Array(repeating: 0, count: labels.count), count: labels.count)
  }

  /// Notes a clip that gives reps under `label`, which no exercise definition counts.
  public mutating func addUncounted(label: String) { uncountedLabels[label, default: 0] += 1 }

  /// Adds one clip's classification: its window predictions (argmax each) and its scores.
  /// `clip` names it (file and start) in the list of mislabelled clips.
  public mutating func addClip(
    _ clip: String, truth: String, windows: [[Float]], scores: [Float]
  ) {
    guard let row = labels.firstIndex(of: truth) else {
      unknownLabels[truth, default: 0] += 1
      return
    }
    let predicted = scores.indexOfLargest!
    confusion[row][predicted] += 1
    if predicted != row {
      mislabelled.append(
        MislabelledClip(
          clip: clip, truth: truth, predicted: labels[predicted],
          probability: Double(scores[predicted]), truthProbability: Double(scores[row])))
    }
    for window in windows {
      windowsTotal += 1
      if window.indexOfLargest == row { windowsCorrect += 1 }
    }
  }

  public mutating func addReps(_ score: RepScore) { reps.append(score) }

  public mutating func addTempo(_ clip: TempoClip) { tempoClips.append(clip) }

  public var clips: Int { confusion.reduce(0) { $0 + $1.reduce(0, +) } }
  public var clipAccuracy: Double {
    clips == 0 ? 0 : Double(labels.indices.reduce(0) { $0 + confusion[$1][$1] }) / Double(clips)
  }
  public var windowAccuracy: Double {
    windowsTotal == 0 ? 0 : Double(windowsCorrect) / Double(windowsTotal)
  }

  /// Precision and recall of class `k` (nil where undefined: nothing predicted or present).
  public func precision(_ k: Int) -> Double? {
    let predicted = labels.indices.reduce(0) { $0 + confusion[$1][k] }
    return predicted == 0 ? nil : Double(confusion[k][k]) / Double(predicted)
  }

  public func recall(_ k: Int) -> Double? {
    let present = confusion[k].reduce(0, +)
    return present == 0 ? nil : Double(confusion[k][k]) / Double(present)
  }

  public var repLabels: [String] { reps.labels }

  /// Rep-count error per label (all labels when nil); see `RepScore.error`.
  public func repError(for label: String? = nil) -> RepError? { reps.error(for: label) }
}

/// A clip the classifier got wrong: its label, the one chosen, and both mean probabilities.
public struct MislabelledClip: Sendable, Equatable {
  public let clip: String
  public let truth: String
  public let predicted: String
  public let probability: Double
  public let truthProbability: Double
}
