/// The median of the last `capacity` values, updated as each arrives: a `FixedRing` of the
/// values in arrival order beside the same values sorted. Allocates only at `init`.
public struct RunningMedian: Sendable {
  private var recent: FixedRing<Float>
  private var sorted: [Float]

  public init(capacity: Int) {
    recent = FixedRing(capacity: capacity, repeating: 0)
    sorted = []
    sorted.reserveCapacity(capacity)
  }

  public var capacity: Int { recent.capacity }
  public var count: Int { recent.count }

  /// The median of the values held (the upper of the middle two), nil when empty.
  public var median: Float? { sorted.isEmpty ? nil : sorted[sorted.count / 2] }

  /// Adds a value, letting the oldest go when full; returns the new median.
  @discardableResult
  public mutating func add(_ value: Float) -> Float {
    if let old = recent.append(value) {
      sorted.remove(at: Self.insertionIndex(of: old, in: sorted))
    }
    sorted.insert(value, at: Self.insertionIndex(of: value, in: sorted))
    return sorted[sorted.count / 2]
  }

  public mutating func removeAll() {
    recent.removeAll()
    sorted.removeAll(keepingCapacity: true)
  }

  /// The first index whose value is not less than `value` (binary search).
  private static func insertionIndex(of value: Float, in array: [Float]) -> Int {
    var low = 0
    var high = array.count
    while low < high {
      let mid = (low + high) / 2
      if array[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
