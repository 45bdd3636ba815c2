import Linalg

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The network's head: global average pooling over time, a linear layer, softmax (public for
/// the trainer, which shares the softmax).
public enum Head {
  /// pooled (B, C) = mean over t of input (B, T, C).
  ///
  /// Shapes: input (B, T, C) at window stride S; pooled (B, C).
  static func averagePool(_ input: SequenceBatch, into pooled: UnsafeMutablePointer<Float>) {
    let channels = input.channels
    let scale = 1 / Float(input.frames)
    for window in 0..<input.batch {
      let out = pooled + window * channels
      out.update(repeating: 0, count: channels)
      for t in 0..<input.frames {
        let row = input.base + (window * input.windowStride + t) * channels
        for c in 0..<channels { out[c] += row[c] }
      }
      for c in 0..<channels { out[c] *= scale }
    }
  }

  /// logits (B, K) = pooled (B, C) · W (C, K) + bias (K).
  ///
  /// A few rows (a stream's prediction: 128 × 13 products) are summed here, 16 classes at a
  /// time in a register, from `blocks` (W with its rows widened to whole blocks): OpenBLAS's
  /// call, with its packing copies, costs more than the products themselves, and a sum kept in
  /// memory waits on its own store once per channel.
  static func linear(
    pooled: UnsafePointer<Float>, batch: Int, channels: Int, weight: UnsafePointer<Float>,
    blocks: BlockedLinearWeights, bias: UnsafePointer<Float>, classes: Int,
    logits: UnsafeMutablePointer<Float>
  ) {
    TemporalConvolution.fillRows(logits, rows: batch, with: bias, channels: classes)
    if batch <= 8 {
      let width = blocks.width
      for row in 0..<batch {
        let input = pooled + row * channels
        let output = logits + row * classes
        for block in stride(from: 0, to: classes, by: BlockedLinearWeights.block) {
          var sum = SIMD16<Float>()
          var weights = UnsafeRawPointer(blocks.values + block)
          for c in 0..<channels {
            sum += input[c] * weights.loadUnaligned(as: SIMD16<Float>.self)
            weights += width * MemoryLayout<Float>.stride
          }
          for k in 0..<min(BlockedLinearWeights.block, classes - block) {
            output[block + k] += sum[k]
          }
        }
      }
      return
    }
    BLAS.gemm(
      MatrixView(pooled, rows: batch, columns: channels),
      MatrixView(weight, rows: channels, columns: classes),
      into: MutableMatrixView(logits, rows: batch, columns: classes), beta: 1)
  }

  /// Softmax of each row of (B, K) of logits divided by `temperature`, in place, stable for
  /// large logits.
  public static func softmax(
    _ rows: UnsafeMutablePointer<Float>, batch: Int, classes: Int, temperature: Float = 1
  ) {
    let scale = 1 / temperature
    for window in 0..<batch {
      let row = rows + window * classes
      var largest = -Float.infinity
      for k in 0..<classes { largest = max(largest, row[k]) }
      var sum: Float = 0
      for k in 0..<classes {
        row[k] = expf((row[k] - largest) * scale)
        sum += row[k]
      }
      let inverse = 1 / sum
      for k in 0..<classes { row[k] *= inverse }
    }
  }
}

/// The linear layer's weights (C, K) with each row widened to whole blocks of 16 classes
/// (zeros past K), so that `Head.linear` loads a block of a row in one read, at any K.
/// Made once with the classifier; immutable.
final class BlockedLinearWeights: @unchecked Sendable {
  static let block = 16
  /// K rounded up to whole blocks: from one channel's row to the next.
  let width: Int
  let values: UnsafeMutablePointer<Float>

  init(_ weight: UnsafePointer<Float>, channels: Int, classes: Int) {
    width = (classes + Self.block - 1) / Self.block * Self.block
    values = .allocate(capacity: channels * width)
    values.initialize(repeating: 0, count: channels * width)
    for c in 0..<channels {
      (values + c * width).update(from: weight + c * classes, count: classes)
    }
  }

  deinit { values.deallocate() }
}
