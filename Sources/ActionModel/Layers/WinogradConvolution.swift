import Linalg

/// Temporal convolution with k = 3 taps by Winograd's minimal filtering F(2, 3): two output
/// frames from four input frames with four multiplications instead of six, so the GEMM work
/// is two thirds of the direct form (Lavin & Gray, "Fast Algorithms for Convolutional Neural
/// Networks", 2016, after Winograd 1980).
///
/// For input frames d0…d3 (d apart) and taps g0, g1, g2, with one GEMM per product over all
/// tiles (rows: tiles, C_in → C_out):
/// ```
/// m1 = (d0 − d2)·g0        m2 = (d1 + d2)·(g0 + g1 + g2)/2
/// m4 = (d1 − d3)·g2        m3 = (d2 − d1)·(g0 − g1 + g2)/2
/// y[t] = m1 + m2 + m3      y[t + d] = m2 − m3 − m4
/// ```
/// With dilation d a tile pairs output frames t and t + d; frames that find no partner are
/// computed directly (im2col, one GEMM). The transformed filters are made once per model.
struct WinogradLayer: Sendable {
  let inputChannels: Int
  let outputChannels: Int
  let dilation: Int
  let outputFrames: Int
  /// Which output frames come in tiles (t and t + d) and which directly.
  let tiling: WinogradTiling
  /// The four transformed filters, each (C_in, C_out), one after another.
  let transformed: [Float]
  /// The same, packed for `PackedGEMM` (nil on CPUs without Spotter's kernels).
  let packedFilters: [PackedWeights]?

  /// Shapes: weight (3, C_in, C_out).
  init(
    weight: UnsafePointer<Float>, inputChannels: Int, outputChannels: Int, dilation: Int,
    inputFrames: Int
  ) {
    self.inputChannels = inputChannels
    self.outputChannels = outputChannels
    self.dilation = dilation
    outputFrames = inputFrames - 2 * dilation
    tiling = WinogradTiling(outputFrames: outputFrames, dilation: dilation, width: 2)
    let size = inputChannels * outputChannels
    var transformed = [Float](repeating: 0, count: 4 * size)
    for index in 0..<size {
      let (g0, g1, g2) = (weight[index], weight[size + index], weight[2 * size + index])
      transformed[index] = g0
      transformed[size + index] = (g0 + g1 + g2) / 2
      transformed[2 * size + index] = (g0 - g1 + g2) / 2
      transformed[3 * size + index] = g2
    }
    self.transformed = transformed
    packedFilters =
      InstructionSet.available == .none
      ? nil : WinogradTiling.pack(transformed, rows: inputChannels, columns: outputChannels)
  }

  /// Floats of scratch this layer needs for `batch` windows.
  func scratchSize(batch: Int) -> Int {
    let tiles = batch * tiling.tileStarts.count
    let rows = batch * tiling.singles.count
    return 4 * tiles * (inputChannels + outputChannels) + rows
      * (3 * inputChannels + outputChannels)
  }

  /// out (B, T_out, C_out) = ReLU(conv(input) + bias), at the output batch's window stride.
  ///
  /// With `packed` (the layer's direct weights and bias, packed), the four products and the
  /// direct frames run on Spotter's own kernels, else on OpenBLAS.
  ///
  /// Shapes: input (B, T_in, C_in) at stride S; weight (3, C_in, C_out) for the direct frames;
  /// bias (C_out); scratch ≥ `scratchSize(batch:)`.
  func forward(
    input: SequenceBatch, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    scratch: UnsafeMutablePointer<Float>, output: SequenceBatch, packed: PackedWeights? = nil
  ) {
    precondition(
      output.frames == outputFrames, "tiled for \(outputFrames) frames, not \(output.frames)")
    let cin = inputChannels
    let cout = outputChannels
    let d = dilation
    let tilesPerWindow = tiling.tileStarts.count
    let tiles = input.batch * tilesPerWindow
    let transformedInputs = scratch  // 4 × (tiles, C_in)
    let products = scratch + 4 * tiles * cin  // 4 × (tiles, C_out)
    // Input transform: U1 = d0 − d2, U2 = d1 + d2, U3 = d2 − d1, U4 = d1 − d3.
    for window in 0..<input.batch {
      for (index, start) in tiling.tileStarts.enumerated() {
        let tile = window * tilesPerWindow + index
        let d0 = input.base + (window * input.windowStride + start) * cin
        let (d1, d2, d3) = (d0 + d * cin, d0 + 2 * d * cin, d0 + 3 * d * cin)
        let u1 = transformedInputs + tile * cin
        if packed != nil {
          PackedGEMM.winogradInput(
            .f23, frames: d0, step: d * cin, channels: cin, into: u1, plane: tiles * cin)
          continue
        }
        let u2 = u1 + tiles * cin
        let u3 = u2 + tiles * cin
        let u4 = u3 + tiles * cin
        for c in 0..<cin {
          u1[c] = d0[c] - d2[c]
          u2[c] = d1[c] + d2[c]
          u3[c] = d2[c] - d1[c]
          u4[c] = d1[c] - d3[c]
        }
      }
    }
    if tiles > 0, packed != nil, let packedFilters {
      for product in 0..<4 {
        PackedGEMM.convolve(
          rows: tiles, input: transformedInputs + product * tiles * cin, inputRowStride: cin,
          tapStride: 0, weights: packedFilters[product], relu: false,
          into: products + product * tiles * cout, outputRowStride: cout)
      }
    } else if tiles > 0 {
      transformed.withUnsafeBufferPointer { filters in
        for product in 0..<4 {
          BLAS.gemm(
            MatrixView(
              UnsafePointer(transformedInputs + product * tiles * cin), rows: tiles, columns: cin),
            MatrixView(filters.baseAddress! + product * cin * cout, rows: cin, columns: cout),
            into: MutableMatrixView(products + product * tiles * cout, rows: tiles, columns: cout))
        }
      }
    }
    // Output transform, bias and ReLU: y[t] = m1 + m2 + m3, y[t + d] = m2 − m3 − m4.
    for window in 0..<input.batch {
      for (index, start) in tiling.tileStarts.enumerated() {
        let tile = window * tilesPerWindow + index
        let m1 = products + tile * cout
        let first = output.base + (window * output.windowStride + start) * cout
        let second = first + d * cout
        if packed != nil {
          PackedGEMM.winogradOutput(
            products: m1, plane: tiles * cout, bias: bias, channels: cout, first: first,
            second: second)
          continue
        }
        let m2 = m1 + tiles * cout
        let m3 = m2 + tiles * cout
        let m4 = m3 + tiles * cout
        for c in 0..<cout {
          first[c] = max(bias[c] + m1[c] + m2[c] + m3[c], 0)
          second[c] = max(bias[c] + m2[c] - m3[c] - m4[c], 0)
        }
      }
    }
    if let packed {
      tiling.convolveSingles(input: input, output: output, weights: packed, dilation: d)
      return
    }
    directFrames(
      input: input, weight: weight, bias: bias, scratch: products + 4 * tiles * cout, output: output
    )
  }

