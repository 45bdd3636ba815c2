import Linalg

/// One stream's cached activations, or several streams' in lockstep: each frame adds one new
/// column to each layer, and the probabilities equal the window forward pass over the last T
/// frames (within 1e-5).
///
/// Concept: layer l keeps the last (k − 1)·d columns of its input (what its next output column
/// reads) followed by the columns still to be consumed; the last layer's outputs are kept for
/// T_out columns, which the pooling averages. A new stream starts as if it had seen T frames of
/// nobody, which is what the window pass sees in a window zero-padded at its start, so the
/// two agree from the first frame on.
///
/// Implementation: `push` only stores the frame's features. The new columns are computed when
/// probabilities are asked for (or `pendingLimit` frames have waited), all pending frames of a
/// layer in one shifted GEMM over contiguous history, the same kernel as the window pass: asked
/// every 10 frames, as the runtime does, each layer's weights are read once per 10 frames. A
/// history is shifted back to its start only when it runs out of room, not after every
/// catch-up.
///
/// Asked every frame, a step is bound by reading the weights (600 KB in single precision, more
/// than some CPUs' L2 cache), not by the arithmetic. So with Spotter's own kernels
/// (`PackedGEMM`) a single frame takes another path: only the newest tap of each layer is
/// applied now (a third of the weights); tap j's products with a column are needed (k − 1 − j)·d
/// frames later, so they are made that many columns at a time, one GEMM reading the tap's
/// weights once for all of them, and added into running sums of the outputs still to come
/// (`partial`). Per frame that reads about 310 KB of the standard network's weights instead
/// of 600 KB. And where the plan measured it faster (`Planner`), the weights are read in half
/// precision: each rounded to 11 significant bits, arithmetic in single precision, the
/// probabilities within 2e-3 of the window pass (tested); with single precision, within 1e-5.
///
/// Several streams (`streams` B, each with its own histories and sums, a frame each per
/// `push`) share every weight read: each GEMM runs over the B streams' rows, so a step reads
/// the newest taps once for all of them instead of once per stream. For streams that advance
/// together: the people of one camera. Streams that do not (a server's sessions, each with
/// its own state) share the weight reads of their catch-ups through `catchUp(together:)`.
///
/// The per-frame loops hold plain values only (each layer's shape, pointers into its buffers
/// and its weights' `PackedWeights.View`, in buffers made at `init`), so a step costs no
/// reference counting and no array uniqueness checks: at a few microseconds a step, those were
/// a tenth of it.
///
/// Allocates at `init`, and the step's running sums at the first one-frame step (`StepBuffers`),
/// never per frame. Not thread-safe: one state per stream (or per group of streams in
/// lockstep).
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
public final class StreamState {
  public let classifier: Classifier
  /// B: the streams this state steps together (1 unless made with more).
  public let streams: Int
  /// Frames pushed since `init` or `reset()` (per stream).
  @exclusivity(unchecked) public private(set) var framesSeen = 0
  /// Frames pushed but not yet run through the layers.
  @exclusivity(unchecked) public private(set) var pendingFrames = 0
  /// The most frames that wait before the layers catch up on their own.
  public let pendingLimit: Int
  /// The precision of the weights the step reads.
  public let precision: WeightPrecision
  /// L: convolution layers.
  private let layerCount: Int
  /// K: classes; C: pooled channels.
  private let classes: Int
  private let pooledChannels: Int
  /// Layer l's input history (l < L); the last one (L) holds the pooled columns.
  private let histories: UnsafeMutablePointer<History>
  /// Each layer's shape, buffers and progress.
  private let layers: UnsafeMutablePointer<Layer>
  /// The weights a catch-up reads, all taps together (L), and a one-frame step reads, tap by
  /// tap (L · `tapSlots`, layer-major), as views of `packed` and `packedTaps`, which own them;
  /// nil for OpenBLAS.
  private let packedViews: UnsafeMutablePointer<PackedWeights.View>?
  private let tapViews: UnsafeMutablePointer<PackedWeights.View>?
  private let tapSlots: Int
  private let packed: [PackedWeights]?
  private let packedTaps: [[PackedWeights]]?
  /// The one-frame step's running sums and scratch, made at its first step.
  @exclusivity(unchecked) private var stepBuffers: StepBuffers?
  /// The floats of each part of `StepBuffers`: every layer's rings (B · Σ `ringStride`), the
  /// products (B · `productStride`), the zero bias (the widest padded row).
  private let ringFloats: Int
  private let productStride: Int
  private let widest: Int
  /// Whether the layers' running sums agree with the histories (a catch-up of several frames
  /// does not keep them).
  @exclusivity(unchecked) private var partialValid = false
  /// Per stream, the pooled average (B, C), and the sum of the pooled columns kept up to date
  /// by one-frame steps (each adds its new column and takes off the one that left), summed
  /// afresh after a catch-up of several frames and every `resumEvery` steps, so rounding
  /// cannot build up.
  private let average: UnsafeMutablePointer<Float>
  private let pooledSum: UnsafeMutablePointer<Float>
  @exclusivity(unchecked) private var stepsSinceSum = Int.max
  private static let resumEvery = 32

