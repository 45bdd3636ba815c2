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
  ///   - windows: (N, T, F); labels: N class indices.
  ///   - validation: held-out windows and labels (none: the last epoch is kept).
  public static func train(
    config: NetworkConfig, windows: [Float], labels: [Int],
    validation: (windows: [Float], labels: [Int])?,
    options: Options, progress: (Progress) -> Void = { _ in }
  ) -> Result {
    precondition(labels.count * config.window * config.inputFeatures == windows.count)
    var generator = SeededGenerator(seed: options.seed)
    var parameters = Parameters(config: config, initialisedWith: &generator)
    var gradients = Parameters(config: config)
    var adam = Adam(
      parameterCount: parameters.values.count, learningRate: options.learningRate,
      weightDecay: options.weightDecay)
    let graph = TrainingGraph(config: config, capacity: options.batch)
    let size = config.window * config.inputFeatures
    let byClass: [[Int]] = (0..<config.classes).map { k in labels.indices.filter { labels[$0] == k }
    }
    let present = byClass.indices.filter { !byClass[$0].isEmpty }
    var best = (parameters, 0, -1.0)
    var history: [(Double, Double, Double)] = []
    var batchWindows = [Float](repeating: 0, count: options.batch * size)
    var batchLabels = [Int](repeating: 0, count: options.batch)
    let batches = max(1, options.windowsPerEpoch / options.batch)
    var stale = 0
    // Class choice by weight (cumulative shares over the classes present).
    let weights = present.map { options.classWeights?[$0] ?? 1 }
    let total = weights.reduce(0, +)
    var cumulative: [Double] = []
    for weight in weights { cumulative.append((cumulative.last ?? 0) + weight / total) }
    func draw(_ generator: inout SeededGenerator) -> Int {
      let u = generator.unit()
      return present[cumulative.firstIndex { u < $0 } ?? present.count - 1]
    }
    for epoch in 0..<options.epochs {
      // Cosine decay from the learning rate to a twentieth of it.
      let phase = Float(epoch) / Float(max(options.epochs - 1, 1))
      adam.learningRate =
        options.learningRate * (0.05 + 0.95 * 0.5 * (1 + Float(cos(Double.pi * Double(phase)))))
      var lossSum = 0.0
      var correct = 0
      for b in 0..<batches {
        for slot in 0..<options.batch {
          let members = byClass[draw(&generator)]
          let index = members[Int(generator.next() % UInt64(members.count))]
          batchLabels[slot] = labels[index]
          batchWindows.withUnsafeMutableBufferPointer { target in
            windows.withUnsafeBufferPointer { source in
              (target.baseAddress! + slot * size).update(
                from: source.baseAddress! + index * size, count: size)
            }
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
        validation.map {
          accuracy(graph, parameters: parameters, windows: $0.windows, labels: $0.labels)
        } ?? trainAccuracy
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
    _ graph: TrainingGraph, parameters: Parameters, windows: [Float], labels: [Int]
  ) -> Double {
    guard !labels.isEmpty else { return 0 }
    let size = graph.config.window * graph.config.inputFeatures
    var right = 0
    var start = 0
    while start < labels.count {
      let count = min(graph.capacity, labels.count - start)
      let probabilities = graph.predict(
        windows: windows[start * size..<(start + count) * size], batch: count,
        parameters: parameters)
      for b in 0..<count {
        let row = probabilities[b * graph.config.classes..<(b + 1) * graph.config.classes]
        if row.indices.max(by: { row[$0] < row[$1] })! - b * graph.config.classes
          == labels[start + b]
        {
          right += 1
        }
      }
      start += count
    }
    return Double(right) / Double(labels.count)
  }
}
