import COpenBLAS

/// The vector instructions Spotter's own kernels (`PackedGEMM`) use on this CPU.
public enum InstructionSet: Int32, Sendable, CaseIterable, CustomStringConvertible {
  /// No kernels of Spotter's own: OpenBLAS does all the work.
  case none = 0
  /// 256-bit AVX2 with FMA and F16C (Haswell, Zen and later).
  case avx2 = 1
  /// 512-bit AVX-512F (Skylake-SP, Ice Lake, Sapphire Rapids, Zen 4 and later).
  case avx512 = 2

  /// The widest one this CPU and OS support (`spk_instruction_set`), read once.
  public static let available = InstructionSet(rawValue: spk_instruction_set()) ?? .none

  /// Whether this CPU runs kernels of `self` (every set up to `available`).
  public var isSupported: Bool { rawValue <= Self.available.rawValue }

  public var description: String {
    switch self {
    case .none: "none"
    case .avx2: "AVX2"
    case .avx512: "AVX-512"
    }
  }
}

/// How `PackedWeights` stores its values. Arithmetic is single precision either way.
public enum WeightPrecision: String, Sendable, CaseIterable {
  /// 4 bytes a weight, exact.
  case single
  /// 2 bytes a weight (IEEE half), widened to float as they are read (F16C / AVX-512F):
  /// half the memory traffic, for work bound by reading weights (a streaming step); each
  /// weight is rounded to 11 significant bits.
  case half
}

/// A Winograd tile for a convolution with three taps: F(2, 3) makes two output frames from four
/// input frames, F(4, 3) four from six.
public enum WinogradTile: Sendable {
  case f23, f43
}

/// Weights (taps, K, N) and a bias (N), packed once for `PackedGEMM` on one instruction set.
///
/// Layout: panels of `panelWidth` columns (two vectors), each holding, tap by tap and row by
/// row, its columns contiguously, zero-padded past N, so a kernel streams one panel straight
/// through memory. The bias is padded to whole panels the same way. Immutable after `init`.
public final class PackedWeights: @unchecked Sendable {
  /// The shape and the buffers, as plain values (`View`); this object owns the buffers.
  public let view: View
  public var taps: Int { view.taps }
  public var rows: Int { view.rows }
  public var columns: Int { view.columns }
  public var instructionSet: InstructionSet { view.instructionSet }
  public var precision: WeightPrecision { view.precision }
  /// Columns per panel: 32 for AVX-512, 16 for AVX2.
  public let panelWidth: Int

  /// Shapes: weights (taps, K, N), row-major; bias (N), or zeros when nil.
  /// - Precondition: `instructionSet` is supported here.
  public init(
    _ weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?, taps: Int, rows: Int,
    columns: Int, instructionSet: InstructionSet = .available, precision: WeightPrecision = .single
  ) {
    precondition(
      instructionSet != .none && instructionSet.isSupported,
      "PackedWeights: \(instructionSet) kernels do not run on this CPU (it has "
        + "\(InstructionSet.available))")
    precondition(taps >= 1 && rows >= 1 && columns >= 1, "PackedWeights: empty shape")
    let width = Int(spk_panel_width(instructionSet.rawValue))
    panelWidth = width
    let panels = (columns + width - 1) / width
    let count = panels * taps * rows * width
    let size = precision == .single ? 4 : 2
    let storage = UnsafeMutableRawPointer.allocate(byteCount: count * size, alignment: 64)
    storage.initializeMemory(as: UInt8.self, repeating: 0, count: count * size)
    for panel in 0..<panels {
      for tap in 0..<taps {
        for row in 0..<rows {
          let target = ((panel * taps + tap) * rows + row) * width
          for lane in 0..<min(width, columns - panel * width) {
            let value = weights[(tap * rows + row) * columns + panel * width + lane]
            switch precision {
            case .single:
              storage.storeBytes(of: value, toByteOffset: (target + lane) * 4, as: Float.self)
            case .half:
              storage.storeBytes(
                of: Float16(value).bitPattern, toByteOffset: (target + lane) * 2, as: UInt16.self)
            }
          }
        }
      }
    }
    let padded = UnsafeMutablePointer<Float>.allocate(capacity: panels * width)
    padded.initialize(repeating: 0, count: panels * width)
    if let bias { padded.update(from: bias, count: columns) }
    view = View(
      taps: taps, rows: rows, columns: columns, instructionSet: instructionSet,
      precision: precision, storage: UnsafeRawPointer(storage), bias: UnsafePointer(padded))
  }

