import ActionModel
import MotionSynth

/// A classifier that is always right, for tests of the runtime's rules (`@testable import
/// Spotter`, then `Session.scriptPredictions`): at each prediction it is sure of the label of
/// what the window shows, so what a test counts is the runtime's doing, whatever the shipped
/// model makes of the same poses (`make eval` measures that).
public enum ScriptedClassifier {
  /// How sure the script is: above the smoother's `enter`, as a confident model is.
  public static let confidence: Float = 0.95

  /// The label of the segment a window ending at `t` mostly shows (the one at `t` − 1 s, half
  /// a window back), as a classifier that is always right would say; `other` between segments.
  public static func truth(_ recording: Recording, at t: Double) -> String {
    let middle = t - 1
    return recording.segments.first { $0.start <= middle && middle < $0.end }?.label
      ?? Labels.other
  }

  /// A script for `Session.scriptPredictions`: at each prediction, probability `confidence`
  /// on `label(t)` (one of `labels`, the model's, in order) and 0 on the others. Allocates
  /// nothing when `label` does not, so a session scripted with it keeps its per-frame promise.
  public static func script(
    labels: [String], label: @escaping (Double) -> String
  ) -> (_ t: Double, _ probabilities: inout [Float]) -> Void {
    { t, probabilities in
      let said = label(t)
      for index in probabilities.indices {
        probabilities[index] = labels[index] == said ? confidence : 0
      }
    }
  }

  /// The script of a classifier always right about `recording` (`truth`).
  public static func truth(_ recording: Recording, labels: [String]) -> (
    _ t: Double, _ probabilities: inout [Float]
  ) -> Void {
    script(labels: labels) { truth(recording, at: $0) }
  }
}
