import Poses

/// The trained network, immutable and shared: any number of threads and sessions predict with
/// one `Classifier`, each with its own `Workspace` or `StreamState`.
///
/// It owns its weights in one fixed buffer that nothing writes after `init`, which is what
/// makes it safe to share (`@unchecked Sendable`).
public final class Classifier: @unchecked Sendable {
  public let metadata: ModelMetadata
  public var config: NetworkConfig { metadata.architecture }
  public var labels: [String] { metadata.labels }
  private let weights: UnsafeMutableBufferPointer<Float>
  private let layout: ParameterLayout
  /// Each layer's output when every input frame is zero (nobody): constant over time, so a
  /// stream can start exactly as a window zero-padded at its start.
  let restingColumns: [[Float]]
  /// Each three-tap layer's Winograd form (nil for other kernels).
  let winogradLayers: [WinogradLayer?]

  /// - Precondition: `parameters` matches `metadata.architecture` (the weights loader checks
  ///   files before they get here).
  public init(metadata: ModelMetadata, parameters: Parameters) {
    precondition(
      parameters.config == metadata.architecture, "parameters are for another architecture")
    precondition(
      metadata.labels.count == metadata.architecture.classes, "labels do not match classes")
    self.metadata = metadata
    weights = .allocate(capacity: parameters.values.count)
    _ = weights.initialize(from: parameters.values)
    layout = parameters.layout
    let base = UnsafePointer(weights.baseAddress!)
    let config = metadata.architecture
    winogradLayers = config.convolutions.enumerated().map { [layout] index, layer in
      layer.kernel == 3
        ? WinogradLayer(
          weight: base + layout.convolutions[index].weight.lowerBound,
          inputChannels: config.inputChannels(of: index),
          outputChannels: layer.channels, dilation: layer.dilation,
          inputFrames: index == 0 ? config.window : config.outputFrames(of: index - 1))
        : nil
    }
    restingColumns = Self.restingColumns(
      config: metadata.architecture, weights: UnsafePointer(weights.baseAddress!), layout: layout)
  }

  deinit { weights.deallocate() }

  /// A copy of the parameters, for writing or fine-tuning.
  public var parameters: Parameters {
    var copy = Parameters(config: config)
    copy.values = Array(weights)
    return copy
  }

  /// Layer `layer`'s weights (k, C_in, C_out).
  func convolutionWeight(_ layer: Int) -> UnsafePointer<Float> {
    UnsafePointer(weights.baseAddress! + layout.convolutions[layer].weight.lowerBound)
  }
  /// Layer `layer`'s bias (C_out).
  func convolutionBias(_ layer: Int) -> UnsafePointer<Float> {
    UnsafePointer(weights.baseAddress! + layout.convolutions[layer].bias.lowerBound)
  }
  /// (C, K)
  var linearWeight: UnsafePointer<Float> {
    UnsafePointer(weights.baseAddress! + layout.linear.weight.lowerBound)
  }
  /// (K)
  var linearBias: UnsafePointer<Float> {
    UnsafePointer(weights.baseAddress! + layout.linear.bias.lowerBound)
  }

  /// Probabilities over `labels` for B windows (any B). The windows go through the network
  /// `workspace.tile` at a time, each layer one GEMM (or k) over the tile. Allocates nothing.
  ///
  /// Shapes: windows (B, T, F), oldest frame first; probabilities (B, K).
  public func predict(
    windows: UnsafeBufferPointer<Float>, count batch: Int,
    into probabilities: UnsafeMutableBufferPointer<Float>,
    workspace: Workspace
  ) {
    let frames = config.window
    let features = config.inputFeatures
    let classes = config.classes
    precondition(batch >= 1, "batch \(batch) is empty")
    precondition(
      windows.count == batch * frames * features,
      "windows hold \(windows.count) floats, expected B·T·F = \(batch * frames * features)"
    )
    precondition(
      probabilities.count == batch * classes,
      "probabilities hold \(probabilities.count) floats, expected B·K = \(batch * classes)")
    var first = 0
    while first < batch {
      let count = min(workspace.tile, batch - first)
      predictTile(
        windows.baseAddress! + first * frames * features, count: count,
        into: probabilities.baseAddress! + first * classes, workspace: workspace)
      first += count
    }
  }

