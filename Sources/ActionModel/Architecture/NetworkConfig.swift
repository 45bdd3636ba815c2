/// The shape of the temporal network: dilated 1D convolutions over time without padding, each
/// followed by ReLU (batch norm folded in), then global average pooling and a linear layer.
///
/// Without padding, the last layer's columns each see a fixed stretch of past frames, so a
/// stream can compute one new column per layer per frame and equal the window forward pass.
/// Legend for shapes: T frames, F features, C channels, K classes, B batch.
public struct NetworkConfig: Codable, Equatable, Sendable {
  public struct Convolution: Codable, Equatable, Sendable {
    /// Taps per filter.
    public var kernel: Int
    /// Frames between taps.
    public var dilation: Int
    /// Output channels.
    public var channels: Int

    public init(kernel: Int, dilation: Int, channels: Int) {
      self.kernel = kernel
      self.dilation = dilation
      self.channels = channels
    }

    /// Frames a column of this layer spans in its input, minus one: (kernel − 1) · dilation.
    public var reach: Int { (kernel - 1) * dilation }
  }

  /// F: features per input frame.
  public var inputFeatures: Int
  /// T: frames per window.
  public var window: Int
  public var convolutions: [Convolution]
  /// K: output classes.
  public var classes: Int

  public init(inputFeatures: Int, window: Int, convolutions: [Convolution], classes: Int) {
    self.inputFeatures = inputFeatures
    self.window = window
    self.convolutions = convolutions
    self.classes = classes
  }

  /// The shipped architecture: four layers with dilations 1, 2, 4, 8 (a receptive field of 31
  /// frames, about a second), pooled over the remaining 30 columns. About 0.15 M parameters
  /// and 13 MFLOP per window: small enough for a phone, wide enough for 13 labels.
  public static func standard(inputFeatures: Int = 54, window: Int = 60, classes: Int)
    -> NetworkConfig
  {
    dilated(
      inputFeatures: inputFeatures, window: window, kernels: [3, 3, 3, 3],
      channels: [96, 128, 128, 128], classes: classes)
  }

  /// A tiny network for tests: the same structure at a fraction of the width.
  public static func tiny(inputFeatures: Int = 54, window: Int = 60, classes: Int) -> NetworkConfig
  {
    dilated(
      inputFeatures: inputFeatures, window: window, kernels: [3, 3, 2], channels: [8, 12, 16],
      classes: classes)
  }

  /// Layers with these kernels and output channels, and dilations 1, 2, 4, …: each layer's
  /// taps twice as far apart as the layer's before.
  private static func dilated(
    inputFeatures: Int, window: Int, kernels: [Int], channels: [Int], classes: Int
  ) -> NetworkConfig {
    precondition(kernels.count == channels.count, "a kernel and a channel count per layer")
    return NetworkConfig(
      inputFeatures: inputFeatures, window: window,
      convolutions: zip(kernels, channels).enumerated().map { index, layer in
        Convolution(kernel: layer.0, dilation: 1 << index, channels: layer.1)
      },
      classes: classes)
  }

  /// C of layer `index`'s input (F for the first).
  public func inputChannels(of index: Int) -> Int {
    index == 0 ? inputFeatures : convolutions[index - 1].channels
  }

  /// T of layer `index`'s output: the window minus every reach up to and including it.
  public func outputFrames(of index: Int) -> Int {
    window - convolutions[0...index].reduce(0) { $0 + $1.reach }
  }

  /// C of the pooled features that feed the linear layer.
  public var pooledChannels: Int { convolutions.last!.channels }

  /// T of the last convolution: the columns averaged by the pooling.
  public var pooledFrames: Int { outputFrames(of: convolutions.count - 1) }

  /// Frames one output column depends on: 1 + the sum of the reaches.
  public var receptiveField: Int { 1 + convolutions.reduce(0) { $0 + $1.reach } }

  /// What is wrong with this configuration, if anything.
  public var problem: String? {
    if inputFeatures < 1 { return "input_features is \(inputFeatures); expected at least 1" }
    if classes < 2 { return "classes is \(classes); expected at least 2" }
    if convolutions.isEmpty { return "no convolutions; expected at least one" }
    for (index, layer) in convolutions.enumerated() {
      if layer.kernel < 1 || layer.dilation < 1 || layer.channels < 1 {
        return
          "convolution \(index) has kernel \(layer.kernel), dilation \(layer.dilation), "
          + "channels \(layer.channels); each must be at least 1"
      }
    }
    if pooledFrames < 1 {
      return
        "the convolutions reach \(receptiveField - 1) frames back, which leaves no columns in "
        + "a window of \(window)"
    }
    return nil
  }

  /// The parameter tensors, in file and buffer order, with their shapes.
  public var tensors: [TensorSpec] {
    var specs: [TensorSpec] = []
    for (index, layer) in convolutions.enumerated() {
      // (k, C_in, C_out): tap j's (C_in, C_out) matrix is contiguous, which both the shifted
      // GEMM and the im2col GEMM read directly.
      specs.append(
        TensorSpec(
          name: "conv\(index).weight",
          shape: [layer.kernel, inputChannels(of: index), layer.channels]))
      specs.append(TensorSpec(name: "conv\(index).bias", shape: [layer.channels]))
    }
    specs.append(TensorSpec(name: "linear.weight", shape: [pooledChannels, classes]))
    specs.append(TensorSpec(name: "linear.bias", shape: [classes]))
    return specs
  }

  public var parameterCount: Int { tensors.reduce(0) { $0 + $1.count } }

  /// Multiply-adds × 2 for one window's forward pass.
  public var flopsPerWindow: Int {
    var total = 0
    for (index, layer) in convolutions.enumerated() {
      total +=
        2 * outputFrames(of: index) * layer.kernel * inputChannels(of: index) * layer.channels
    }
    return total + 2 * pooledChannels * classes
  }

  /// Multiply-adds × 2 for one streaming step: one new column per layer, then the head.
  public var flopsPerStreamStep: Int {
    var total = 0
    for (index, layer) in convolutions.enumerated() {
      total += 2 * layer.kernel * inputChannels(of: index) * layer.channels
    }
    return total
  }

  enum CodingKeys: String, CodingKey {
    case inputFeatures = "input_features"
    case window
    case convolutions
    case classes
  }
}

/// A named tensor's shape; its floats sit at `offset` in a parameter buffer.
public struct TensorSpec: Equatable, Sendable {
  public let name: String
  public let shape: [Int]
  public var count: Int { shape.reduce(1, *) }
}
