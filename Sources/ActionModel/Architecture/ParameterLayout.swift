/// Where each tensor of a network lies in its one parameter buffer: named views, so code asks
/// for `layout.convolutions[i].weight` instead of counting tensors by position, and the
/// weights file, the classifier, the trainer and the reference network read the same map.
///
/// Order (the file's too): per convolution its weight (k, C_in, C_out) then its bias (C_out);
/// then the linear layer's weight (C, K) and bias (K).
public struct ParameterLayout: Equatable, Sendable {
  public struct Layer: Equatable, Sendable {
    public let weight: Range<Int>
    public let bias: Range<Int>
  }

  public let convolutions: [Layer]
  public let linear: Layer
  /// Every tensor, in buffer order, with its range.
  public let tensors: [(spec: TensorSpec, range: Range<Int>)]
  /// Floats in the whole buffer.
  public var count: Int { linear.bias.upperBound }

  public init(_ config: NetworkConfig) {
    var next = 0
    var tensors: [(spec: TensorSpec, range: Range<Int>)] = []
    for spec in config.tensors {
      tensors.append((spec, next..<next + spec.count))
      next += spec.count
    }
    self.tensors = tensors
    let ranges = tensors.map(\.range)
    convolutions = (0..<config.convolutions.count).map {
      Layer(weight: ranges[2 * $0], bias: ranges[2 * $0 + 1])
    }
    linear = Layer(weight: ranges[ranges.count - 2], bias: ranges[ranges.count - 1])
  }

  /// The range of the tensor named `name` (as in the weights file), if the network has one.
  public func range(of name: String) -> Range<Int>? {
    tensors.first { $0.spec.name == name }?.range
  }

  public static func == (lhs: ParameterLayout, rhs: ParameterLayout) -> Bool {
    lhs.convolutions == rhs.convolutions && lhs.linear == rhs.linear
  }
}