  /// A contiguous history of columns per stream: the last `kept` consumed ones, then pending
  /// ones, with room to append before it has to be shifted back. Stream b's columns start
  /// `b · stride` floats after `buffer`; all streams fill alike.
  private struct History {
    let channels: Int
    let kept: Int
    let capacity: Int
    let streams: Int
    /// capacity · channels: from one stream's columns to the next's.
    let stride: Int
    let buffer: UnsafeMutablePointer<Float>
    var filled: Int

    init(kept: Int, room: Int, channels: Int, streams: Int) {
      self.channels = channels
      self.kept = kept
      self.streams = streams
      capacity = kept + room
      stride = capacity * channels
      buffer = .allocate(capacity: streams * stride)
      buffer.initialize(repeating: 0, count: streams * stride)
      filled = kept
    }

    /// Sets every stream's kept context to `value` (zeros when nil) and drops anything
    /// pending.
    mutating func reset(to value: [Float]?) {
      for stream in 0..<streams {
        for column in 0..<kept {
          let target = buffer + stream * stride + column * channels
          if let value {
            target.update(from: value, count: channels)
          } else {
            target.update(repeating: 0, count: channels)
          }
        }
      }
      filled = kept
    }

    /// Room for `count` more columns, keeping the last `keeping` (shifted to the front when
    /// the end is reached).
    mutating func makeRoom(for count: Int, keeping: Int) {
      guard filled + count > capacity else { return }
      precondition(keeping + count <= capacity, "history of \(capacity) columns overflows")
      for stream in 0..<streams {
        let start = buffer + stream * stride
        start.update(from: start + (filled - keeping) * channels, count: keeping * channels)
      }
      filled = keeping
    }

    /// The first stream's column `filled − 1 − age` (stream b's is `b · stride` later).
    func column(age: Int) -> UnsafeMutablePointer<Float> { buffer + (filled - 1 - age) * channels }

    /// Where the first stream's next column goes.
    var end: UnsafeMutablePointer<Float> { buffer + filled * channels }
  }

  /// What only the one-frame step reads, in one allocation made at the first step: a state
  /// caught up several frames at a time (a server's batched sessions, asked every 10 frames)
  /// never needs it, and it is 31 KB of the standard model's state. The running sums start
  /// as zeros and are rebuilt from the histories before a step reads them (`rebuild`).
  private struct StepBuffers {
    /// Every layer's running sums (`Layer.partialOffset`).
    let partial: UnsafeMutablePointer<Float>
    /// Scratch for d rows of a deferred tap's products per stream (`productStride` apart), and
    /// a zero bias for them.
    let products: UnsafeMutablePointer<Float>
    let zeros: UnsafeMutablePointer<Float>
  }

  /// One convolution layer as the step sees it.
  private struct Layer {
    let kernel: Int
    let dilation: Int
    /// (k − 1)·d: the input columns an output column reads besides its newest.
    let reach: Int
    let outputChannels: Int
    /// The padded row width of `partial`: C_out up to whole panels.
    let width: Int
    /// Per stream, the running sums of the next outputs (a ring of k·d rows of `width`, the
    /// streams' rings `ringStride` apart): their bias and the deferred taps' products so far;
    /// this layer's start in `StepBuffers.partial`.
    let partialOffset: Int
    let ringStride: Int
    /// (C_out), and (k, C_in, C_out) for OpenBLAS.
    let bias: UnsafePointer<Float>
    let weight: UnsafePointer<Float>
    /// Columns the layer's input has received (since `reset`, counting its resting ones).
    var received: Int
  }

