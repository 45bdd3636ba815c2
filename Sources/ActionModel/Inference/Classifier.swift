import Linalg
import Poses
import Synchronization

/// The trained network, immutable and shared: any number of threads and sessions predict with
/// one `Classifier`, each with its own `Workspace` or `StreamState`.
///
/// It owns its weights in one fixed buffer that nothing writes after `init`, which is what
/// makes it safe to share (`@unchecked Sendable`).
public final class Classifier: @unchecked Sendable {
  public let metadata: ModelMetadata
  public var config: NetworkConfig { metadata.architecture }
  public var labels: [String] { metadata.labels }
  /// What the logits are divided by before the softmax (`ModelMetadata.temperature`).
  let temperature: Float
  /// For a stream of frames normalised to their own box: the power its probabilities are
  /// raised to (and normalised) on top of `temperature`'s softmax, the ratio of the two
  /// temperatures (`ModelMetadata.normalisedFramesTemperature`); nil without one.
  public let normalisedFramesPower: Float?
  private let weights: UnsafeMutableBufferPointer<Float>
  private let layout: ParameterLayout
  /// Each layer's output when every input frame is zero (nobody): constant over time, so a
  /// stream can start exactly as a window zero-padded at its start.
  let restingColumns: [[Float]]
  /// Each three-tap layer's Winograd form (nil for other kernels).
  let winogradLayers: [WinogradLayer?]
  /// Each three-tap layer's F(4, 3) form (nil for other kernels, or without Spotter's kernels).
  let winograd4Layers: [Winograd4Layer?]
  /// Each layer's weights and bias packed for Spotter's own kernels, in single and in half
  /// precision (nil on CPUs without them: OpenBLAS does all the work there).
  let packedLayers: [PackedWeights]?
  let halfPackedLayers: [PackedWeights]?
  /// The same, tap by tap and without bias, for the streaming step of one frame.
  let packedTaps: [[PackedWeights]]?
  let halfPackedTaps: [[PackedWeights]]?
  /// The linear layer's weights in whole blocks of classes, for a few rows' logits.
  let linearBlocks: BlockedLinearWeights
  /// Zero frames the window forward puts ahead of each window (`leadFrames(for:)`).
  let leadFrames: Int
  /// The plan, made on first use (`plan`).
  private let madePlan = Mutex<ExecutionPlan?>(nil)

  /// - Precondition: `parameters` matches `metadata.architecture` (the weights loader checks
  ///   files before they get here).
  public init(metadata: ModelMetadata, parameters: Parameters) {
    precondition(
      parameters.config == metadata.architecture, "parameters are for another architecture")
    precondition(
      metadata.labels.count == metadata.architecture.classes, "labels do not match classes")
    self.metadata = metadata
    temperature = Float(metadata.temperature ?? 1)
    normalisedFramesPower = metadata.normalisedFramesTemperature.map {
      Float((metadata.temperature ?? 1) / $0)
    }
    weights = .allocate(capacity: parameters.values.count)
    _ = weights.initialize(from: parameters.values)
    layout = parameters.layout
    let base = UnsafePointer(weights.baseAddress!)
    let config = metadata.architecture
    let lead = Self.leadFrames(for: config)
    leadFrames = lead
    winogradLayers = Self.threeTap(config, layout, base, lead: lead) {
      WinogradLayer(
        weight: $0, inputChannels: $1, outputChannels: $2, dilation: $3, inputFrames: $4)
    }
    winograd4Layers = Self.threeTap(config, layout, base, lead: lead) {
      Winograd4Layer(
        weight: $0, inputChannels: $1, outputChannels: $2, dilation: $3, inputFrames: $4)
    }
    let packs = { [layout] (precision: WeightPrecision) -> [PackedWeights]? in
      guard InstructionSet.available != .none else { return nil }
      return config.convolutions.enumerated().map { index, layer in
        PackedWeights(
          base + layout.convolutions[index].weight.lowerBound,
          bias: base + layout.convolutions[index].bias.lowerBound, taps: layer.kernel,
          rows: config.inputChannels(of: index), columns: layer.channels, precision: precision)
      }
    }
    packedLayers = packs(.single)
    halfPackedLayers = packs(.half)
    let tapPacks = { [layout] (precision: WeightPrecision) -> [[PackedWeights]]? in
      guard InstructionSet.available != .none else { return nil }
      return config.convolutions.enumerated().map { index, layer in
        let rows = config.inputChannels(of: index)
        return (0..<layer.kernel).map { tap in
          PackedWeights(
            base + layout.convolutions[index].weight.lowerBound + tap * rows * layer.channels,
            bias: nil, taps: 1, rows: rows, columns: layer.channels, precision: precision)
        }
      }
    }
    packedTaps = tapPacks(.single)
    halfPackedTaps = tapPacks(.half)
    linearBlocks = BlockedLinearWeights(
      base + layout.linear.weight.lowerBound, channels: config.pooledChannels,
      classes: config.classes)
    restingColumns = Self.restingColumns(
      config: metadata.architecture, weights: UnsafePointer(weights.baseAddress!), layout: layout)
  }

