import ActionModel
import Linalg
import TestSupport

/// The classifier: window forward at batch 1 and 64, the streaming step, the naive reference.
enum NetworkBenchmarks {
  /// The model timed: the default weights when given, else seeded random weights of the
  /// standard architecture (the same FLOPs and shapes; timing does not depend on the values).
  static func model(_ classifier: Classifier?) -> Classifier {
    classifier ?? Fixtures.randomClassifier(.standard(classes: 13), seed: 1)
  }

  static func windows(_ classifier: Classifier, count: Int) -> [Float] {
    let config = classifier.config
    return (0..<count).flatMap {
      Fixtures.randomFrames(config.window, features: config.inputFeatures, seed: UInt64($0)).flatMap
      { $0 }
    }
  }

  /// Checks the fast path against the naive reference before anything is timed.
  static func check(_ classifier: Classifier, strategy: ConvolutionStrategy?) {
    let config = classifier.config
    let frames = Fixtures.randomFrames(config.window, features: config.inputFeatures, seed: 99)
    let workspace = Workspace(for: classifier, tile: 1, strategy: strategy)
    var fast = [Float](repeating: 0, count: config.classes)
    frames.flatMap { $0 }.withUnsafeBufferPointer { input in
      fast.withUnsafeMutableBufferPointer {
        classifier.predict(windows: input, count: 1, into: $0, workspace: workspace)
      }
    }
    let naive = NaiveNetwork.forward(frames, parameters: classifier.parameters).map(Float.init)
    let difference = Approximate.maxDifference(fast, naive)
    precondition(
      difference < 1e-5,
      "\(strategy?.rawValue ?? "the plan") differs from the naive reference by \(difference)")
  }

  /// The window pass at `batch`, as the plan runs it unless a strategy (for every layer) and
  /// tile are given.
  static func forward(
    _ classifier: Classifier, batch: Int, strategy: ConvolutionStrategy? = nil, tile: Int? = nil
  ) -> Measurement {
    check(classifier, strategy: strategy)
    let config = classifier.config
    let input = windows(classifier, count: batch)
    let workspace = Workspace(
      for: classifier, tile: tile.map { min($0, batch) }, strategy: strategy)
    var output = [Float](repeating: 0, count: batch * config.classes)
    let how = strategy.map { "\($0.rawValue), tile \(workspace.tile)" } ?? "plan"
    return measure(
      "window forward, batch \(batch) (\(how))",
      units: Double(batch * config.flopsPerWindow), unit: "FLOP"
    ) {
      input.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: batch, into: $0, workspace: workspace)
        }
      }
      return Double(output[0])
    }
  }

  /// The per-frame cost of a stream that is asked for probabilities every `stride` frames:
  /// `stride` pushes and one `probabilities`, divided by `stride`.
  static func streamStep(
    _ classifier: Classifier, stride: Int, precision: WeightPrecision? = nil
  ) -> Measurement {
    let config = classifier.config
    let frames = Fixtures.randomFrames(600, features: config.inputFeatures, seed: 5)
    let flat = frames.flatMap { $0 }
    let stream = classifier.makeStream(precision: precision)
    var output = [Float](repeating: 0, count: config.classes)
    // Check: after a window of frames the stream equals the window pass.
    for frame in frames[0..<config.window] { frame.withUnsafeBufferPointer { stream.push($0) } }
    let expected = classifier.predict(window: frames[0..<config.window].flatMap { $0 })
    let tolerance: Float = stream.precision == .half ? 2e-3 : 1e-5
    precondition(
      Approximate.maxDifference(stream.probabilities(), expected) < tolerance,
      "stream differs from the window pass")
    var index = 0
    let width = config.inputFeatures
    let result = measure(
      "streaming step, prediction every \(stride) frame\(stride == 1 ? "" : "s") "
        + "(\(stream.precision.rawValue))",
      units: Double(stride * config.flopsPerStreamStep), unit: "FLOP"
    ) {
      flat.withUnsafeBufferPointer { all in
        for _ in 0..<stride {
          stream.push(UnsafeBufferPointer(rebasing: all[index * width..<(index + 1) * width]))
          index = index + 1 == frames.count ? 0 : index + 1
        }
      }
      output.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
      return Double(output[0])
    }
    // Per frame, so it compares with one window forward.
    return Measurement(
      name: result.name, samples: result.samples.map { $0 / Double(stride) },
      unitsPerIteration: Double(config.flopsPerStreamStep), unit: result.unit)
  }

  static func naive(_ classifier: Classifier) -> Measurement {
    let config = classifier.config
    let frames = Fixtures.randomFrames(config.window, features: config.inputFeatures, seed: 7)
    let parameters = classifier.parameters
    return measure(
      "naive reference, batch 1", units: Double(config.flopsPerWindow), unit: "FLOP", samples: 5,
      sampleSeconds: 0.2
    ) {
      NaiveNetwork.forward(frames, parameters: parameters)[0]
    }
  }
}