  /// - Parameters:
  ///   - streams: B, the streams stepped together (a frame each per `push`).
  ///   - pendingLimit: frames that may wait for a catch-up; 32 by default, past the runtime's
  ///     prediction stride of 10.
  ///   - precision: the weights' precision (the plan's by default); half needs the packed
  ///     kernels, and without them OpenBLAS runs in single precision.
  init(
    classifier: Classifier, streams: Int = 1, pendingLimit: Int = 32,
    precision: WeightPrecision? = nil
  ) {
    precondition(pendingLimit >= 1 && streams >= 1)
    self.classifier = classifier
    self.streams = streams
    self.pendingLimit = pendingLimit
    let precision = precision ?? classifier.plan.stream
    let packed = precision == .half ? classifier.halfPackedLayers : classifier.packedLayers
    let packedTaps = precision == .half ? classifier.halfPackedTaps : classifier.packedTaps
    self.packed = packed
    self.packedTaps = packedTaps
    self.precision = packed == nil ? .single : precision
    let config = classifier.config
    let convolutions = config.convolutions
    layerCount = convolutions.count
    classes = config.classes
    pooledChannels = config.pooledChannels
    // Room for the largest catch-up and no more (each column of room is 2.3 KB of the
    // standard model's state, for every stream): a catch-up shifts its histories back at most
    // once, one frame at a time they are shifted back once per `pendingLimit` frames, and a
    // shift copies only the kept columns.
    let room = pendingLimit
    histories = .allocate(capacity: layerCount + 1)
    for (index, layer) in convolutions.enumerated() {
      (histories + index).initialize(
        to: History(
          kept: layer.reach, room: room, channels: config.inputChannels(of: index),
          streams: streams))
    }
    (histories + layerCount).initialize(
      to: History(
        kept: config.pooledFrames, room: room, channels: config.pooledChannels, streams: streams
      ))
    let panel = packed?.first?.panelWidth ?? 1
    layers = .allocate(capacity: layerCount)
    var ringFloats = 0
    for (index, layer) in convolutions.enumerated() {
      let width = (layer.channels + panel - 1) / panel * panel
      let ringStride = layer.kernel * layer.dilation * width
      (layers + index).initialize(
        to: Layer(
          kernel: layer.kernel, dilation: layer.dilation, reach: layer.reach,
          outputChannels: layer.channels, width: width, partialOffset: ringFloats,
          ringStride: ringStride, bias: classifier.convolutionBias(index),
          weight: classifier.convolutionWeight(index), received: 0))
      ringFloats += streams * ringStride
    }
    self.ringFloats = ringFloats
    tapSlots = convolutions.map(\.kernel).max()!
    if let packed, let packedTaps {
      packedViews = .allocate(capacity: layerCount)
      tapViews = .allocate(capacity: layerCount * tapSlots)
      for index in 0..<layerCount {
        (packedViews! + index).initialize(to: packed[index].view)
        for (tap, weights) in packedTaps[index].enumerated() {
          (tapViews! + index * tapSlots + tap).initialize(to: weights.view)
        }
      }
    } else {
      packedViews = nil
      tapViews = nil
    }
    let widest = convolutions.map { ($0.channels + panel - 1) / panel * panel }.max()!
    let deepest = convolutions.map { max($0.dilation, $0.reach) }.max()!
    self.widest = widest
    productStride = deepest * widest
    average = .allocate(capacity: streams * config.pooledChannels)
    average.initialize(repeating: 0, count: streams * config.pooledChannels)
    pooledSum = .allocate(capacity: streams * config.pooledChannels)
    pooledSum.initialize(repeating: 0, count: streams * config.pooledChannels)
    reset()
  }

  deinit {
    for index in 0...layerCount { histories[index].buffer.deallocate() }
    histories.deallocate()
    layers.deallocate()
    packedViews?.deallocate()
    tapViews?.deallocate()
    stepBuffers?.partial.deallocate()
    average.deallocate()
    pooledSum.deallocate()
  }

