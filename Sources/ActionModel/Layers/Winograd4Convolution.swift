import Linalg

/// Temporal convolution with k = 3 taps by Winograd's F(4, 3): four output frames from six
/// input frames with six multiplications instead of twelve, so the GEMM work is half the
/// direct form's and three quarters of F(2, 3)'s (`WinogradLayer`), for heavier transforms and
/// a little more rounding (Lavin & Gray 2016, with the points 0, ±1, ±2). Only on Spotter's own
/// kernels, where the planner weighs it against the others layer by layer.
///
/// With dilation d a tile covers output frames t, t + d, t + 2d, t + 3d (input frames t to
/// t + 5d); the frames of each residue mod d left over past whole tiles are computed directly.
/// The transformed filters are made and packed once per model:
/// ```
/// G0 = g0/4     G1 = −(g0 + g1 + g2)/6     G2 = −(g0 − g1 + g2)/6
/// G3 = g0/24 + g1/12 + g2/6     G4 = g0/24 − g1/12 + g2/6     G5 = g2
/// ```
struct Winograd4Layer: Sendable {
  let inputChannels: Int
  let outputChannels: Int
  let dilation: Int
  let outputFrames: Int
  /// Which output frames come in tiles (t, t + d, t + 2d, t + 3d) and which directly.
  let tiling: WinogradTiling
  /// The six transformed filters, each (C_in, C_out), packed.
  let packedFilters: [PackedWeights]

  /// Nil on CPUs without Spotter's kernels. Shapes: weight (3, C_in, C_out).
  init?(
    weight: UnsafePointer<Float>, inputChannels: Int, outputChannels: Int, dilation: Int,
    inputFrames: Int
  ) {
    guard InstructionSet.available != .none else { return nil }
    self.inputChannels = inputChannels
    self.outputChannels = outputChannels
    self.dilation = dilation
    outputFrames = inputFrames - 2 * dilation
    tiling = WinogradTiling(outputFrames: outputFrames, dilation: dilation, width: 4)
    let size = inputChannels * outputChannels
    var transformed = [Float](repeating: 0, count: 6 * size)
    for index in 0..<size {
      let (g0, g1, g2) = (weight[index], weight[size + index], weight[2 * size + index])
      transformed[index] = g0 / 4
      transformed[size + index] = -(g0 + g1 + g2) / 6
      transformed[2 * size + index] = -(g0 - g1 + g2) / 6
      transformed[3 * size + index] = g0 / 24 + g1 / 12 + g2 / 6
      transformed[4 * size + index] = g0 / 24 - g1 / 12 + g2 / 6
      transformed[5 * size + index] = g2
    }
    packedFilters = WinogradTiling.pack(transformed, rows: inputChannels, columns: outputChannels)
  }

  /// Floats of scratch this layer needs for `batch` windows.
  func scratchSize(batch: Int) -> Int {
    6 * batch * tiling.tileStarts.count * (inputChannels + outputChannels)
  }

  /// out (B, T_out, C_out) = ReLU(conv(input) + bias), at the output batch's window stride.
  /// `packed`: the layer's direct weights and bias, for the frames without a tile.
  ///
  /// Shapes: input (B, T_in, C_in) at stride S; bias (C_out); scratch ≥ `scratchSize(batch:)`.
  func forward(
    input: SequenceBatch, bias: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>,
    output: SequenceBatch, packed: PackedWeights
  ) {
    precondition(
      output.frames == outputFrames, "tiled for \(outputFrames) frames, not \(output.frames)")
    let (cin, cout, d) = (inputChannels, outputChannels, dilation)
    let tilesPerWindow = tiling.tileStarts.count
    let tiles = input.batch * tilesPerWindow
    let transformedInputs = scratch  // 6 × (tiles, C_in)
    let products = scratch + 6 * tiles * cin  // 6 × (tiles, C_out)
    for window in 0..<input.batch {
      for (index, start) in tiling.tileStarts.enumerated() {
        PackedGEMM.winogradInput(
          .f43, frames: input.base + (window * input.windowStride + start) * cin, step: d * cin,
          channels: cin, into: transformedInputs + (window * tilesPerWindow + index) * cin,
          plane: tiles * cin)
      }
    }
    if tiles > 0 {
      for product in 0..<6 {
        PackedGEMM.convolve(
          rows: tiles, input: transformedInputs + product * tiles * cin, inputRowStride: cin,
          tapStride: 0, weights: packedFilters[product], relu: false,
          into: products + product * tiles * cout, outputRowStride: cout)
      }
    }
    for window in 0..<input.batch {
      for (index, start) in tiling.tileStarts.enumerated() {
        PackedGEMM.winograd4Output(
          products: products + (window * tilesPerWindow + index) * cout, plane: tiles * cout,
          bias: bias, channels: cout,
          into: output.base + (window * output.windowStride + start) * cout, step: d * cout)
      }
    }
    tiling.convolveSingles(input: input, output: output, weights: packed, dilation: d)
  }
}