  deinit {
    UnsafeMutableRawPointer(mutating: view.storage).deallocate()
    UnsafeMutablePointer(mutating: view.bias).deallocate()
  }

  /// The weights' shape and storage as plain values, valid while their `PackedWeights` lives:
  /// what a per-frame loop holds instead of the object, so calling a kernel costs no reference
  /// count.
  public struct View {
    public let taps: Int
    public let rows: Int
    public let columns: Int
    public let instructionSet: InstructionSet
    public let precision: WeightPrecision
    let storage: UnsafeRawPointer
    let bias: UnsafePointer<Float>
  }

  /// Bytes the packed weights take.
  public var byteCount: Int {
    (columns + panelWidth - 1) / panelWidth * panelWidth * taps * rows
      * (precision == .single ? 4 : 2)
  }
}

/// Spotter's own GEMM for convolutions over few frames (`spk_gemm`, packed_kernels.h).
public enum PackedGEMM {
  /// For each of `windows` windows, C (M, N) = act(bias + Σ_tap A_tap (M, K) · W_tap (K, N)),
  /// where A_tap's row r starts at `input + tap · tapStride + r · inputRowStride` (the shifted
  /// rows of a convolution, read in place) and act is ReLU or nothing (`spk_gemm`).
  ///
  /// Shapes: window w's input starts `w · inputWindowStride` floats after `input`, its output
  /// `w · outputWindowStride` floats after `output`; rows of C are `outputRowStride` apart.
  /// `bias`, when given instead of the weights' own, holds N floats and zeros up to whole
  /// panels (`panelWidth`); row r's starts `r · biasRowStride` floats after it (0: one bias
  /// for every row, as a layer has).
  public static func convolve(
    windows: Int = 1, rows: Int, input: UnsafePointer<Float>, inputRowStride: Int,
    tapStride: Int, inputWindowStride: Int = 0, weights: PackedWeights,
    bias: UnsafePointer<Float>? = nil, biasRowStride: Int = 0, relu: Bool,
    into output: UnsafeMutablePointer<Float>, outputRowStride: Int, outputWindowStride: Int = 0
  ) {
    convolve(
      windows: windows, rows: rows, input: input, inputRowStride: inputRowStride,
      tapStride: tapStride, inputWindowStride: inputWindowStride, weights: weights.view,
      bias: bias, biasRowStride: biasRowStride, relu: relu, into: output,
      outputRowStride: outputRowStride, outputWindowStride: outputWindowStride)
  }

  /// The same on a `PackedWeights.View`: for loops that run per frame, where holding the
  /// weights' object would cost a reference count each call.
  @inline(__always)
  public static func convolve(
    windows: Int = 1, rows: Int, input: UnsafePointer<Float>, inputRowStride: Int,
    tapStride: Int, inputWindowStride: Int = 0, weights: PackedWeights.View,
    bias: UnsafePointer<Float>? = nil, biasRowStride: Int = 0, relu: Bool,
    into output: UnsafeMutablePointer<Float>, outputRowStride: Int, outputWindowStride: Int = 0
  ) {
    requireShapes(
      windows: windows, rows: rows, inputRowStride: inputRowStride, tapStride: tapStride,
      weights: weights, outputRowStride: outputRowStride)
    precondition(biasRowStride == 0 || bias != nil, "spk_gemm: a bias row stride needs a bias")
    precondition(
      windows <= 1 || (inputWindowStride > 0 && outputWindowStride >= rows * outputRowStride),
      "spk_gemm: windows overlap (input window stride \(inputWindowStride), output "
        + "\(outputWindowStride))")
    if windows == 0 || rows == 0 { return }
    spk_gemm(
      weights.instructionSet.rawValue, weights.precision == .half ? 1 : 0, Int32(windows),
      inputWindowStride, outputWindowStride, Int32(rows), Int32(weights.columns),
      Int32(weights.rows), Int32(weights.taps), input, inputRowStride, tapStride,
      weights.storage, bias ?? weights.bias, bias == nil ? 0 : biasRowStride, output,
      outputRowStride, relu ? 1 : 0, nil, nil)
  }

  /// The shapes `spk_gemm` needs: rows of A and C at least as long as W's rows and columns.
  @inline(__always)
  private static func requireShapes(
    windows: Int, rows: Int, inputRowStride: Int, tapStride: Int, weights: PackedWeights.View,
    outputRowStride: Int
  ) {
    precondition(
      windows >= 0 && rows >= 0 && inputRowStride >= weights.rows
        && outputRowStride >= weights.columns && tapStride >= 0,
      "spk_gemm: \(windows) windows of A [\(rows), \(weights.rows)] (row stride "
        + "\(inputRowStride)) · W [\(weights.taps), \(weights.rows), \(weights.columns)] cannot "
        + "fill C with row stride \(outputRowStride)")
  }

