import ActionModel
import Linalg

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The network's forward pass for training, keeping what the backward pass needs, and the
/// backward pass itself: every layer a plain forward/backward pair, the matrix work in BLAS.
///
/// Convolutions run as im2col + one GEMM over the batch, so each backward step is two GEMMs:
/// dW = Xcolᵀ · dY and dXcol = dY · Wᵀ, then dXcol is scattered back (col2im). Shapes: B
/// batch, T frames, F features, C channels, k taps, K classes. Buffers are allocated once, for
/// `capacity` windows.
public final class TrainingGraph {
  public let config: NetworkConfig
  public let capacity: Int
  /// Per layer: the im2col matrix (B·T_out, k·C_in), the output after ReLU (B·T_out, C_out)
  /// and its gradient.
  private let columns: [UnsafeMutablePointer<Float>]
  private let outputs: [UnsafeMutablePointer<Float>]
  private let dOutputs: [UnsafeMutablePointer<Float>]
  private let input: UnsafeMutablePointer<Float>  // (B, T, F)
  private let pooled: UnsafeMutablePointer<Float>  // (B, C)
  private let dPooled: UnsafeMutablePointer<Float>  // (B, C)
  private let probabilities: UnsafeMutablePointer<Float>  // (B, K)
  private let dLogits: UnsafeMutablePointer<Float>  // (B, K)
  private let dColumns: UnsafeMutablePointer<Float>
  private var allocations: [UnsafeMutablePointer<Float>] = []

