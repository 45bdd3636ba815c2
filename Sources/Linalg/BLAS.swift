import COpenBLAS

/// Shape-checked single-precision BLAS, the only door to OpenBLAS in Spotter.
///
/// Every function checks its shapes with `precondition` and names the C routine it wraps.
/// OpenBLAS is set to one thread the first time any routine runs: Spotter's matrices are small
/// (tens to a few hundred rows), where thread start-up costs more than it saves, and a daemon
/// runs many sessions on its own threads. Use `BLAS.threadCount` to change it.
public enum BLAS {
  /// Runs once, before the first BLAS call: one thread unless the caller says otherwise.
  private static let configured: Void = openblas_set_num_threads(1)

  /// The number of threads OpenBLAS uses (`openblas_get_num_threads` /
  /// `openblas_set_num_threads`). Defaults to 1.
  public static var threadCount: Int {
    get {
      _ = configured
      return Int(openblas_get_num_threads())
    }
    set {
      precondition(newValue >= 1, "thread count must be at least 1, got \(newValue)")
      _ = configured
      openblas_set_num_threads(Int32(newValue))
    }
  }

  /// OpenBLAS's build description (`openblas_get_config`), for benchmark reports.
  public static var configuration: String {
    _ = configured
    return String(cString: openblas_get_config())
  }

  /// C ← alpha · op(A) · op(B) + beta · C, where op transposes when asked
  /// (`cblas_sgemm`, row-major).
  ///
  /// Shapes: op(A) (m, k), op(B) (k, n), C (m, n).
  public static func gemm(
    _ a: MatrixView, transposeA: Bool = false,
    _ b: MatrixView, transposeB: Bool = false,
    into c: MutableMatrixView, alpha: Float = 1, beta: Float = 0
  ) {
    _ = configured
    let (m, k) = transposeA ? (a.columns, a.rows) : (a.rows, a.columns)
    let (kb, n) = transposeB ? (b.columns, b.rows) : (b.rows, b.columns)
    precondition(
      k == kb && c.rows == m && c.columns == n,
      "cblas_sgemm: op(A) [\(m), \(k)] · op(B) [\(kb), \(n)] cannot fill C [\(c.rows), "
        + "\(c.columns)]"
    )
    if m == 0 || n == 0 { return }
    cblas_sgemm(
      CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
      transposeB ? CblasTrans : CblasNoTrans,
      Int32(m), Int32(n), Int32(k), alpha, a.base, Int32(a.rowStride), b.base,
      Int32(b.rowStride), beta, c.base, Int32(c.rowStride))
  }

  /// y ← alpha · op(A) · x + beta · y (`cblas_sgemv`, row-major).
  ///
  /// Shapes: op(A) (m, n), x (n), y (m).
  public static func gemv(
    _ a: MatrixView, transpose: Bool = false,
    _ x: UnsafeBufferPointer<Float>, into y: UnsafeMutableBufferPointer<Float>,
    alpha: Float = 1, beta: Float = 0
  ) {
    _ = configured
    let (m, n) = transpose ? (a.columns, a.rows) : (a.rows, a.columns)
    precondition(
      x.count == n && y.count == m,
      "cblas_sgemv: op(A) [\(m), \(n)] · x [\(x.count)] cannot fill y [\(y.count)]")
    if m == 0 { return }
    cblas_sgemv(
      CblasRowMajor, transpose ? CblasTrans : CblasNoTrans, Int32(a.rows), Int32(a.columns),
      alpha, a.base, Int32(a.rowStride), x.baseAddress, 1, beta, y.baseAddress, 1)
  }
}