  deinit { weights.deallocate() }

  /// How this model runs on this machine: each layer's strategy, the windows per pass and the
  /// streaming step's precision. Made on first use by `Planner` (measured here, or read from
  /// the plan cache, or estimated when `SPOTTER_PLAN=estimate`), then kept.
  public var plan: ExecutionPlan {
    madePlan.withLock { plan in
      if let plan { return plan }
      let made = Planner.plan(for: self)
      plan = made
      return made
    }
  }

  /// Uses `plan` instead of making one (for tests and tools that need a fixed plan). Has no
  /// effect once a plan is in use.
  public func adopt(_ plan: ExecutionPlan) {
    madePlan.withLock { if $0 == nil { $0 = plan } }
  }

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

  /// Frames ahead of the window that make every three-tap layer's output whole Winograd
  /// F(4, 3) tiles (a multiple of 4·d frames): the fewest that do, up to an eighth of the
  /// window, else none. A frame left over past whole tiles is computed directly, by a GEMM of
  /// its own over a few rows that reads all three taps' weights for them. The lead frames are
  /// zeros, and what they add is computed and dropped before pooling, so the probabilities are
  /// the window's (to rounding).
  static func leadFrames(for config: NetworkConfig) -> Int {
    (0...config.window / 8).first { lead in
      config.convolutions.indices.allSatisfy { index in
        let layer = config.convolutions[index]
        return layer.kernel != 3
          || (config.outputFrames(of: index) + lead) % (4 * layer.dilation) == 0
      }
    } ?? 0
  }

  /// Frames into layer `index` in the window forward, lead frames included.
  func inputFrames(ofLayer index: Int) -> Int {
    Self.inputFrames(ofLayer: index, config: config, lead: leadFrames)
  }

  private static func inputFrames(ofLayer index: Int, config: NetworkConfig, lead: Int) -> Int {
    (index == 0 ? config.window : config.outputFrames(of: index - 1)) + lead
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
    let lead = leadFrames
    let input = workspace.activations[0]
    for window in 0..<batch {
      let start = input + window * (lead + frames) * features
      start.update(repeating: 0, count: lead * features)
      (start + lead * features).update(
        from: windows + window * frames * features, count: frames * features)
    }
    var current = SequenceBatch(
      base: input, batch: batch, frames: lead + frames, channels: features,
      windowStride: lead + frames)
    let strategies = batch == 1 ? workspace.single : workspace.batched
    for index in config.convolutions.indices {
      current = forward(
        layer: index, strategy: strategies[index], input: current,
        output: workspace.activations[index + 1], scratch: workspace.columns)
    }
    // The lead frames' outputs come first: pooled are the window's own.
    current = SequenceBatch(
      base: current.base + lead * current.channels, batch: batch, frames: current.frames - lead,
      channels: current.channels, windowStride: current.windowStride)
    Head.averagePool(current, into: workspace.pooled)
    Head.linear(
      pooled: workspace.pooled, batch: batch, channels: config.pooledChannels, weight: linearWeight,
      blocks: linearBlocks, bias: linearBias, classes: config.classes, logits: probabilities)
    Head.softmax(probabilities, batch: batch, classes: config.classes, temperature: temperature)
  }

  /// Each three-tap layer made by `make` from its weight and shape (nil for other kernels).
  private static func threeTap<Layer>(
    _ config: NetworkConfig, _ layout: ParameterLayout, _ base: UnsafePointer<Float>, lead: Int,
    _ make: (UnsafePointer<Float>, _ cin: Int, _ cout: Int, _ d: Int, _ frames: Int) -> Layer?
  ) -> [Layer?] {
    config.convolutions.enumerated().map { index, layer in
      guard layer.kernel == 3 else { return nil }
      return make(
        base + layout.convolutions[index].weight.lowerBound, config.inputChannels(of: index),
        layer.channels, layer.dilation, inputFrames(ofLayer: index, config: config, lead: lead))
    }
  }

