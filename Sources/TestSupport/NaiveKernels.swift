/// Reference kernels kept dumb on purpose: the fast paths are checked against these.
public enum NaiveKernels {
  /// C = alpha · op(A) · op(B) + beta · C, with triple loops in Double. Row-major, dense.
  ///
  /// Shapes: op(A) (m, k), op(B) (k, n), C (m, n).
  public static func gemm(
    m: Int, n: Int, k: Int, a: [Float], transposeA: Bool = false, b: [Float],
    transposeB: Bool = false, c: inout [Float], alpha: Float = 1, beta: Float = 0
  ) {
    precondition(a.count == m * k && b.count == k * n && c.count == m * n)
    for i in 0..<m {
      for j in 0..<n {
        var sum = 0.0
        for p in 0..<k {
          let av = transposeA ? a[p * m + i] : a[i * k + p]
          let bv = transposeB ? b[j * k + p] : b[p * n + j]
          sum += Double(av) * Double(bv)
        }
        c[i * n + j] = Float(Double(alpha) * sum + Double(beta) * Double(c[i * n + j]))
      }
    }
  }
}
