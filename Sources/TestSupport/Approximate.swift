/// Approximate equality with a stated tolerance.
public enum Approximate {
  /// The largest |a[i] − b[i]|; infinity when the counts differ.
  public static func maxDifference(_ a: some Collection<Float>, _ b: some Collection<Float>)
    -> Float
  {
    guard a.count == b.count else { return .infinity }
    return zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
  }

  /// Whether every element is within `tolerance` of its twin.
  public static func equal(
    _ a: some Collection<Float>, _ b: some Collection<Float>, tolerance: Float
  ) -> Bool {
    maxDifference(a, b) <= tolerance
  }
}
