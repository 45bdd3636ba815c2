import Testing

@testable import Poses

@Suite struct PoseWindowTests {
  static let capacity = 7
  static let features = 3

  /// Frame n is [n, n + 0.25, n + 0.5]; frame numbers start at 1 so zeros mean padding.
  static func frame(_ n: Int) -> [Float] { [Float(n), Float(n) + 0.25, Float(n) + 0.5] }

  @Test(arguments: 0..<capacity)
  func everyStartSlotAndFillLevelCopiesOldestFirstWithLeadingZeros(startSlot: Int) {
    var window = PoseWindow(
      capacity: Self.capacity, featureCount: Self.features, startSlot: startSlot)
    var out = Array(repeating: Float(-1), count: Self.capacity * Self.features)
    for pushed in 0...(3 * Self.capacity) {
      if pushed > 0 { Self.frame(pushed).withUnsafeBufferPointer { window.push($0) } }
      out.withUnsafeMutableBufferPointer { window.copy(into: $0) }
      let held = min(pushed, Self.capacity)
      #expect(window.count == held)
      #expect(window.isFull == (pushed >= Self.capacity))
      let padding = Self.capacity - held
      var expected = Array(repeating: Float(0), count: padding * Self.features)
      for n in (pushed - held + 1)...max(pushed, 1) where n >= 1 && n <= pushed {
        expected += Self.frame(n)
      }
      #expect(out == expected, "start slot \(startSlot), \(pushed) pushed")
      if held > 0 {
        window.withFrame(age: 0) { #expect(Array($0) == Self.frame(pushed)) }
        window.withFrame(age: held - 1) { #expect(Array($0) == Self.frame(pushed - held + 1)) }
      }
    }
  }

  @Test(arguments: 0..<capacity)
  func nobodyFramesAreZerosAndPresenceIsCounted(startSlot: Int) {
    var window = PoseWindow(
      capacity: Self.capacity, featureCount: Self.features, startSlot: startSlot)
    for n in 1...20 {
      if n % 3 == 0 {
        window.pushNobody()
      } else {
        Self.frame(n).withUnsafeBufferPointer { window.push($0) }
      }
      let held = min(n, Self.capacity)
      let present = ((n - held + 1)...n).filter { $0 % 3 != 0 }.count
      #expect(window.presentCount == present, "after \(n) frames")
    }
    var out = Array(repeating: Float(-1), count: Self.capacity * Self.features)
    out.withUnsafeMutableBufferPointer { window.copy(into: $0) }
    // Frames 14...20; 15 and 18 are nobody.
    #expect(Array(out[3..<6]) == [0, 0, 0])
    #expect(Array(out[12..<15]) == [0, 0, 0])
    #expect(Array(out[0..<3]) == Self.frame(14))
    #expect(abs(window.presentFraction - 5 / 7) < 1e-6)
  }

  /// A window that drops its features after `dropAfter` frames counts frames and presence as
  /// one that keeps them, at every start slot, through a `removeAll`.
  @Test(arguments: 0..<capacity, [0, 3, 9])
  func aWindowWithoutFeaturesCountsPresenceAsOneWith(startSlot: Int, dropAfter: Int) {
    var keeping = PoseWindow(
      capacity: Self.capacity, featureCount: Self.features, startSlot: startSlot)
    var dropping = keeping
    for n in 1...30 {
      if n == dropAfter + 1 { dropping.dropFeatures() }
      if n == 20 {
        keeping.removeAll()
        dropping.removeAll()
      }
      if n % 3 == 0 {
        keeping.pushNobody()
        dropping.pushNobody()
      } else {
        let frame = n % 4 == 0 ? [Float](repeating: 0, count: Self.features) : Self.frame(n)
        frame.withUnsafeBufferPointer {
          keeping.push($0)
          dropping.push($0)
        }
      }
      #expect(dropping.keepsFeatures == (n <= dropAfter) && keeping.keepsFeatures)
      #expect(dropping.count == keeping.count && dropping.isFull == keeping.isFull)
      #expect(dropping.presentCount == keeping.presentCount, "after \(n) frames")
    }
  }

  @Test func anAllZeroFeatureFrameCountsAsNobody() {
    var window = PoseWindow(capacity: 4, featureCount: 2)
    [Float(0), 0].withUnsafeBufferPointer { window.push($0) }
    #expect(window.presentCount == 0)
    [Float(0), 1].withUnsafeBufferPointer { window.push($0) }
    #expect(window.presentCount == 1)
  }

  @Test func removeAllEmptiesTheWindow() {
    var window = PoseWindow(capacity: 3, featureCount: 1)
    for n in 1...5 { [Float(n)].withUnsafeBufferPointer { window.push($0) } }
    window.removeAll()
    #expect(window.count == 0 && window.presentCount == 0)
    var out: [Float] = [9, 9, 9]
    out.withUnsafeMutableBufferPointer { window.copy(into: $0) }
    #expect(out == [0, 0, 0])
  }

  @Test func defaultsAreTheModelWindow() {
    let window = PoseWindow()
    #expect(window.capacity == 60)
    #expect(window.featureCount == 54)
  }
}