  /// Layer `index` on a batch: ReLU(conv(input) + bias) into `output`, by `strategy` (or the
  /// nearest one this layer and CPU allow). Returns the output batch: compact (window stride
  /// T_out), except shifted GEMM, which keeps the input's stride.
  ///
  /// Shapes: input (B, T_in, C_in); output ≥ B·T_in·C_out floats; scratch ≥ the Workspace's.
  func forward(
    layer index: Int, strategy: ConvolutionStrategy, input: SequenceBatch,
    output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
  ) -> SequenceBatch {
    let layer = config.convolutions[index]
    let frames = input.frames - layer.reach
    let strategy = usable(strategy, layer: index)
    let result = SequenceBatch(
      base: output, batch: input.batch, frames: frames, channels: layer.channels,
      windowStride: strategy == .shiftedGEMM ? input.windowStride : frames)
    switch strategy {
    case .winograd, .winogradPacked:
      winogradLayers[index]!.forward(
        input: input, weight: convolutionWeight(index), bias: convolutionBias(index),
        scratch: scratch, output: result,
        packed: strategy == .winogradPacked ? packedLayers![index] : nil)
    case .winograd4Packed:
      winograd4Layers[index]!.forward(
        input: input, bias: convolutionBias(index), scratch: scratch, output: result,
        packed: packedLayers![index])
    case .shiftedGEMM:
      TemporalConvolution.forwardShifted(
        input: input, weight: convolutionWeight(index), bias: convolutionBias(index),
        kernel: layer.kernel, dilation: layer.dilation, output: result)
    case .im2col:
      TemporalConvolution.forwardIm2col(
        input: input, weight: convolutionWeight(index), bias: convolutionBias(index),
        kernel: layer.kernel, dilation: layer.dilation, columns: scratch, output: result)
    case .packed:
      TemporalConvolution.forwardPacked(
        input: input, weights: packedLayers![index], dilation: layer.dilation, output: result)
    }
    return result
  }

  /// `strategy`, or the nearest that can run: no Winograd on a layer without three taps, no
  /// packed kernels on a CPU without them (shifted GEMM when neither is left).
  func usable(_ strategy: ConvolutionStrategy, layer index: Int) -> ConvolutionStrategy {
    switch strategy {
    case .winograd where winogradLayers[index] == nil: .shiftedGEMM
    case .packed where packedLayers == nil: .shiftedGEMM
    case .winogradPacked where winogradLayers[index] == nil: usable(.packed, layer: index)
    case .winogradPacked where packedLayers == nil: .winograd
    case .winograd4Packed where winograd4Layers[index] == nil || packedLayers == nil:
      usable(.winogradPacked, layer: index)
    default: strategy
    }
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

  /// A fresh per-stream state for this model, its step reading weights in `precision` (the
  /// plan's unless given); with `streams` above 1, the state of that many streams stepped in
  /// lockstep, sharing each weight read (`StreamState`).
  public func makeStream(streams: Int = 1, precision: WeightPrecision? = nil) -> StreamState {
    StreamState(classifier: self, streams: streams, precision: precision)
  }

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
  /// Windows per pass through the network (the plan's, unless given).
  public let tile: Int
  /// Each layer's strategy for a single window, and for a tile of several.
  public let single: [ConvolutionStrategy]
  public let batched: [ConvolutionStrategy]
  /// Layer inputs and outputs, each (B, T, C) at window stride T.
  let activations: [UnsafeMutablePointer<Float>]
  let columns: UnsafeMutablePointer<Float>
  let pooled: UnsafeMutablePointer<Float>

  /// Scratch for `classifier`, run as its `plan` says unless `tile` or `strategy` is given
  /// (`strategy` then serves every layer, batched or not).
  public init(for classifier: Classifier, tile: Int? = nil, strategy: ConvolutionStrategy? = nil) {
    let config = classifier.config
    let layers = config.convolutions.count
    if let strategy {
      single = Array(repeating: strategy, count: layers)
      batched = single
      self.tile = tile ?? 1
    } else {
      let plan = classifier.plan
      single = plan.single
      batched = plan.batched
      self.tile = tile ?? plan.tile
    }
    precondition(self.tile >= 1, "tile \(self.tile) is empty")
    let capacity = self.tile
    let frames = classifier.leadFrames + config.window
    var sizes = [capacity * frames * config.inputFeatures]
    var columnSize = 0
    for (index, layer) in config.convolutions.enumerated() {
      sizes.append(capacity * frames * layer.channels)
      columnSize = max(
        columnSize,
        capacity * (classifier.leadFrames + config.outputFrames(of: index)) * layer.kernel
          * config.inputChannels(of: index),
        classifier.winogradLayers[index]?.scratchSize(batch: capacity) ?? 0,
        classifier.winograd4Layers[index]?.scratchSize(batch: capacity) ?? 0)
    }
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
