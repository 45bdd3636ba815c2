extension RandomAccessCollection where Index == Int {
  /// The index of the element whose time is nearest `t`, in a collection sorted by time; nil
  /// when it is empty. Of two equally near, the earlier.
  ///
  /// A binary search (O(log n)): a report looks up dozens of moments in a session of tens of
  /// thousands of frames.
  ///
  /// - Parameter time: an element's time, in the same units as `t`.
  public func indexNearest(_ t: Double, time: (Element) -> Double) -> Int? {
    guard !isEmpty else { return nil }
    var low = startIndex
    var high = endIndex
    while low < high {
      let middle = (low + high) / 2
      if time(self[middle]) < t { low = middle + 1 } else { high = middle }
    }
    let candidates = [low - 1, low].filter { indices.contains($0) }
    return candidates.min { abs(time(self[$0]) - t) < abs(time(self[$1]) - t) }
  }
}
