import ActionModel
import Linalg
import Poses
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
    let fed =
      config.inputFeatures == FeatureSpec().featuresPerFrame
      ? "" : ", F = \(config.inputFeatures)"
    return measure(
      "window forward, batch \(batch) (\(how)\(fed))",
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
  /// `stride` pushes and one `probabilities`, divided by `stride`; with `streams` B above 1,
  /// B streams stepped in lockstep by one state, divided by B too (a stream's frame).
  static func streamStep(
    _ classifier: Classifier, stride: Int, streams: Int = 1, precision: WeightPrecision? = nil
  ) -> Measurement {
    let config = classifier.config
    let frames = Fixtures.randomFrames(600, features: config.inputFeatures, seed: 5)
    let width = config.inputFeatures
    // Stream b sees the frames from 37·b on, so the streams differ.
    let batched = (0..<frames.count).flatMap { index in
      (0..<streams).flatMap { frames[(index + 37 * $0) % frames.count] }
    }
    let stream = classifier.makeStream(streams: streams, precision: precision)
    var output = [Float](repeating: 0, count: streams * config.classes)
    // Check: after a window of frames each stream equals the window pass.
    batched.withUnsafeBufferPointer { all in
      for index in 0..<config.window {
        stream.push(
          UnsafeBufferPointer(
            rebasing: all[index * streams * width..<(index + 1) * streams * width]))
      }
    }
    let tolerance: Float = stream.precision == .half ? 2e-3 : 1e-5
    let got = stream.probabilities()
    for b in 0..<streams {
      let window = (0..<config.window).flatMap { frames[($0 + 37 * b) % frames.count] }
      precondition(
        Approximate.maxDifference(
          Array(got[b * config.classes..<(b + 1) * config.classes]),
          classifier.predict(window: window)) < tolerance,
        "stream \(b) differs from the window pass")
    }
    var index = 0
    let name =
      "streaming step, prediction every \(stride) frame\(stride == 1 ? "" : "s") "
      + (streams == 1 ? "" : "\(streams) streams at once ") + "(\(stream.precision.rawValue))"
    let result = measure(
      name, units: Double(stride * streams * config.flopsPerStreamStep), unit: "FLOP"
    ) {
      batched.withUnsafeBufferPointer { all in
        for _ in 0..<stride {
          stream.push(
            UnsafeBufferPointer(
              rebasing: all[index * streams * width..<(index + 1) * streams * width]))
          index = index + 1 == frames.count ? 0 : index + 1
        }
      }
      output.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
      return Double(output[0])
    }
    // Per frame of one stream, so it compares with one window forward.
    return Measurement(
      name: result.name, samples: result.samples.map { $0 / Double(stride * streams) },
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
