import Linalg
import Randomness
import TestSupport
import Testing

@Suite struct BLASTests {
  static let shapes: [(m: Int, n: Int, k: Int, ta: Bool, tb: Bool)] = [
    (1, 1, 1, false, false), (3, 5, 7, false, false), (64, 33, 17, true, false),
    (8, 130, 54, false, true), (17, 9, 128, true, true),
  ]

  @Test(arguments: shapes)
  func gemmMatchesNaive(_ shape: (m: Int, n: Int, k: Int, ta: Bool, tb: Bool)) {
    var random = SeededGenerator(seed: UInt64(shape.m * 1000 + shape.n))
    let a = (0..<shape.m * shape.k).map { _ in random.signedUnit() }
    let b = (0..<shape.k * shape.n).map { _ in random.signedUnit() }
    var expected = (0..<shape.m * shape.n).map { _ in random.signedUnit() }
    var actual = expected
    NaiveKernels.gemm(
      m: shape.m, n: shape.n, k: shape.k, a: a, transposeA: shape.ta, b: b, transposeB: shape.tb,
      c: &expected, alpha: 0.5, beta: 2)
    a.withUnsafeBufferPointer { a in
      b.withUnsafeBufferPointer { b in
        actual.withUnsafeMutableBufferPointer { c in
          BLAS.gemm(
            MatrixView(
              a, rows: shape.ta ? shape.k : shape.m, columns: shape.ta ? shape.m : shape.k),
            transposeA: shape.ta,
            MatrixView(
              b, rows: shape.tb ? shape.n : shape.k, columns: shape.tb ? shape.k : shape.n),
            transposeB: shape.tb,
            into: MutableMatrixView(c, rows: shape.m, columns: shape.n), alpha: 0.5, beta: 2)
        }
      }
    }
    #expect(Approximate.maxDifference(actual, expected) < 1e-4)
  }

  @Test func gemvMatchesNaive() {
    var random = SeededGenerator(seed: 7)
    let (m, n) = (13, 29)
    let a = (0..<m * n).map { _ in random.signedUnit() }
    let x = (0..<n).map { _ in random.signedUnit() }
    let xt = (0..<m).map { _ in random.signedUnit() }
    var expected = Array(repeating: Float(0), count: m)
    NaiveKernels.gemm(m: m, n: 1, k: n, a: a, b: x, c: &expected)
    var expectedT = Array(repeating: Float(0), count: n)
    NaiveKernels.gemm(m: n, n: 1, k: m, a: a, transposeA: true, b: xt, c: &expectedT)
    var y = Array(repeating: Float(0), count: m)
    var yt = Array(repeating: Float(0), count: n)
    a.withUnsafeBufferPointer { a in
      let view = MatrixView(a, rows: m, columns: n)
      x.withUnsafeBufferPointer { x in
        y.withUnsafeMutableBufferPointer { BLAS.gemv(view, x, into: $0) }
      }
      xt.withUnsafeBufferPointer { x in
        yt.withUnsafeMutableBufferPointer { BLAS.gemv(view, transpose: true, x, into: $0) }
      }
    }
    #expect(Approximate.maxDifference(y, expected) < 1e-5)
    #expect(Approximate.maxDifference(yt, expectedT) < 1e-5)
  }

  @Test func gemmHonoursRowStrides() {
    // A 2×2 block out of a 3-wide buffer, into a 2×2 block of a 4-wide buffer.
    let a: [Float] = [1, 2, 99, 3, 4, 99]
    let b: [Float] = [1, 0, 0, 1]
    var c = Array(repeating: Float(-1), count: 8)
    a.withUnsafeBufferPointer { a in
      b.withUnsafeBufferPointer { b in
        c.withUnsafeMutableBufferPointer { c in
          BLAS.gemm(
            MatrixView(a.baseAddress!, rows: 2, columns: 2, rowStride: 3),
            MatrixView(b, rows: 2, columns: 2),
            into: MutableMatrixView(c.baseAddress!, rows: 2, columns: 2, rowStride: 4))
        }
      }
    }
    #expect(c == [1, 2, -1, -1, 3, 4, -1, -1])
  }

  @Test func runsOnOneThreadByDefaultAndCanChange() {
    #expect(BLAS.threadCount == 1)
    BLAS.threadCount = 2
    #expect(BLAS.threadCount == 2)
    BLAS.threadCount = 1
    #expect(BLAS.threadCount == 1)
  }
}
