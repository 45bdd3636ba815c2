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
  ///
  /// When full, the new value takes the old one's place in `sorted` and moves to where it
  /// belongs, shifting only the values between: one pass over part of the buffer, where a
  /// removal and an insertion would each move the tail.
  @discardableResult
  public mutating func add(_ value: Float) -> Float {
    guard let old = recent.append(value) else {
      sorted.insert(value, at: Self.insertionIndex(of: value, in: sorted[...]))
      return sorted[sorted.count / 2]
    }
    return sorted.withUnsafeMutableBufferPointer { sorted in
      var slot = Self.insertionIndex(of: old, in: sorted[...])
      while slot + 1 < sorted.count, sorted[slot + 1] < value {
        sorted[slot] = sorted[slot + 1]
        slot += 1
      }
      while slot > 0, sorted[slot - 1] > value {
        sorted[slot] = sorted[slot - 1]
        slot -= 1
      }
      sorted[slot] = value
      return sorted[sorted.count / 2]
    }
  }

  public mutating func removeAll() {
    recent.removeAll()
    sorted.removeAll(keepingCapacity: true)
  }

  /// The first index whose value is not less than `value` (binary search).
  private static func insertionIndex<Values: RandomAccessCollection<Float>>(
    of value: Float, in array: Values
  ) -> Int where Values.Index == Int {
    var low = array.startIndex
    var high = array.endIndex
    while low < high {
      let mid = (low + high) / 2
      if array[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
