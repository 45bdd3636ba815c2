extension Collection where Element: Comparable {
  /// The position of the largest element, the first of equal ones (nil when empty): the label
  /// a row of probabilities predicts.
  @inlinable
  public var indexOfLargest: Index? {
    var best: Index?
    var index = startIndex
    while index != endIndex {
      if best == nil || self[index] > self[best!] { best = index }
      formIndex(after: &index)
    }
    return best
  }
}
