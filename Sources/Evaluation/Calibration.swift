#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether a model's confidence means what it says: the windows of recordings it did not train
/// on (each clip by the fold model that left it out), the temperature that makes the top
/// probability the share of windows like it that are right, and how far from that they are
/// (`spotter calibrate`).
///
/// Temperature scaling divides the logits by T before the softmax; on probabilities made at
/// T = 1 that is p_T ∝ p^(1/T), so the windows keep their probabilities and any T is tried
/// without the network. T is fitted by the negative log-likelihood of the true labels, each
/// data set weighing the same (a long video's windows do not outvote a set of short clips):
/// golden-section search over log T.
public enum Calibration {
  /// One window the model did not train on.
  public struct Window: Sendable {
    /// The probabilities at temperature 1, (K).
    public var probabilities: [Float]
    /// The true label's index.
    public var truth: Int
    /// The fold that left its clip out.
    public var fold: Int
    /// Which data set it came from (an index into the caller's list).
    public var dataset: Int
    /// Its stream's frames were normalised to their own box (`FrameBoxCorrector`): a model is
    /// calibrated for such streams apart (`ModelMetadata.normalisedFramesTemperature`).
    public var normalisedFrames: Bool

    public init(
      probabilities: [Float], truth: Int, fold: Int, dataset: Int, normalisedFrames: Bool = false
    ) {
      self.probabilities = probabilities
      self.truth = truth
      self.fold = fold
      self.dataset = dataset
      self.normalisedFrames = normalisedFrames
    }
  }

  /// The windows' top probabilities at `temperature`, and whether each top label is right.
  public static func confidences(_ windows: [Window], temperature: Double) -> [(Double, Bool)] {
    windows.map { window in
      let scaled = rescaled(window.probabilities, temperature: temperature)
      var best = 0
      for k in scaled.indices where scaled[k] > scaled[best] { best = k }
      return (scaled[best], best == window.truth)
    }
  }

  /// p^(1/T), normalised: the softmax of the logits divided by T.
  public static func rescaled(_ probabilities: [Float], temperature: Double) -> [Double] {
    let logs = probabilities.map { log(max(Double($0), 1e-30)) / temperature }
    let largest = logs.max() ?? 0
    let powers = logs.map { exp($0 - largest) }
    let sum = powers.reduce(0, +)
    return powers.map { $0 / sum }
  }

  /// The mean negative log-likelihood of the true labels at `temperature`, the mean of each
  /// data set's.
  static func loss(_ windows: [Window], temperature: Double) -> Double {
    var sums: [Int: (loss: Double, count: Int)] = [:]
    for window in windows {
      let p = rescaled(window.probabilities, temperature: temperature)[window.truth]
      sums[window.dataset, default: (0, 0)].loss -= log(max(p, 1e-30))
      sums[window.dataset, default: (0, 0)].count += 1
    }
    guard !sums.isEmpty else { return 0 }
    return sums.values.map { $0.loss / Double($0.count) }.reduce(0, +) / Double(sums.count)
  }

  /// The temperature, from 0.2 to 10, that fits `windows` best.
  public static func fitTemperature(_ windows: [Window]) -> Double {
    var (low, high) = (log(0.2), log(10.0))
    let ratio = (sqrt(5.0) - 1) / 2
    for _ in 0..<60 {
      let a = high - ratio * (high - low)
      let b = low + ratio * (high - low)
      if loss(windows, temperature: exp(a)) < loss(windows, temperature: exp(b)) {
        high = b
      } else {
        low = a
      }
    }
    return exp((low + high) / 2)
  }

  /// The expected calibration error: over `bins` equal bins of the top probability, the
  /// windows' share in each times the gap between its mean confidence and its accuracy.
  public static func expectedError(_ confidences: [(Double, Bool)], bins: Int = 15) -> Double {
    guard !confidences.isEmpty else { return 0 }
    var sums = [(confidence: Double, right: Double, count: Double)](
      repeating: (0, 0, 0), count: bins)
    for (confidence, right) in confidences {
      let bin = min(bins - 1, Int(confidence * Double(bins)))
      sums[bin].confidence += confidence
      sums[bin].right += right ? 1 : 0
      sums[bin].count += 1
    }
    return sums.reduce(0) { $0 + abs($1.confidence - $1.right) } / Double(confidences.count)
  }

  /// Each window's top probability (in `windows`' order) at the temperature fitted on the
  /// other folds' windows (of every data set): calibration measured on windows the fit did not
  /// see; and the temperature of each fold.
  public static func crossFitted(_ windows: [Window]) -> (
    confidences: [(Double, Bool)], temperatures: [Int: Double]
  ) {
    var confidences = [(Double, Bool)](repeating: (0, false), count: windows.count)
    var temperatures: [Int: Double] = [:]
    for fold in Set(windows.map(\.fold)).sorted() {
      let temperature = fitTemperature(windows.filter { $0.fold != fold })
      temperatures[fold] = temperature
      let indices = windows.indices.filter { windows[$0].fold == fold }
      let scored = Self.confidences(indices.map { windows[$0] }, temperature: temperature)
      for (index, confidence) in zip(indices, scored) { confidences[index] = confidence }
    }
    return (confidences, temperatures)
  }

  /// How often windows are right by how confident they are: `bands` of top probability
  /// (each lower bound, up to the next), with their windows and accuracy.
  public static func reliability(_ confidences: [(Double, Bool)], bands: [Double]) -> [(
    from: Double, windows: Int, accuracy: Double
  )] {
    bands.enumerated().map { index, from in
      let to = index + 1 < bands.count ? bands[index + 1] : 1.01
      let inBand = confidences.filter { $0.0 >= from && $0.0 < to }
      let right = inBand.filter(\.1).count
      return (from, inBand.count, inBand.isEmpty ? 0 : Double(right) / Double(inBand.count))
    }
  }
}
