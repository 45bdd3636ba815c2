import Linalg

/// This CPU's practical single-thread peak: a large square sgemm.
enum LinalgBenchmarks {
  /// The best of a few large sizes: the practical peak of this core with this OpenBLAS.
  static func sgemmPeak() -> Measurement {
    [512, 1024, 2048].map(sgemm).max { $0.rate < $1.rate }!
  }

  static func sgemm(size n: Int) -> Measurement {
    let a = [Float](repeating: 0.5, count: n * n)
    let b = [Float](repeating: 0.25, count: n * n)
    var c = [Float](repeating: 0, count: n * n)
    return measure(
      "sgemm \(n)×\(n)×\(n) (peak)", units: 2 * Double(n * n * n), unit: "FLOP", samples: 7,
      sampleSeconds: 0.3
    ) {
      a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
          c.withUnsafeMutableBufferPointer { c in
            BLAS.gemm(
              MatrixView(a, rows: n, columns: n), MatrixView(b, rows: n, columns: n),
              into: MutableMatrixView(c, rows: n, columns: n))
          }
        }
      }
      return Double(c[n + 1])
    }
  }
}
