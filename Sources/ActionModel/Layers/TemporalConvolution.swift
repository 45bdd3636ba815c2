import Linalg

/// A batch of sequences in one buffer: B windows of `frames` valid rows × `channels`, each
/// window starting `windowStride` rows after the previous one (row-major, rows contiguous).
struct SequenceBatch {
  let base: UnsafeMutablePointer<Float>
  let batch: Int
  let frames: Int
  let channels: Int
  let windowStride: Int

  /// Rows from the first window's start to the last window's last valid row.
  var spannedRows: Int { (batch - 1) * windowStride + frames }
}

/// How a convolution turns into GEMM work. Both give the same numbers (to float rounding).
///
/// Measured with `spotter-bench` (release, 1 OpenBLAS thread, the standard network, a 2-core
/// Cooper Lake machine, sgemm peak 100 GFLOP/s): see `ConvolutionStrategy.default`.
public enum ConvolutionStrategy: String, CaseIterable, Sendable {
  /// k GEMMs per layer over the whole batch, each reading the input shifted by j·d rows. No
  /// copies, but K = C_in per GEMM, and rows between windows are computed and thrown away.
  case shiftedGEMM = "shifted"
  /// Gathers each output row's k taps into one (k·C_in) row, then one GEMM. Copies the input
  /// k times, but the GEMM has K = k·C_in and no wasted rows.
  case im2col
  /// Winograd F(2, 3) for three-tap layers (two thirds of the GEMM work; see
  /// `WinogradLayer`), shifted GEMM for any other kernel.
  case winograd
}

/// Temporal convolution with dilation and no padding, bias and ReLU (batch norm folded in).
enum TemporalConvolution {
  /// out (B, T_out, C_out) = ReLU(bias + Σ_j in[t + j·d] · W_j), shifted-GEMM form.
  ///
  /// Shapes: input (B, T_in, C_in) at window stride S; weight (k, C_in, C_out); bias (C_out);
  /// output (B, T_out, C_out) at the same stride S, T_out = T_in − (k − 1)·d.
  static func forwardShifted(
    input: SequenceBatch, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    kernel: Int, dilation: Int, output: SequenceBatch
  ) {
    let cin = input.channels
    let cout = output.channels
    precondition(
      output.frames == input.frames - (kernel - 1) * dilation
        && output.windowStride == input.windowStride && output.batch == input.batch)
    let rows = output.spannedRows  // every row of every window up to the last valid one
    fillRows(output.base, rows: rows, with: bias, channels: cout)
    let target = MutableMatrixView(output.base, rows: rows, columns: cout)
    for tap in 0..<kernel {
      BLAS.gemm(
        MatrixView(UnsafePointer(input.base + tap * dilation * cin), rows: rows, columns: cin),
        MatrixView(weight + tap * cin * cout, rows: cin, columns: cout),
        into: target, beta: 1)
    }
    relu(output.base, count: rows * cout)
  }

  /// The same convolution in im2col form; the output is compact (window stride T_out).
  ///
  /// Shapes: columns scratch ≥ (B·T_out, k·C_in).
  static func forwardIm2col(
    input: SequenceBatch, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    kernel: Int, dilation: Int, columns: UnsafeMutablePointer<Float>, output: SequenceBatch
  ) {
    let cin = input.channels
    let cout = output.channels
    let frames = output.frames
    precondition(
      frames == input.frames - (kernel - 1) * dilation && output.windowStride == frames
        && output.batch == input.batch)
    let width = kernel * cin
    for window in 0..<input.batch {
      for t in 0..<frames {
        let row = columns + (window * frames + t) * width
        for tap in 0..<kernel {
          (row + tap * cin).update(
            from: input.base + (window * input.windowStride + t + tap * dilation) * cin, count: cin)
        }
      }
    }
    let rows = input.batch * frames
    fillRows(output.base, rows: rows, with: bias, channels: cout)
    BLAS.gemm(
      MatrixView(UnsafePointer(columns), rows: rows, columns: width),
      MatrixView(weight, rows: width, columns: cout),
      into: MutableMatrixView(output.base, rows: rows, columns: cout), beta: 1)
    relu(output.base, count: rows * cout)
  }

  static func fillRows(
    _ base: UnsafeMutablePointer<Float>, rows: Int, with bias: UnsafePointer<Float>, channels: Int
  ) {
    for row in 0..<rows { (base + row * channels).update(from: bias, count: channels) }
  }

  /// max(x, 0) in place, branch-free: on real activations the sign of each value is a coin
  /// toss, and a branch here mispredicted often enough to cost a third of the forward pass.
  static func relu(_ base: UnsafeMutablePointer<Float>, count: Int) {
    for index in 0..<count { base[index] = max(base[index], 0) }
  }
}

extension ConvolutionStrategy {
  /// Winograd F(2, 3), one window at a time (`Workspace.defaultTile` = 1), chosen by measurement.
  ///
  /// `spotter-bench`, release, 1 OpenBLAS thread (0.3.21, Cooper Lake kernels, large-sgemm
  /// peak 104 GFLOP/s), standard network (0.15 M parameters, 13.3 MFLOP a window by the direct
  /// count), 2026-11-30; GFLOP/s are direct-count FLOPs over time:
  ///
  /// | path                          | per window | GFLOP/s |
  /// | ----------------------------- | ---------- | ------- |
  /// | batch 1, winograd             |  99 µs     | 134     |
  /// | batch 1, shifted              | 128 µs     | 104     |
  /// | batch 1, im2col               | 156 µs     |  85     |
  /// | batch 64, winograd, tile 1    | 104 µs     | 128     |
  /// | batch 64, winograd, tile 8    | 106 µs     | 125     |
  /// | batch 64, shifted, tile 1     | 124 µs     | 107     |
  /// | batch 64, shifted, tile 8     | 176 µs     |  75     |
  /// | batch 64, im2col, tile 16     | 138 µs     |  96     |
  ///
  /// Every GEMM here runs in OpenBLAS's small-matrix kernels at the large-sgemm peak, so what
  /// wins is less GEMM work: Winograd does two thirds of it. Stacking windows into bigger GEMMs
  /// adds thrown-away rows (shifted) or copies (im2col) and leaves the L2 cache, so batches go
  /// window by window; the other paths stay for machines where they win (`spotter-bench`
  /// measures them all).
  public static let `default` = ConvolutionStrategy.winograd
}