  /// The frames without a partner: gathered into im2col rows, one GEMM, scattered back.
  private func directFrames(
    input: SequenceBatch, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    scratch: UnsafeMutablePointer<Float>, output: SequenceBatch
  ) {
    let rows = input.batch * tiling.singles.count
    guard rows > 0 else { return }
    let cin = inputChannels
    let cout = outputChannels
    let width = 3 * cin
    let columns = scratch
    let results = scratch + rows * width
    for window in 0..<input.batch {
      for (index, t) in tiling.singles.enumerated() {
        let row = columns + (window * tiling.singles.count + index) * width
        for tap in 0..<3 {
          (row + tap * cin).update(
            from: input.base + (window * input.windowStride + t + tap * dilation) * cin, count: cin)
        }
      }
    }
    BLAS.gemm(
      MatrixView(UnsafePointer(columns), rows: rows, columns: width),
      MatrixView(weight, rows: width, columns: cout),
      into: MutableMatrixView(results, rows: rows, columns: cout))
    for window in 0..<input.batch {
      for (index, t) in tiling.singles.enumerated() {
        let source = results + (window * tiling.singles.count + index) * cout
        let target = output.base + (window * output.windowStride + t) * cout
        for c in 0..<cout { target[c] = max(source[c] + bias[c], 0) }
      }
    }
  }
}

/// Which output frames a Winograd layer computes in tiles of `width` frames d apart (t, t + d,
/// …) and which directly: along each residue mod d, whole tiles in order, the few frames left at
/// its end directly (at most width − 1 a residue).
struct WinogradTiling: Sendable {
  /// First output frame of each tile.
  let tileStarts: [Int]
  /// The frames computed directly, in order, and as runs of consecutive frames (start, count):
  /// with packed kernels each run is one call that reads the input in place.
  let singles: [Int]
  let singleRuns: [(start: Int, count: Int)]

  init(outputFrames: Int, dilation: Int, width: Int) {
    var used = [Bool](repeating: false, count: outputFrames)
    var starts: [Int] = []
    var singles: [Int] = []
    var runs: [(start: Int, count: Int)] = []
    for t in 0..<outputFrames where !used[t] {
      let tile = (0..<width).map { t + $0 * dilation }
      if tile.last! < outputFrames && !tile.contains(where: { used[$0] }) {
        starts.append(t)
        for frame in tile { used[frame] = true }
        continue
      }
      used[t] = true
      singles.append(t)
      if let last = runs.last, last.start + last.count == t {
        runs[runs.count - 1].count += 1
      } else {
        runs.append((t, 1))
      }
    }
    tileStarts = starts
    self.singles = singles
    singleRuns = runs
  }

  /// The frames without a tile, every window's, by the packed kernel from the layer's direct
  /// weights and bias (`weights`): one call a run of consecutive frames, reading in place.
  func convolveSingles(
    input: SequenceBatch, output: SequenceBatch, weights: PackedWeights, dilation: Int
  ) {
    let (cin, cout) = (input.channels, output.channels)
    for window in 0..<input.batch {
      for run in singleRuns {
        PackedGEMM.convolve(
          rows: run.count, input: input.base + (window * input.windowStride + run.start) * cin,
          inputRowStride: cin, tapStride: dilation * cin, weights: weights, relu: true,
          into: output.base + (window * output.windowStride + run.start) * cout,
          outputRowStride: cout)
      }
    }
  }

  /// Transformed filters, (C_in, C_out) each one after another, packed one by one for
  /// `PackedGEMM`.
  static func pack(_ filters: [Float], rows: Int, columns: Int) -> [PackedWeights] {
    let size = rows * columns
    return (0..<(filters.count / size)).map { product in
      filters.withUnsafeBufferPointer {
        PackedWeights(
          $0.baseAddress! + product * size, bias: nil, taps: 1, rows: rows, columns: columns)
      }
    }
  }
}