  /// Back to the start of a stream (of every stream): as if T frames of nobody had been seen.
  public func reset() {
    framesSeen = 0
    pendingFrames = 0
    histories[0].reset(to: nil)
    for index in 1...layerCount {
      histories[index].reset(to: classifier.restingColumns[index - 1])
    }
    for index in 0..<layerCount { layers[index].received = histories[index].kept }
    partialValid = false
    stepsSinceSum = .max
  }

  /// Takes one frame's F features for each stream, (B, F) (all zeros for nobody). Allocates
  /// nothing.
  public func push(_ features: UnsafeBufferPointer<Float>) {
    let channels = histories[0].channels
    precondition(
      features.count == streams * channels,
      "frame has \(features.count) features; the model takes F = \(channels) for each of "
        + "\(streams) stream\(streams == 1 ? "" : "s")")
    histories[0].makeRoom(for: 1, keeping: histories[0].kept + pendingFrames)
    let input = histories[0]
    for stream in 0..<streams {
      (input.end + stream * input.stride).update(
        from: features.baseAddress! + stream * channels, count: channels)
    }
    histories[0].filled += 1
    layers[0].received += 1
    pendingFrames += 1
    framesSeen += 1
    if pendingFrames == pendingLimit { catchUp() }
  }

  /// Runs the pending frames through every layer: M new columns per layer in one shifted GEMM
  /// over every stream, or for a single frame with weights packed tap by tap, `step`.
  private func catchUp() {
    let pending = pendingFrames
    guard pending > 0 else { return }
    if pending == 1, tapViews != nil {
      step()
      pendingFrames = 0
      return
    }
    for index in 0..<layerCount {
      let layer = layers[index]
      let input = histories[index]
      let span = pending + layer.reach
      let (first, end) = prepare(layer: index)
      let output = histories[index + 1]
      if let packedViews {
        PackedGEMM.convolve(
          windows: streams, rows: pending, input: first, inputRowStride: input.channels,
          tapStride: layer.dilation * input.channels, inputWindowStride: input.stride,
          weights: packedViews[index], relu: true, into: end,
          outputRowStride: output.channels, outputWindowStride: output.stride)
      } else {
        for stream in 0..<streams {
          TemporalConvolution.forwardShifted(
            input: SequenceBatch(
              base: first + stream * input.stride, batch: 1, frames: span,
              channels: input.channels, windowStride: span),
            weight: layer.weight, bias: layer.bias, kernel: layer.kernel,
            dilation: layer.dilation,
            output: SequenceBatch(
              base: end + stream * output.stride, batch: 1, frames: pending,
              channels: output.channels, windowStride: span))
        }
      }
      advance(layer: index)
    }
    caughtUp()
  }

