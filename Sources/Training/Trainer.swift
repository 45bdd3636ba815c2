import ActionModel
import Foundation
import Randomness

/// Trains a network with Adam on softmax cross-entropy over class-balanced minibatches, and
/// keeps the parameters that did best on the validation windows (early stopping).
///
/// Deterministic: the same data, options and seed give the same weights, bit for bit, on the
/// same machine (OpenBLAS on one thread, all randomness from `seed`).
public enum Trainer {
  public struct Options: Sendable {
    public var epochs = 12
    /// Windows drawn per epoch (class-balanced, with replacement).
    public var windowsPerEpoch = 40_000
    public var batch = 64
    public var learningRate: Float = 2e-3
    public var weightDecay: Float = 1e-4
    /// Epochs without a better validation accuracy before stopping.
    public var patience = 4
    public var seed: UInt64 = 1
    /// How often each class is drawn relative to the others (default: all equal). `other`
    /// covers everything that is not an exercise, so it deserves more than one share.
    public var classWeights: [Double]? = nil
    /// How much more often a window cut from an annotated recording is drawn than a synthetic
    /// one of the same class (`WindowSampler`).
    public var recordedWeight = 1.0

    public init() {}
  }

  public struct Progress: Sendable {
    public var epoch: Int
    public var batch: Int
    public var batches: Int
    public var loss: Double
    public var accuracy: Double
    /// Set at the end of an epoch.
    public var validationAccuracy: Double?
  }

  public struct Result: Sendable {
    public var parameters: Parameters
    public var bestEpoch: Int
    public var bestValidationAccuracy: Double
    /// Per epoch: training loss and accuracy, validation accuracy.
    public var history: [(loss: Double, accuracy: Double, validation: Double)]
  }

  /// - Parameters:
  ///   - data: the windows to learn from.
  ///   - validation: held-out windows (none: the last epoch is kept).
  public static func train(
    config: NetworkConfig, data: some TrainingWindows, validation: (some TrainingWindows)?,
    options: Options, progress: (Progress) -> Void = { _ in }
  ) -> Result {
    var generator = SeededGenerator(seed: options.seed)
    var parameters = Parameters(config: config, initialisedWith: &generator)
    var gradients = Parameters(config: config)
    var adam = Adam(
      parameterCount: parameters.values.count, learningRate: options.learningRate,
      weightDecay: options.weightDecay)
    let graph = TrainingGraph(config: config, capacity: options.batch)
    let size = config.window * config.inputFeatures
    let sampler = WindowSampler(
      data: data, classes: config.classes, classWeights: options.classWeights,
      recordedWeight: options.recordedWeight)
    var best = (parameters, 0, -1.0)
    var history: [(Double, Double, Double)] = []
    var batchWindows = [Float](repeating: 0, count: options.batch * size)
    var batchLabels = [Int](repeating: 0, count: options.batch)
    let batches = max(1, options.windowsPerEpoch / options.batch)
    var stale = 0
    for epoch in 0..<options.epochs {
      // Cosine decay from the learning rate to a twentieth of it.
      let phase = Float(epoch) / Float(max(options.epochs - 1, 1))
      adam.learningRate =
        options.learningRate * (0.05 + 0.95 * 0.5 * (1 + Float(cos(Double.pi * Double(phase)))))
      var lossSum = 0.0
      var correct = 0
      for b in 0..<batches {
        for slot in 0..<options.batch {
          let index = sampler.draw(&generator)
          batchLabels[slot] = data.label(index)
          batchWindows.withUnsafeMutableBufferPointer { target in
            data.copyWindow(index, into: target.baseAddress! + slot * size)
          }
        }
        for i in gradients.values.indices { gradients.values[i] = 0 }
        let (loss, right) = graph.step(
          windows: batchWindows[...], labels: batchLabels[...], parameters: parameters,
          gradients: &gradients)
        adam.update(&parameters.values, gradients: gradients.values)
        lossSum += loss
        correct += right
        if b % 25 == 0 || b == batches - 1 {
          progress(
            Progress(
              epoch: epoch, batch: b + 1, batches: batches, loss: lossSum / Double(b + 1),
              accuracy: Double(correct) / Double((b + 1) * options.batch)))
        }
      }
      let trainLoss = lossSum / Double(batches)
      let trainAccuracy = Double(correct) / Double(batches * options.batch)
      let validationAccuracy =
        validation.map { accuracy(graph, parameters: parameters, windows: $0) } ?? trainAccuracy
      history.append((trainLoss, trainAccuracy, validationAccuracy))
      progress(
        Progress(
          epoch: epoch, batch: batches, batches: batches, loss: trainLoss, accuracy: trainAccuracy,
          validationAccuracy: validationAccuracy))
      if validation == nil || validationAccuracy > best.2 {
        best = (parameters, epoch, validationAccuracy)
        stale = 0
      } else {
        stale += 1
        if stale >= options.patience { break }
      }
    }
    return Result(
      parameters: best.0, bestEpoch: best.1, bestValidationAccuracy: best.2, history: history)
  }

  /// The share of windows whose most probable class is their label.
  public static func accuracy(
    _ graph: TrainingGraph, parameters: Parameters, windows: some TrainingWindows
  ) -> Double {
    guard windows.count > 0 else { return 0 }
    let size = graph.config.window * graph.config.inputFeatures
    let classes = graph.config.classes
    var batch = [Float](repeating: 0, count: graph.capacity * size)
    var right = 0
    var start = 0
    while start < windows.count {
      let count = min(graph.capacity, windows.count - start)
      batch.withUnsafeMutableBufferPointer { target in
        for b in 0..<count { windows.copyWindow(start + b, into: target.baseAddress! + b * size) }
      }
      let probabilities = graph.predict(
        windows: batch[0..<count * size], batch: count, parameters: parameters)
      for b in 0..<count
      where probabilities[b * classes..<(b + 1) * classes].indexOfLargest! - b * classes
        == windows.label(start + b)
      {
        right += 1
      }
      start += count
    }
    return Double(right) / Double(windows.count)
  }
}
