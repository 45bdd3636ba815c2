import Linalg

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The network's head: global average pooling over time, a linear layer, softmax.
enum Head {
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
  /// A few rows (a stream's prediction: 128 × 13 products) are summed here: OpenBLAS's call,
  /// with its packing copies, costs more than the products themselves.
  static func linear(
    pooled: UnsafePointer<Float>, batch: Int, channels: Int, weight: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, classes: Int, logits: UnsafeMutablePointer<Float>
  ) {
    TemporalConvolution.fillRows(logits, rows: batch, with: bias, channels: classes)
    if batch <= 8 {
      for row in 0..<batch {
        let input = pooled + row * channels
        let output = logits + row * classes
        for c in 0..<channels {
          let x = input[c]
          let weights = weight + c * classes
          for k in 0..<classes { output[k] += x * weights[k] }
        }
      }
      return
    }
    BLAS.gemm(
      MatrixView(pooled, rows: batch, columns: channels),
      MatrixView(weight, rows: channels, columns: classes),
      into: MutableMatrixView(logits, rows: batch, columns: classes), beta: 1)
  }

  /// Softmax of each row of (B, K), in place, stable for large logits.
  static func softmax(_ rows: UnsafeMutablePointer<Float>, batch: Int, classes: Int) {
    for window in 0..<batch {
      let row = rows + window * classes
      var largest = -Float.infinity
      for k in 0..<classes { largest = max(largest, row[k]) }
      var sum: Float = 0
      for k in 0..<classes {
        row[k] = expf(row[k] - largest)
        sum += row[k]
      }
      let inverse = 1 / sum
      for k in 0..<classes { row[k] *= inverse }
    }
  }
}