  /// One tile of at most `workspace.tile` windows through every layer.
  private func predictTile(
    _ windows: UnsafePointer<Float>, count batch: Int,
    into probabilities: UnsafeMutablePointer<Float>,
    workspace: Workspace
  ) {
    let frames = config.window
    let features = config.inputFeatures
    let input = workspace.activations[0]
    input.update(from: windows, count: batch * frames * features)
    var current = SequenceBatch(
      base: input, batch: batch, frames: frames, channels: features, windowStride: frames)
    for (index, layer) in config.convolutions.enumerated() {
      let frames = config.outputFrames(of: index)
      let stride = workspace.strategy == .im2col ? frames : current.windowStride
      let output = SequenceBatch(
        base: workspace.activations[index + 1], batch: batch, frames: frames,
        channels: layer.channels, windowStride: stride)
      switch workspace.strategy {
      case .winograd where winogradLayers[index] != nil:
        winogradLayers[index]!.forward(
          input: current, weight: convolutionWeight(index), bias: convolutionBias(index),
          scratch: workspace.columns, output: output)
      case .shiftedGEMM, .winograd:
        TemporalConvolution.forwardShifted(
          input: current, weight: convolutionWeight(index), bias: convolutionBias(index),
          kernel: layer.kernel, dilation: layer.dilation, output: output)
      case .im2col:
        TemporalConvolution.forwardIm2col(
          input: current, weight: convolutionWeight(index), bias: convolutionBias(index),
          kernel: layer.kernel, dilation: layer.dilation, columns: workspace.columns, output: output
        )
      }
      current = output
    }
    Head.averagePool(current, into: workspace.pooled)
    Head.linear(
      pooled: workspace.pooled, batch: batch, channels: config.pooledChannels, weight: linearWeight,
      bias: linearBias, classes: config.classes, logits: probabilities)
    Head.softmax(probabilities, batch: batch, classes: config.classes)
  }

  /// Probabilities for one (T, F) window. Allocates: for tools and tests, not the live path.
  public func predict(window: [Float]) -> [Float] {
    let workspace = Workspace(for: self, tile: 1)
    var probabilities = [Float](repeating: 0, count: config.classes)
    window.withUnsafeBufferPointer { windows in
      probabilities.withUnsafeMutableBufferPointer {
        predict(windows: windows, count: 1, into: $0, workspace: workspace)
      }
    }
    return probabilities
  }

  /// A fresh per-stream state for this model.
  public func makeStream() -> StreamState { StreamState(classifier: self) }

  /// Runs a constant column through each layer: the same kernel as every forward pass, on
  /// 1 + (k − 1)·d copies of the previous layer's resting column.
  private static func restingColumns(
    config: NetworkConfig, weights: UnsafePointer<Float>, layout: ParameterLayout
  ) -> [[Float]] {
    var previous = [Float](repeating: 0, count: config.inputFeatures)
    var result: [[Float]] = []
    for (index, layer) in config.convolutions.enumerated() {
      var input = (0...layer.reach).flatMap { _ in previous }
      var column = [Float](repeating: 0, count: layer.channels)
      input.withUnsafeMutableBufferPointer { input in
        column.withUnsafeMutableBufferPointer { output in
          TemporalConvolution.forwardShifted(
            input: SequenceBatch(
              base: input.baseAddress!, batch: 1, frames: layer.reach + 1, channels: previous.count,
              windowStride: layer.reach + 1),
            weight: weights + layout.convolutions[index].weight.lowerBound,
            bias: weights + layout.convolutions[index].bias.lowerBound,
            kernel: layer.kernel, dilation: layer.dilation,
            output: SequenceBatch(
              base: output.baseAddress!, batch: 1, frames: 1, channels: layer.channels,
              windowStride: layer.reach + 1))
        }
      }
      result.append(column)
      previous = column
    }
    return result
  }

}

/// Scratch buffers for `Classifier.predict`: one per thread, allocated once, reused for every
/// batch. Sized for one tile of windows; a larger batch goes through tile by tile.
public final class Workspace {
  /// Windows per pass through the network. See `defaultTile` for why it is small.
  public let tile: Int
  public let strategy: ConvolutionStrategy
  /// Layer inputs and outputs, each (B, T, C) at window stride T.
  let activations: [UnsafeMutablePointer<Float>]
  let columns: UnsafeMutablePointer<Float>
  let pooled: UnsafeMutablePointer<Float>
  private let sizes: [Int]

  /// Windows per pass unless told otherwise: one, measured fastest with OpenBLAS's
  /// small-matrix kernels (see `ConvolutionStrategy.default` for the numbers).
  public static let defaultTile = 1

  public init(
    for classifier: Classifier, tile: Int = Workspace.defaultTile,
    strategy: ConvolutionStrategy = .default
  ) {
    precondition(tile >= 1)
    let config = classifier.config
    self.tile = tile
    let capacity = tile
    self.strategy = strategy
    let frames = config.window
    var sizes = [capacity * frames * config.inputFeatures]
    var columnSize = 0
    for (index, layer) in config.convolutions.enumerated() {
      sizes.append(capacity * frames * layer.channels)
      columnSize = max(
        columnSize,
        capacity * config.outputFrames(of: index) * layer.kernel * config.inputChannels(of: index),
        classifier.winogradLayers[index]?.scratchSize(batch: capacity) ?? 0)
    }
    self.sizes = sizes
    activations = sizes.map { size in
      let buffer = UnsafeMutablePointer<Float>.allocate(capacity: size)
      buffer.initialize(repeating: 0, count: size)
      return buffer
    }
    columns = .allocate(capacity: columnSize)
    columns.initialize(repeating: 0, count: columnSize)
    pooled = .allocate(capacity: capacity * config.pooledChannels)
    pooled.initialize(repeating: 0, count: capacity * config.pooledChannels)
  }

  deinit {
    for buffer in activations { buffer.deallocate() }
    columns.deallocate()
    pooled.deallocate()
  }
}
