import Randomness

/// Every parameter of a network in one float buffer, with named views into it.
///
/// One buffer keeps the weights file a straight copy, makes the optimiser one loop, and lets
/// gradients share the same layout (a `Parameters` of the same config).
public struct Parameters: Sendable {
  public let config: NetworkConfig
  /// All parameters, tensor after tensor in `config.tensors` order.
  public var values: [Float]
  /// Where each tensor starts in `values`.
  public let offsets: [String: Int]

  /// All zeros.
  public init(config: NetworkConfig) {
    self.config = config
    var offsets: [String: Int] = [:]
    var next = 0
    for spec in config.tensors {
      offsets[spec.name] = next
      next += spec.count
    }
    self.offsets = offsets
    values = Array(repeating: 0, count: next)
  }

  /// He-initialised weights for ReLU, uniform in ±√(6 / fan-in), and zero biases, from
  /// `generator`. Uniform rather than normal so that only IEEE-exact operations (a square
  /// root, products) touch the numbers: the same seed gives the same bits on every machine.
  public init(config: NetworkConfig, initialisedWith generator: inout SeededGenerator) {
    self.init(config: config)
    for spec in config.tensors where spec.name.hasSuffix(".weight") {
      let fanIn = spec.shape.dropLast().reduce(1, *)
      let limit = Float((6 / Double(fanIn)).squareRoot())
      let start = offsets[spec.name]!
      for index in start..<start + spec.count { values[index] = generator.signedUnit() * limit }
    }
  }

  /// The range of `values` holding tensor `name`.
  public func range(of name: String) -> Range<Int> {
    guard let start = offsets[name], let spec = config.tensors.first(where: { $0.name == name })
    else {
      preconditionFailure("no tensor '\(name)' in this network")
    }
    return start..<start + spec.count
  }

  /// The convolution weights of layer `index`, (k, C_in, C_out).
  public static func convolutionWeight(_ index: Int) -> String { "conv\(index).weight" }
  public static func convolutionBias(_ index: Int) -> String { "conv\(index).bias" }
  public static let linearWeight = "linear.weight"
  public static let linearBias = "linear.bias"
}
