import ActionModel
import Randomness
import TestSupport
import Testing

@testable import Training

@Suite struct TrainingTests {
  static let config = NetworkConfig(
    inputFeatures: 5, window: 14,
    convolutions: [
      .init(kernel: 3, dilation: 1, channels: 4), .init(kernel: 2, dilation: 3, channels: 3),
      .init(kernel: 3, dilation: 2, channels: 4),
    ],
    classes: 3)

  static func data(_ batch: Int, seed: UInt64) -> ([Float], [Int]) {
    var generator = SeededGenerator(seed: seed)
    let windows = (0..<batch * config.window * config.inputFeatures).map { _ in
      generator.signedUnit()
    }
    let labels = (0..<batch).map { _ in Int(generator.next() % 3) }
    return (windows, labels)
  }

  static func loss(_ parameters: Parameters, _ windows: [Float], _ labels: [Int]) -> Double {
    let graph = TrainingGraph(config: config, capacity: labels.count)
    var scratch = Parameters(config: config)
    return graph.step(
      windows: windows[...], labels: labels[...], parameters: parameters, gradients: &scratch
    ).loss
  }

  /// Every parameter of every layer: the backward pass against central differences in Double
  /// precision of the loss (the loss itself is computed in Float, so the step is not too small).
  @Test func gradientsMatchFiniteDifferences() {
    var generator = SeededGenerator(seed: 3)
    var parameters = Parameters(config: Self.config, initialisedWith: &generator)
    for layer in parameters.layout.convolutions + [parameters.layout.linear] {
      for i in layer.bias {
        parameters.values[i] = 0.2 * generator.signedUnit()
      }
    }
    let (windows, labels) = Self.data(4, seed: 9)
    var gradients = Parameters(config: Self.config)
    let graph = TrainingGraph(config: Self.config, capacity: 4)
    _ = graph.step(
      windows: windows[...], labels: labels[...], parameters: parameters, gradients: &gradients)
    for (spec, range) in parameters.layout.tensors {
      var worst: Double = 0
      for index in range {
        let h: Float = 2e-3
        var plus = parameters
        plus.values[index] += h
        var minus = parameters
        minus.values[index] -= h
        let numeric =
          (Self.loss(plus, windows, labels) - Self.loss(minus, windows, labels)) / Double(2 * h)
        let analytic = Double(gradients.values[index])
        worst = max(worst, abs(numeric - analytic) / max(1e-2, abs(numeric) + abs(analytic)))
      }
      #expect(worst < 0.05, "\(spec.name): relative error \(worst)")
    }
  }

  @Test func theTrainingForwardPassEqualsTheClassifier() {
    let classifier = Fixtures.randomClassifier(.tiny(classes: 4), seed: 5)
    let graph = TrainingGraph(config: classifier.config, capacity: 3)
    let windows = (0..<3).flatMap {
      Fixtures.randomFrames(60, features: 54, seed: UInt64($0)).flatMap { $0 }
    }
    let trained = graph.predict(windows: windows[...], batch: 3, parameters: classifier.parameters)
    var reference: [Float] = []
    for b in 0..<3 {
      reference += classifier.predict(window: Array(windows[b * 3240..<(b + 1) * 3240]))
    }
    #expect(Approximate.maxDifference(trained, reference) < 1e-5)
  }

  @Test func aShortTrainingLowersTheLossAndLearnsHeldOutWindows() {
    // Three classes told apart by where in the window a bump sits.
    func make(_ count: Int, seed: UInt64) -> ([Float], [Int]) {
      var generator = SeededGenerator(seed: seed)
      var windows: [Float] = []
      var labels: [Int] = []
      for _ in 0..<count {
        let label = Int(generator.next() % 3)
        for t in 0..<Self.config.window {
          for f in 0..<Self.config.inputFeatures {
            let bump: Float = f == label + 1 && (t / 5) == label ? 1.5 : 0
            let noise = 0.5 * generator.signedUnit()
            windows.append(bump + noise)
          }
        }
        labels.append(label)
      }
      return (windows, labels)
    }
    let size = Self.config.window * Self.config.inputFeatures
    let (trainWindows, trainLabels) = make(600, seed: 1)
    let train = WindowArray(windows: trainWindows, labels: trainLabels, size: size)
    let (testWindows, testLabels) = make(200, seed: 2)
    let test = WindowArray(windows: testWindows, labels: testLabels, size: size)
    var options = Trainer.Options()
    options.epochs = 6
    options.windowsPerEpoch = 1200
    options.batch = 32
    options.learningRate = 1e-2
    let result = Trainer.train(
      config: Self.config, data: train, validation: test, options: options)
    #expect(result.history.last!.loss < result.history.first!.loss)
    #expect(result.bestValidationAccuracy > 0.8)  // chance is a third
    // Reproducible: the same seed gives the same weights, bit for bit.
    let again = Trainer.train(
      config: Self.config, data: train, validation: test, options: options)
    #expect(again.parameters.values == result.parameters.values)
  }
}
