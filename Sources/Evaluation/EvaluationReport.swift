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
  /// Per clip with annotated reps: label, reps counted, reps annotated.
  public private(set) var reps: [(label: String, counted: Int, truth: Int)] = []
  /// Clips whose label the model does not know (skipped for accuracy).
  public private(set) var unknownLabels: [String: Int] = [:]

  public init(labels: [String]) {
    self.labels = labels
    confusion = Array(repeating: Array(repeating: 0, count: labels.count), count: labels.count)
  }

  /// Adds one clip's classification: its window predictions (argmax each) and its scores.
  public mutating func addClip(truth: String, windows: [[Float]], scores: [Float]) {
    guard let row = labels.firstIndex(of: truth) else {
      unknownLabels[truth, default: 0] += 1
      return
    }
    confusion[row][scores.indexOfLargest!] += 1
    for window in windows {
      windowsTotal += 1
      if window.indexOfLargest == row { windowsCorrect += 1 }
    }
  }

  public mutating func addReps(label: String, counted: Int, truth: Int) {
    reps.append((label, counted, truth))
  }

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

  /// Rep-count error per label: mean of |counted − truth| / truth, and the share within one
  /// rep. Clips with zero annotated reps are left out of the mean error (it has no scale).
  public func repError(for label: String? = nil) -> (clips: Int, mae: Double, offByOne: Double)? {
    let chosen = reps.filter { label == nil || $0.label == label }
    guard !chosen.isEmpty else { return nil }
    let scaled = chosen.filter { $0.truth > 0 }
    let mae =
      scaled.isEmpty
      ? 0
      : scaled.reduce(0) { $0 + Double(abs($1.counted - $1.truth)) / Double($1.truth) }
        / Double(scaled.count)
    let withinOne =
      Double(chosen.filter { abs($0.counted - $0.truth) <= 1 }.count) / Double(chosen.count)
    return (chosen.count, mae, withinOne)
  }

  public var repLabels: [String] { Array(Set(reps.map(\.label))).sorted() }
}
