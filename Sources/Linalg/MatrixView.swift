/// A row-major view of `rows × columns` floats, `rowStride` apart, that Linalg reads from.
///
/// Views carry their shape so that every BLAS call can check it before it reaches C: a wrong
/// shape is a programmer's mistake and stops at a `precondition` naming both shapes.
public struct MatrixView {
  public let base: UnsafePointer<Float>
  public let rows: Int
  public let columns: Int
  public let rowStride: Int

  public init(_ base: UnsafePointer<Float>, rows: Int, columns: Int, rowStride: Int? = nil) {
    self.base = base
    self.rows = rows
    self.columns = columns
    self.rowStride = checkedRowStride(rows: rows, columns: columns, rowStride: rowStride)
  }

  /// A view over a whole buffer holding `rows × columns` floats.
  public init(_ buffer: UnsafeBufferPointer<Float>, rows: Int, columns: Int) {
    checkFits(buffer.count, rows: rows, columns: columns)
    self.init(buffer.baseAddress!, rows: rows, columns: columns)
  }
}

/// A row-major view of floats that Linalg writes into. See `MatrixView`.
public struct MutableMatrixView {
  public let base: UnsafeMutablePointer<Float>
  public let rows: Int
  public let columns: Int
  public let rowStride: Int

  public init(_ base: UnsafeMutablePointer<Float>, rows: Int, columns: Int, rowStride: Int? = nil) {
    self.base = base
    self.rows = rows
    self.columns = columns
    self.rowStride = checkedRowStride(rows: rows, columns: columns, rowStride: rowStride)
  }

  public init(_ buffer: UnsafeMutableBufferPointer<Float>, rows: Int, columns: Int) {
    checkFits(buffer.count, rows: rows, columns: columns)
    self.init(buffer.baseAddress!, rows: rows, columns: columns)
  }

  public var readOnly: MatrixView {
    MatrixView(UnsafePointer(base), rows: rows, columns: columns, rowStride: rowStride)
  }
}

/// The row stride of a `rows × columns` view (`columns` unless given), checked: a negative
/// shape or a stride shorter than a row is a programmer's mistake.
private func checkedRowStride(rows: Int, columns: Int, rowStride: Int?) -> Int {
  precondition(rows >= 0 && columns >= 0, "matrix shape [\(rows), \(columns)] is negative")
  let stride = rowStride ?? columns
  precondition(stride >= max(columns, 1), "row stride \(stride) < \(columns) columns")
  return stride
}

/// Checks that a buffer of `count` floats holds a whole `rows × columns` view.
private func checkFits(_ count: Int, rows: Int, columns: Int) {
  precondition(
    count >= rows * columns, "buffer of \(count) floats is too small for [\(rows), \(columns)]")
}
