import Linalg

/// One stream's cached activations: each frame adds one new column to each layer, and the
/// probabilities equal the window forward pass over the last T frames (within 1e-5).
///
/// Concept: layer l keeps the last (k − 1)·d columns of its input (what its next output column
/// reads) followed by the columns still to be consumed; the last layer's outputs are kept for T_out
/// columns, which the pooling averages. A new stream starts as if it had seen T frames of
/// nobody, which is what the window pass sees in a window zero-padded at its start, so the
/// two agree from the first frame on.
///
/// Implementation: `push` only stores the frame's features. The new columns are computed when
/// probabilities are asked for (or `pendingLimit` frames have waited), all pending frames of a
/// layer in one shifted GEMM over contiguous history, the same kernel as the window pass.
/// Asked every frame, that is one GEMV-shaped GEMM per layer; asked every 10 frames, as the
/// runtime does, each layer's weights are read once per 10 frames instead of 10 times, which is
/// what a single stream's step is bound by (the weights, not the arithmetic). After each catch-up
/// every buffer is shifted back so the history starts at column 0.
///
/// On CPUs with Spotter's own kernels (`PackedGEMM`) a catch-up reads each layer's packed
/// weights straight through, eight accumulators wide even for one frame, instead of OpenBLAS
/// packing them for every call; and where the plan says reading them is what a step waits for
/// (caches smaller than the 600 KB of single-precision weights), it reads half-precision
/// copies: half the bytes, each weight rounded to 11 significant bits, arithmetic in single
/// precision. With those the probabilities stay within 2e-3 of the window pass (tested); with
/// single precision, within 1e-5.
///
/// Allocates at `init`, never per frame. Not thread-safe: one state per stream.
public final class StreamState {
  public let classifier: Classifier
  /// Frames pushed since `init` or `reset()`.
  public private(set) var framesSeen = 0
  /// Frames pushed but not yet run through the layers.
  public private(set) var pendingFrames = 0
  /// The most frames that wait before the layers catch up on their own.
  public let pendingLimit: Int
  private let histories: [History]  // layer l's input; the last one holds the pooled columns
  /// The weights the catch-up reads: packed in the plan's precision, or nil for OpenBLAS.
  private let packed: [PackedWeights]?
  /// The precision of the weights the step reads.
  public let precision: WeightPrecision

  /// A contiguous history of columns: `kept` columns of context, then pending ones.
  private final class History {
    let channels: Int
    let kept: Int
    let buffer: UnsafeMutablePointer<Float>
    var filled: Int

    init(kept: Int, pending: Int, channels: Int) {
      self.channels = channels
      self.kept = kept
      buffer = .allocate(capacity: (kept + pending) * channels)
      buffer.initialize(repeating: 0, count: (kept + pending) * channels)
      filled = kept
    }

    deinit { buffer.deallocate() }

    /// Sets the kept context to `value` (zeros when nil) and drops anything pending.
    func reset(to value: [Float]?) {
      for column in 0..<kept {
        if let value {
          (buffer + column * channels).update(from: value, count: channels)
        } else {
          (buffer + column * channels).update(repeating: 0, count: channels)
        }
      }
      filled = kept
    }

    /// Moves the last `kept` columns to the front.
    func compact() {
      guard filled > kept else { return }
      (buffer).update(from: buffer + (filled - kept) * channels, count: kept * channels)
      filled = kept
    }
  }

  /// - Parameters:
  ///   - pendingLimit: frames that may wait for a catch-up; 32 by default, past the runtime's
  ///     prediction stride of 10.
  ///   - precision: the weights' precision (the plan's by default); half needs the packed
  ///     kernels, and without them OpenBLAS runs in single precision.
  init(classifier: Classifier, pendingLimit: Int = 32, precision: WeightPrecision? = nil) {
    precondition(pendingLimit >= 1)
    self.classifier = classifier
    self.pendingLimit = pendingLimit
    let precision = precision ?? classifier.plan.stream
    packed = precision == .half ? classifier.halfPackedLayers : classifier.packedLayers
    self.precision = packed == nil ? .single : precision
    let config = classifier.config
    var histories = config.convolutions.enumerated().map { index, layer in
      History(kept: layer.reach, pending: pendingLimit, channels: config.inputChannels(of: index))
    }
    histories.append(
      History(kept: config.pooledFrames, pending: pendingLimit, channels: config.pooledChannels))
    self.histories = histories
    reset()
  }

