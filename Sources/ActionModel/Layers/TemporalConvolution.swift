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

/// How a convolution turns into GEMM work. All give the same numbers (to float rounding); which
/// is fastest depends on the CPU, its caches and the layer's shape, so each layer's is chosen
/// by measuring on the machine at hand (`Planner`), never by a table from one machine.
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
  /// Spotter's own kernel (`PackedGEMM`): the k taps read the input rows in place (no copies,
  /// no thrown-away rows), weights packed once per model in panels a register tile streams
  /// through, bias and ReLU applied as the tile is stored, a panel's weights read once for all
  /// the windows of a pass. Needs AVX2 or AVX-512 (else shifted GEMM runs instead).
  case packed
  /// Winograd F(2, 3) with its four products and its direct frames on Spotter's own kernels:
  /// two thirds of the packed kernel's work, plus the transforms (three-tap layers with the
  /// kernels; else `winograd` or `packed`).
  case winogradPacked = "winograd-packed"
  /// Winograd F(4, 3) on Spotter's own kernels (`Winograd4Layer`): half the packed kernel's
  /// GEMM work, for heavier transforms and the frames left over at each residue's end
  /// (three-tap layers with the kernels; else as `winogradPacked`).
  case winograd4Packed = "winograd4-packed"
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

  /// The same convolution by `PackedGEMM`: each window's T_out rows read the input in place.
  ///
  /// Shapes: input (B, T_in, C_in) at any window stride; weights packed (k, C_in, C_out) with
  /// the bias; output (B, T_out, C_out) at its own stride.
  static func forwardPacked(
    input: SequenceBatch, weights: PackedWeights, dilation: Int, output: SequenceBatch
  ) {
    let cin = input.channels
    precondition(
      output.frames == input.frames - (weights.taps - 1) * dilation && cin == weights.rows
        && output.channels == weights.columns && output.batch == input.batch)
    PackedGEMM.convolve(
      windows: input.batch, rows: output.frames, input: input.base, inputRowStride: cin,
      tapStride: dilation * cin, inputWindowStride: input.windowStride * cin, weights: weights,
      relu: true, into: output.base, outputRowStride: output.channels,
      outputWindowStride: output.windowStride * output.channels)
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