  public init(config: NetworkConfig, capacity: Int) {
    self.config = config
    self.capacity = capacity
    var all: [UnsafeMutablePointer<Float>] = []
    func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
      let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
      pointer.initialize(repeating: 0, count: max(count, 1))
      all.append(pointer)
      return pointer
    }
    let layers = config.convolutions.indices
    let columnSizes = layers.map {
      capacity * config.outputFrames(of: $0) * config.convolutions[$0].kernel
        * config.inputChannels(of: $0)
    }
    let outputSizes = layers.map {
      capacity * config.outputFrames(of: $0) * config.convolutions[$0].channels
    }
    columns = columnSizes.map(buffer)
    outputs = outputSizes.map(buffer)
    dOutputs = outputSizes.map(buffer)
    dColumns = buffer(columnSizes.max()!)
    input = buffer(capacity * config.window * config.inputFeatures)
    pooled = buffer(capacity * config.pooledChannels)
    dPooled = buffer(capacity * config.pooledChannels)
    probabilities = buffer(capacity * config.classes)
    dLogits = buffer(capacity * config.classes)
    allocations = all
  }

  deinit { for pointer in allocations { pointer.deallocate() } }

  /// Runs a batch forward and backward: returns the mean cross-entropy loss and the number of
  /// windows classified right, and adds the batch-mean gradient into `gradients`.
  ///
  /// Shapes: windows (B, T, F); labels (B).
  public func step(
    windows: ArraySlice<Float>, labels: ArraySlice<Int>, parameters: Parameters,
    gradients: inout Parameters
  ) -> (loss: Double, correct: Int) {
    let batch = labels.count
    precondition(
      batch >= 1 && batch <= capacity
        && windows.count == batch * config.window * config.inputFeatures)
    parameters.values.withUnsafeBufferPointer {
      forward(windows, batch: batch, values: $0.baseAddress!, parameters: parameters)
    }
    let classes = config.classes
    var loss = 0.0
    var correct = 0
    // Softmax cross-entropy: dLogits = (p − onehot) / B.
    for (b, label) in labels.enumerated() {
      let row = b * classes
      loss -= Double(logf(max(probabilities[row + label], 1e-12)))
      for k in 0..<classes { dLogits[row + k] = probabilities[row + k] / Float(batch) }
      dLogits[row + label] -= 1 / Float(batch)
      if UnsafeBufferPointer(start: probabilities + row, count: classes).indexOfLargest == label {
        correct += 1
      }
    }
    parameters.values.withUnsafeBufferPointer { values in
      gradients.values.withUnsafeMutableBufferPointer { grads in
        backward(
          batch: batch, values: values.baseAddress!, grads: grads.baseAddress!,
          parameters: parameters)
      }
    }
    return (loss / Double(batch), correct)
  }

  /// Probabilities for a batch: the same numbers as `Classifier`, by the training route.
  public func predict(windows: ArraySlice<Float>, batch: Int, parameters: Parameters) -> [Float] {
    parameters.values.withUnsafeBufferPointer {
      forward(windows, batch: batch, values: $0.baseAddress!, parameters: parameters)
    }
    return Array(UnsafeBufferPointer(start: probabilities, count: batch * config.classes))
  }

  private func forward(
    _ windows: ArraySlice<Float>, batch: Int, values: UnsafePointer<Float>, parameters: Parameters
  ) {
    windows.withUnsafeBufferPointer { input.update(from: $0.baseAddress!, count: $0.count) }
    var previous = UnsafePointer(input)
    var frames = config.window
    var channels = config.inputFeatures
    for (index, layer) in config.convolutions.enumerated() {
      let outFrames = config.outputFrames(of: index)
      let width = layer.kernel * channels
      let column = columns[index]
      let out = outputs[index]
      // im2col (B·T_out, k·C_in): row (b, t) holds taps t, t + d, … of window b.
      for b in 0..<batch {
        for t in 0..<outFrames {
          let row = column + (b * outFrames + t) * width
          for tap in 0..<layer.kernel {
            (row + tap * channels).update(
              from: previous + (b * frames + t + tap * layer.dilation) * channels, count: channels)
          }
        }
      }
      let weight = values + parameters.layout.convolutions[index].weight.lowerBound
      let bias = values + parameters.layout.convolutions[index].bias.lowerBound
      let rows = batch * outFrames
      for row in 0..<rows { (out + row * layer.channels).update(from: bias, count: layer.channels) }
      BLAS.gemm(
        MatrixView(UnsafePointer(column), rows: rows, columns: width),
        MatrixView(weight, rows: width, columns: layer.channels),
        into: MutableMatrixView(out, rows: rows, columns: layer.channels), beta: 1)
      for i in 0..<rows * layer.channels { out[i] = max(out[i], 0) }
      previous = UnsafePointer(out)
      frames = outFrames
      channels = layer.channels
    }
    // Average pooling over time (B, T, C) → (B, C), the linear layer, softmax.
    let pooledChannels = config.pooledChannels
    let pooledFrames = config.pooledFrames
    for b in 0..<batch {
      for c in 0..<pooledChannels {
        var sum: Float = 0
        for t in 0..<pooledFrames {
          sum += previous[(b * pooledFrames + t) * pooledChannels + c]
        }
        pooled[b * pooledChannels + c] = sum / Float(pooledFrames)
      }
    }
    let classes = config.classes
    let weight = values + parameters.layout.linear.weight.lowerBound
    let bias = values + parameters.layout.linear.bias.lowerBound
    for b in 0..<batch { (probabilities + b * classes).update(from: bias, count: classes) }
    BLAS.gemm(
      MatrixView(UnsafePointer(pooled), rows: batch, columns: pooledChannels),
      MatrixView(weight, rows: pooledChannels, columns: classes),
      into: MutableMatrixView(probabilities, rows: batch, columns: classes), beta: 1)
    Head.softmax(probabilities, batch: batch, classes: classes)
  }

  private func backward(
    batch: Int, values: UnsafePointer<Float>, grads: UnsafeMutablePointer<Float>,
    parameters: Parameters
  ) {
    let classes = config.classes
    let channels = config.pooledChannels
    let layers = config.convolutions.count
    // Linear: dW (C, K) += pooledᵀ · dLogits; db += Σ_b dLogits; dPooled = dLogits · Wᵀ.
    let weight = values + parameters.layout.linear.weight.lowerBound
    BLAS.gemm(
      MatrixView(UnsafePointer(pooled), rows: batch, columns: channels), transposeA: true,
      MatrixView(UnsafePointer(dLogits), rows: batch, columns: classes),
      into: MutableMatrixView(
        grads + parameters.layout.linear.weight.lowerBound, rows: channels, columns: classes),
      beta: 1)
    let dBias = grads + parameters.layout.linear.bias.lowerBound
    for b in 0..<batch { for k in 0..<classes { dBias[k] += dLogits[b * classes + k] } }
    BLAS.gemm(
      MatrixView(UnsafePointer(dLogits), rows: batch, columns: classes),
      MatrixView(weight, rows: channels, columns: classes), transposeB: true,
      into: MutableMatrixView(dPooled, rows: batch, columns: channels))
    // Pooling: each of the last layer's T_out columns gets dPooled / T_out.
    let frames = config.pooledFrames
    for b in 0..<batch {
      for t in 0..<frames {
        for c in 0..<channels {
          dOutputs[layers - 1][(b * frames + t) * channels + c] =
            dPooled[b * channels + c] / Float(frames)
        }
      }
    }
    for index in stride(from: layers - 1, through: 0, by: -1) {
      let layer = config.convolutions[index]
      let outFrames = config.outputFrames(of: index)
      let inFrames = index == 0 ? config.window : config.outputFrames(of: index - 1)
      let cin = config.inputChannels(of: index)
      let cout = layer.channels
      let width = layer.kernel * cin
      let rows = batch * outFrames
      let dy = dOutputs[index]
      let y = outputs[index]
      // ReLU: no gradient where the output was clipped to 0.
      for i in 0..<rows * cout where y[i] <= 0 { dy[i] = 0 }
      let biasStart = parameters.layout.convolutions[index].bias.lowerBound
      for row in 0..<rows { for c in 0..<cout { grads[biasStart + c] += dy[row * cout + c] } }
      let weightStart = parameters.layout.convolutions[index].weight.lowerBound
      BLAS.gemm(
        MatrixView(UnsafePointer(columns[index]), rows: rows, columns: width), transposeA: true,
        MatrixView(UnsafePointer(dy), rows: rows, columns: cout),
        into: MutableMatrixView(grads + weightStart, rows: width, columns: cout), beta: 1)
      guard index > 0 else { break }
      BLAS.gemm(
        MatrixView(UnsafePointer(dy), rows: rows, columns: cout),
        MatrixView(values + weightStart, rows: width, columns: cout),
        transposeB: true, into: MutableMatrixView(dColumns, rows: rows, columns: width))
      // col2im: each tap's slice goes back to the input frame it came from.
      let dx = dOutputs[index - 1]
      dx.update(repeating: 0, count: batch * inFrames * cin)
      for b in 0..<batch {
        for t in 0..<outFrames {
          let row = dColumns + (b * outFrames + t) * width
          for tap in 0..<layer.kernel {
            let target = dx + (b * inFrames + t + tap * layer.dilation) * cin
            for c in 0..<cin { target[c] += row[tap * cin + c] }
          }
        }
      }
    }
  }
}
