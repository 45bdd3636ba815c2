import Randomness

/// Every parameter of a network in one float buffer, with named views into it (`layout`).
///
/// One buffer keeps the weights file a straight copy, makes the optimiser one loop, and lets
/// gradients share the same layout (a `Parameters` of the same config).
public struct Parameters: Sendable {
  public let config: NetworkConfig
  /// All parameters, tensor after tensor in `config.tensors` order.
  public var values: [Float]
  /// Where each tensor lies in `values`.
  public let layout: ParameterLayout

  /// All zeros.
  public init(config: NetworkConfig) {
    self.config = config
    layout = ParameterLayout(config)
    values = Array(repeating: 0, count: layout.count)
  }

  /// He-initialised weights for ReLU, uniform in ±√(6 / fan-in), and zero biases, from
  /// `generator`. Uniform rather than normal so that only IEEE-exact operations (a square
  /// root, products) touch the numbers: the same seed gives the same bits on every machine.
  public init(config: NetworkConfig, initialisedWith generator: inout SeededGenerator) {
    self.init(config: config)
    for (spec, range) in layout.tensors where spec.name.hasSuffix(".weight") {
      let fanIn = spec.shape.dropLast().reduce(1, *)
      let limit = Float((6 / Double(fanIn)).squareRoot())
      for index in range { values[index] = generator.signedUnit() * limit }
    }
  }

  /// Layer `index`'s convolution weights (k, C_in, C_out) and bias (C_out).
  public func convolution(_ index: Int) -> (weight: ArraySlice<Float>, bias: ArraySlice<Float>) {
    let layer = layout.convolutions[index]
    return (values[layer.weight], values[layer.bias])
  }

  /// The linear layer's weights (C, K) and bias (K).
  public var linear: (weight: ArraySlice<Float>, bias: ArraySlice<Float>) {
    (values[layout.linear.weight], values[layout.linear.bias])
  }
}