  /// Catches up several single-stream states of one model and precision at once: those with
  /// as many frames pending as the first with more than one, layer by layer, one GEMM a layer
  /// over all of them, so each panel of weights is read once for every state, as for streams
  /// in lockstep. The rest catch up on their own when asked for probabilities. Each column is
  /// what the state's own catch-up computes, bit for bit (the same products summed in the same
  /// order). Allocates nothing: up to 64 states a GEMM, their pointers on the stack.
  public static func catchUp(together states: [StreamState]) {
    guard let lead = states.first(where: { $0.pendingFrames > 1 }), let views = lead.packedViews
    else { return }
    let pending = lead.pendingFrames
    func joins(_ state: StreamState) -> Bool {
      state.pendingFrames == pending && state.streams == 1 && state.classifier === lead.classifier
        && state.precision == lead.precision && state.packedViews != nil
    }
    let limit = 64
    withUnsafeTemporaryAllocation(of: Unmanaged<StreamState>.self, capacity: limit) { group in
      withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: limit) { inputs in
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>?.self, capacity: limit) {
          outputs in
          var next = 0
          while next < states.count {
            var count = 0
            while next < states.count && count < limit {
              if joins(states[next]) {
                group[count] = .passUnretained(states[next])
                count += 1
              }
              next += 1
            }
            guard count > 1 else { continue }
            for index in 0..<lead.layerCount {
              for member in 0..<count {
                let rows = group[member].takeUnretainedValue().prepare(layer: index)
                (inputs[member], outputs[member]) = (UnsafePointer(rows.input), rows.output)
              }
              let input = lead.histories[index]
              PackedGEMM.convolve(
                windows: count, rows: pending, inputs: UnsafePointer(inputs.baseAddress!),
                inputRowStride: input.channels,
                tapStride: lead.layers[index].dilation * input.channels, weights: views[index],
                relu: true, outputs: UnsafePointer(outputs.baseAddress!),
                outputRowStride: lead.histories[index + 1].channels)
              for member in 0..<count { group[member].takeUnretainedValue().advance(layer: index) }
            }
            for member in 0..<count { group[member].takeUnretainedValue().caughtUp() }
          }
        }
      }
    }
  }

  /// Before layer `index` computes the pending columns: room for them in its output; returns
  /// the first stream's first input row (its oldest tap's) and first output row.
  private func prepare(layer index: Int) -> (
    input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>
  ) {
    let input = histories[index]
    histories[index + 1].makeRoom(for: pendingFrames, keeping: histories[index + 1].kept)
    let span = pendingFrames + layers[index].reach
    return (input.buffer + (input.filled - span) * input.channels, histories[index + 1].end)
  }

  /// After layer `index` computed the pending columns: the next layer has them.
  private func advance(layer index: Int) {
    histories[index + 1].filled += pendingFrames
    if index + 1 < layerCount { layers[index + 1].received += pendingFrames }
  }

  /// After every layer computed the pending columns: the running sums no longer agree.
  private func caughtUp() {
    pendingFrames = 0
    partialValid = false
    stepsSinceSum = .max
  }

  /// One new frame through every layer: the newest tap now, on top of the running sum of the
  /// output's bias and older taps; each d-th column, the older taps' products for the last d
  /// columns into the sums of the outputs that will need them.
  private func step() {
    let taps = tapViews!
    let buffers = stepBuffers ?? makeStepBuffers()
    for index in 0..<layerCount {
      let layer = layers[index]
      let input = histories[index]
      let ring = layer.kernel * layer.dilation
      let newest = layer.received - 1  // the column this step adds
      if !partialValid { rebuild(layer: index, newest: newest, buffers) }
      let slot = buffers.partial + layer.partialOffset + newest % ring * layer.width
      histories[index + 1].makeRoom(for: 1, keeping: histories[index + 1].kept)
      let output = histories[index + 1]
      // The streams' newest columns are the rows of one GEMM (a history's streams are a
      // stride apart), so each weight loaded serves every stream from a register.
      PackedGEMM.convolve(
        rows: streams, input: input.column(age: 0), inputRowStride: input.stride, tapStride: 0,
        weights: taps[index * tapSlots + layer.kernel - 1], bias: slot,
        biasRowStride: layer.ringStride, relu: true, into: output.end,
        outputRowStride: output.stride)
      histories[index + 1].filled += 1
      if index + 1 < layerCount { layers[index + 1].received += 1 }
      for stream in 0..<streams {
        (slot + stream * layer.ringStride).update(from: layer.bias, count: layer.outputChannels)
      }
      if index + 1 == layerCount { slide(histories[index + 1]) }
      // Tap j's products are due (k − 1 − j)·d columns later: made in batches that long, each
      // when its last column comes.
      for tap in 0..<(layer.kernel - 1) {
        let lag = (layer.kernel - 1 - tap) * layer.dilation
        guard (newest + 1) % lag == 0 else { continue }
        deferred(
          layer: index, tap: tap, first: newest - lag + 1, count: lag, newest: newest, buffers)
      }
    }
    partialValid = true
  }

  /// The step's buffers, zeroed, at its first step (the one allocation after `init`).
  private func makeStepBuffers() -> StepBuffers {
    let count = ringFloats + streams * productStride + widest
    let partial = UnsafeMutablePointer<Float>.allocate(capacity: count)
    partial.initialize(repeating: 0, count: count)
    let buffers = StepBuffers(
      partial: partial, products: partial + ringFloats,
      zeros: partial + ringFloats + streams * productStride)
    stepBuffers = buffers
    return buffers
  }

  /// The pooled sums after the last layer's step: plus the new column, minus the one that left.
  private func slide(_ pooled: History) {
    guard stepsSinceSum < Self.resumEvery else {
      stepsSinceSum = .max
      return
    }
    stepsSinceSum += 1
    for stream in 0..<streams {
      let entering = pooled.column(age: 0) + stream * pooled.stride
      let leaving = pooled.column(age: pooled.kept) + stream * pooled.stride
      let sum = pooledSum + stream * pooled.channels
      for channel in 0..<pooled.channels { sum[channel] += entering[channel] - leaving[channel] }
    }
  }

  /// Adds tap `tap`'s products with input columns first ..< first + count (the newest being
  /// `newest`) into the running sums of the outputs they feed, (k − 1 − tap)·d columns later.
  private func deferred(
    layer index: Int, tap: Int, first: Int, count: Int, newest: Int, _ buffers: StepBuffers
  ) {
    guard count > 0 else { return }
    let layer = layers[index]
    let input = histories[index]
    let width = layer.width
    let ring = layer.kernel * layer.dilation
    let lag = (layer.kernel - 1 - tap) * layer.dilation
    let partial = buffers.partial + layer.partialOffset
    PackedGEMM.convolve(
      windows: streams, rows: count, input: input.column(age: newest - first),
      inputRowStride: input.channels, tapStride: 0, inputWindowStride: input.stride,
      weights: tapViews![index * tapSlots + tap], bias: buffers.zeros, relu: false,
      into: buffers.products, outputRowStride: width, outputWindowStride: productStride)
    for stream in 0..<streams {
      for row in 0..<count {
        let sum = partial + stream * layer.ringStride + (first + row + lag) % ring * width
        let product = buffers.products + stream * productStride + row * width
        for channel in 0..<layer.outputChannels { sum[channel] += product[channel] }
      }
    }
  }

  /// Makes layer `index`'s running sums agree with its history, before column `newest` is
  /// added: the bias for every output still to come, plus the older taps' products of the
  /// columns of every whole batch of d before `newest`.
  private func rebuild(layer index: Int, newest: Int, _ buffers: StepBuffers) {
    let layer = layers[index]
    let (k, d) = (layer.kernel, layer.dilation)
    let partial = buffers.partial + layer.partialOffset
    for stream in 0..<streams {
      for row in 0..<(k * d) {
        (partial + stream * layer.ringStride + row * layer.width).update(
          from: layer.bias, count: layer.outputChannels)
      }
    }
    for tap in 0..<(k - 1) {
      let lag = (k - 1 - tap) * d
      let batched = newest / lag * lag  // the columns before this are in whole batches
      deferred(
        layer: index, tap: tap, first: newest - lag, count: batched - newest + lag, newest: newest,
        buffers)
    }
  }

  /// The probabilities over the model's labels for each stream's last T frames, (B, K), after
  /// catching up on pending frames. Allocates nothing.
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    precondition(
      output.count == streams * classes,
      "probabilities need B·K = \(streams * classes) floats (K = \(classes))")
    catchUp()
    let pooled = histories[layerCount]
    if stepsSinceSum > Self.resumEvery {
      for stream in 0..<streams {
        let sum = pooledSum + stream * pooled.channels
        let columns = SequenceBatch(
          base: pooled.column(age: pooled.kept - 1) + stream * pooled.stride, batch: 1,
          frames: pooled.kept, channels: pooled.channels, windowStride: pooled.kept)
        Head.averagePool(columns, into: sum)
        for channel in 0..<pooled.channels { sum[channel] *= Float(pooled.kept) }
      }
      stepsSinceSum = 0
    }
    let scale = 1 / Float(pooled.kept)
    for index in 0..<(streams * pooled.channels) { average[index] = pooledSum[index] * scale }
    Head.linear(
      pooled: UnsafePointer(average), batch: streams, channels: pooledChannels,
      weight: classifier.linearWeight, blocks: classifier.linearBlocks,
      bias: classifier.linearBias, classes: classes,
      logits: output.baseAddress!)
    Head.softmax(
      output.baseAddress!, batch: streams, classes: classes, temperature: classifier.temperature)
  }
}

extension StreamState {
  /// The probabilities as a new array, (B, K). Allocates: for tools and tests, not the live
  /// path.
  public func probabilities() -> [Float] {
    var output = [Float](repeating: 0, count: streams * classifier.config.classes)
    output.withUnsafeMutableBufferPointer { probabilities(into: $0) }
    return output
  }
}
