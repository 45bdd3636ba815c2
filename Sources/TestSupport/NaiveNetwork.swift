import ActionModel
import Foundation
import Randomness

/// The temporal network written as plainly as possible, in Double, straight from its
/// definition: the reference every fast path is checked against.
public enum NaiveNetwork {
  /// out[t][o] = ReLU(b[o] + Σ_j Σ_i in[t + j·d][i] · W[j][i][o]).
  ///
  /// Shapes: input (T_in, C_in); weight (k, C_in, C_out); output (T_in − (k − 1)·d, C_out).
  public static func convolution(
    _ input: [[Double]], weight: ArraySlice<Float>, bias: ArraySlice<Float>, kernel: Int,
    dilation: Int
  ) -> [[Double]] {
    let cin = input[0].count
    let cout = bias.count
    let frames = input.count - (kernel - 1) * dilation
    let w = Array(weight)
    let b = Array(bias)
    return (0..<frames).map { t in
      (0..<cout).map { o in
        var sum = Double(b[o])
        for j in 0..<kernel {
          for i in 0..<cin {
            sum += input[t + j * dilation][i] * Double(w[(j * cin + i) * cout + o])
          }
        }
        return max(sum, 0)
      }
    }
  }

  /// Probabilities for one window (T, F) given as rows of F.
  public static func forward(_ window: [[Float]], parameters: Parameters) -> [Double] {
    let config = parameters.config
    var activations = window.map { $0.map(Double.init) }
    for (index, layer) in config.convolutions.enumerated() {
      activations = convolution(
        activations,
        weight: parameters.convolution(index).weight,
        bias: parameters.convolution(index).bias,
        kernel: layer.kernel, dilation: layer.dilation)
    }
    let channels = config.pooledChannels
    let pooled = (0..<channels).map { c in
      activations.reduce(0) { $0 + $1[c] } / Double(activations.count)
    }
    let w = Array(parameters.linear.weight)
    let b = Array(parameters.linear.bias)
    let logits = (0..<config.classes).map { k in
      (0..<channels).reduce(Double(b[k])) { $0 + pooled[$1] * Double(w[$1 * config.classes + k]) }
    }
    let largest = logits.max()!
    let exps = logits.map { exp($0 - largest) }
    let sum = exps.reduce(0, +)
    return exps.map { $0 / sum }
  }
}

extension Fixtures {
  /// A classifier with seeded random weights and biases (biases too, so ReLUs cut both ways).
  public static func randomClassifier(_ config: NetworkConfig, seed: UInt64) -> Classifier {
    var generator = SeededGenerator(seed: seed)
    var parameters = Parameters(config: config, initialisedWith: &generator)
    for layer in parameters.layout.convolutions + [parameters.layout.linear] {
      for index in layer.bias {
        parameters.values[index] = generator.signedUnit() * 0.3
      }
    }
    let labels = (0..<config.classes).map { "class\($0)" }
    return Classifier(
      metadata: ModelMetadata(
        architecture: config, labels: labels, provenance: .init(command: "test", seed: seed)),
      parameters: parameters)
  }

  /// T frames of F features: random values, with some frames all zero (nobody).
  public static func randomFrames(_ count: Int, features: Int, seed: UInt64, nobodyEvery: Int = 7)
    -> [[Float]]
  {
    var generator = SeededGenerator(seed: seed)
    var frames: [[Float]] = []
    for index in 0..<count {
      var frame = [Float](repeating: 0, count: features)
      if index % nobodyEvery != 3 {
        for f in 0..<features { frame[f] = generator.signedUnit() }
      }
      frames.append(frame)
    }
    return frames
  }

}
