import Linalg
import Randomness
import TestSupport
import Testing

/// Spotter's own kernels against a plain sum in double precision, on every instruction set
/// this CPU runs, in both weight precisions: the same answer to float rounding (half-precision
/// weights are compared with the same weights rounded to half first).
@Suite struct PackedGEMMTests {
  struct Shape: CustomTestStringConvertible, Sendable {
    let windows: Int
    let rows: Int
    let k: Int
    let n: Int
    let taps: Int
    let dilation: Int
    var testDescription: String { "\(windows)×[\(rows), \(k)]·[\(taps), \(k), \(n)] d\(dilation)" }
  }

  /// A streaming row, a catch-up, the standard layers' shapes, and odd sizes that leave
  /// partial register tiles and panels; one to three rows over three panels (AVX-512's 96 and
  /// 80 columns, AVX2's 48), which go in one pass.
  static let shapes = [
    Shape(windows: 1, rows: 1, k: 128, n: 128, taps: 3, dilation: 8),
    Shape(windows: 2, rows: 1, k: 54, n: 96, taps: 1, dilation: 1),
    Shape(windows: 1, rows: 2, k: 20, n: 80, taps: 3, dilation: 2),
    Shape(windows: 2, rows: 3, k: 9, n: 48, taps: 2, dilation: 1),
    Shape(windows: 1, rows: 10, k: 96, n: 128, taps: 3, dilation: 2),
    Shape(windows: 2, rows: 58, k: 54, n: 96, taps: 3, dilation: 1),
    Shape(windows: 3, rows: 30, k: 128, n: 128, taps: 3, dilation: 8),
    Shape(windows: 2, rows: 13, k: 7, n: 45, taps: 2, dilation: 3),
    Shape(windows: 1, rows: 5, k: 3, n: 1, taps: 1, dilation: 1),
  ]

  static let sets = InstructionSet.allCases.filter { $0 != .none && $0.isSupported }

  @Test(arguments: sets, WeightPrecision.allCases)
  func convolveMatchesAPlainSum(set: InstructionSet, precision: WeightPrecision) {
    for shape in Self.shapes {
      check(shape, set: set, precision: precision)
    }
  }

  func check(_ shape: Shape, set: InstructionSet, precision: WeightPrecision) {
    var random = SeededGenerator(seed: UInt64(shape.rows * 100 + shape.n))
    let inputRows = shape.rows + (shape.taps - 1) * shape.dilation
    let windowStride = (inputRows + 2) * shape.k  // a gap between windows, as in a batch
    let input = (0..<shape.windows * windowStride).map { _ in random.signedUnit() }
    var weights = (0..<shape.taps * shape.k * shape.n).map { _ in random.signedUnit() }
    let bias = (0..<shape.n).map { _ in random.signedUnit() }
    let packed = PackedWeights(
      weights, bias: bias, taps: shape.taps, rows: shape.k, columns: shape.n,
      instructionSet: set, precision: precision)
    if precision == .half { weights = weights.map { Float(Float16($0)) } }
    let outputStride = shape.n + 3
    let outputWindow = shape.rows * outputStride + 5
    var output = [Float](repeating: .nan, count: shape.windows * outputWindow)
    input.withUnsafeBufferPointer { input in
      output.withUnsafeMutableBufferPointer { output in
        PackedGEMM.convolve(
          windows: shape.windows, rows: shape.rows, input: input.baseAddress!,
          inputRowStride: shape.k, tapStride: shape.dilation * shape.k,
          inputWindowStride: windowStride, weights: packed, relu: true,
          into: output.baseAddress!, outputRowStride: outputStride,
          outputWindowStride: outputWindow)
      }
    }
    var worst: Double = 0
    for window in 0..<shape.windows {
      for row in 0..<shape.rows {
        for column in 0..<shape.n {
          var sum = Double(bias[column])
          for tap in 0..<shape.taps {
            for index in 0..<shape.k {
              let x = input[window * windowStride + (row + tap * shape.dilation) * shape.k + index]
              sum += Double(x) * Double(weights[(tap * shape.k + index) * shape.n + column])
            }
          }
          let actual = output[window * outputWindow + row * outputStride + column]
          worst = max(worst, abs(max(sum, 0) - Double(actual)))
        }
        // The padding between rows is never written.
        #expect(output[window * outputWindow + row * outputStride + shape.n].isNaN)
      }
    }
    #expect(worst < 1e-4, "\(shape.testDescription) on \(set), \(precision): \(worst)")
  }

  @Test func theAvailableSetIsSupported() {
    #expect(InstructionSet.available.isSupported)
    #expect(InstructionSet.none.isSupported)
  }
}