  /// Back to the start of a stream: as if T frames of nobody had been seen.
  public func reset() {
    framesSeen = 0
    pendingFrames = 0
    histories[0].reset(to: nil)
    for index in 1..<histories.count {
      histories[index].reset(to: classifier.restingColumns[index - 1])
    }
  }

  /// Takes one frame's F features (all zeros for nobody). Allocates nothing.
  public func push(_ features: UnsafeBufferPointer<Float>) {
    let input = histories[0]
    precondition(
      features.count == input.channels,
      "frame has \(features.count) features, the model takes F = \(input.channels)")
    (input.buffer + input.filled * input.channels).update(
      from: features.baseAddress!, count: input.channels)
    input.filled += 1
    pendingFrames += 1
    framesSeen += 1
    if pendingFrames == pendingLimit { catchUp() }
  }

  /// Runs the pending frames through every layer: M new columns per layer in one shifted GEMM.
  private func catchUp() {
    let pending = pendingFrames
    guard pending > 0 else { return }
    let config = classifier.config
    for (index, layer) in config.convolutions.enumerated() {
      let input = histories[index]
      let output = histories[index + 1]
      let span = pending + layer.reach
      if let packed {
        PackedGEMM.convolve(
          rows: pending, input: input.buffer + (input.filled - span) * input.channels,
          inputRowStride: input.channels, tapStride: layer.dilation * input.channels,
          weights: packed[index], relu: true, into: output.buffer + output.filled * output.channels,
          outputRowStride: output.channels)
        output.filled += pending
        input.compact()
        continue
      }
      TemporalConvolution.forwardShifted(
        input: SequenceBatch(
          base: input.buffer + (input.filled - span) * input.channels, batch: 1, frames: span,
          channels: input.channels, windowStride: span),
        weight: classifier.convolutionWeight(index), bias: classifier.convolutionBias(index),
        kernel: layer.kernel, dilation: layer.dilation,
        output: SequenceBatch(
          base: output.buffer + output.filled * output.channels, batch: 1, frames: pending,
          channels: output.channels, windowStride: span))
      output.filled += pending
      input.compact()
    }
    histories[histories.count - 1].compact()
    pendingFrames = 0
  }

  /// The probabilities over the model's labels for the last T frames (K floats), after
  /// catching up on pending frames. Allocates nothing.
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    let config = classifier.config
    precondition(output.count == config.classes, "probabilities need K = \(config.classes) floats")
    catchUp()
    let pooled = histories[histories.count - 1]
    let columns = SequenceBatch(
      base: pooled.buffer, batch: 1, frames: pooled.kept, channels: pooled.channels,
      windowStride: pooled.kept)
    // The pooled history's pending space holds nothing after a catch-up: average into it.
    let average = pooled.buffer + pooled.kept * pooled.channels
    Head.averagePool(columns, into: average)
    Head.linear(
      pooled: UnsafePointer(average), batch: 1, channels: config.pooledChannels,
      weight: classifier.linearWeight, bias: classifier.linearBias, classes: config.classes,
      logits: output.baseAddress!)
    Head.softmax(output.baseAddress!, batch: 1, classes: config.classes)
  }
}

extension StreamState {
  /// The probabilities as a new array. Allocates: for tools and tests, not the live path.
  public func probabilities() -> [Float] {
    var output = [Float](repeating: 0, count: classifier.config.classes)
    output.withUnsafeMutableBufferPointer { probabilities(into: $0) }
    return output
  }
}