  /// The same for windows anywhere in memory (several streams' states, each in buffers of its
  /// own): window w's input starts at `inputs[w]`, its output at `outputs[w]`, and each panel
  /// of weights, read once, serves every window as it does for windows a stride apart.
  ///
  /// Shapes: `inputs` and `outputs` hold `windows` pointers each; the rest as above.
  public static func convolve(
    windows: Int, rows: Int, inputs: UnsafePointer<UnsafePointer<Float>?>,
    inputRowStride: Int, tapStride: Int, weights: PackedWeights.View, relu: Bool,
    outputs: UnsafePointer<UnsafeMutablePointer<Float>?>, outputRowStride: Int
  ) {
    requireShapes(
      windows: windows, rows: rows, inputRowStride: inputRowStride, tapStride: tapStride,
      weights: weights, outputRowStride: outputRowStride)
    if windows == 0 || rows == 0 { return }
    spk_gemm(
      weights.instructionSet.rawValue, weights.precision == .half ? 1 : 0, Int32(windows), 0, 0,
      Int32(rows), Int32(weights.columns), Int32(weights.rows), Int32(weights.taps), inputs[0],
      inputRowStride, tapStride, weights.storage, weights.bias, 0, outputs[0], outputRowStride,
      relu ? 1 : 0, inputs, outputs)
  }

  /// Winograd's input transform of one tile, from frames `step` floats apart from `frames` to
  /// rows `plane` floats apart from `into`:
  /// - `.f23` (`spk_winograd_input`): from frames d0…d3, the rows U1 = d0 − d2, U2 = d1 + d2,
  ///   U3 = d2 − d1, U4 = d1 − d3;
  /// - `.f43` (`spk_winograd4_input`): from frames d0…d5, the six rows of Bᵀd.
  ///
  /// Shapes: each frame and each row (C) floats. Needs the kernels (`InstructionSet.avx2`).
  public static func winogradInput(
    _ tile: WinogradTile, frames: UnsafePointer<Float>, step: Int, channels: Int,
    into rows: UnsafeMutablePointer<Float>, plane: Int
  ) {
    precondition(
      InstructionSet.avx2.isSupported && plane >= channels,
      "\(tile == .f23 ? "spk_winograd_input" : "spk_winograd4_input"): needs AVX2 and a plane "
        + "(\(plane)) ≥ C (\(channels))")
    switch tile {
    case .f23: spk_winograd_input(frames, step, Int32(channels), rows, plane)
    case .f43: spk_winograd4_input(frames, step, Int32(channels), rows, plane)
    }
  }

  /// Winograd F(2, 3)'s output transform (`spk_winograd_output`): from products m1…m4,
  /// `plane` floats apart, first = ReLU(bias + m1 + m2 + m3) and second =
  /// ReLU(bias + m2 − m3 − m4).
  ///
  /// Shapes: products, bias, first and second (C). Needs the kernels.
  public static func winogradOutput(
    products: UnsafePointer<Float>, plane: Int, bias: UnsafePointer<Float>, channels: Int,
    first: UnsafeMutablePointer<Float>, second: UnsafeMutablePointer<Float>
  ) {
    precondition(
      InstructionSet.avx2.isSupported && plane >= channels,
      "spk_winograd_output: needs AVX2 and a plane (\(plane)) ≥ C (\(channels))")
    spk_winograd_output(products, plane, bias, Int32(channels), first, second)
  }

  /// Winograd F(4, 3)'s output transform (`spk_winograd4_output`): from products m0…m5,
  /// `plane` floats apart, the four output frames ReLU(bias + Aᵀm), `step` floats apart from
  /// `into`.
  ///
  /// Shapes: products, bias and each output frame (C). Needs the kernels.
  public static func winograd4Output(
    products: UnsafePointer<Float>, plane: Int, bias: UnsafePointer<Float>, channels: Int,
    into frames: UnsafeMutablePointer<Float>, step: Int
  ) {
    precondition(
      InstructionSet.avx2.isSupported && plane >= channels,
      "spk_winograd4_output: needs AVX2 and a plane (\(plane)) ≥ C (\(channels))")
    spk_winograd4_output(products, plane, bias, Int32(channels), frames, step)
  }
}
