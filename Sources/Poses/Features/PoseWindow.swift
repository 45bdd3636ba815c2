/// The last T frames of features (T = 60 by default: 2 s at 30 fps), the network's input.
///
/// Concept: a fixed ring. Each new frame overwrites the oldest once the ring is full; a frame
/// where nobody was detected is stored as all zeros, so gaps stay in the timeline instead of
/// being skipped over.
///
/// Example:
/// ```swift
/// var window = PoseWindow()                       // T = 60, F = 54
/// window.push(features)                           // one frame's F floats
/// window.copy(into: input)                        // (T, F), oldest first
/// ```
///
/// Implementation: one T·F buffer and the slot of the next write. `copy(into:)` writes at most
/// two contiguous runs (older part, then newer part); before the ring is full, the missing
/// leading frames are zeros, exactly as a stream that has only just begun looks to the network.
///
/// Why fixed: the capacity is the model's window, known when the session starts, so the ring
/// allocates once and never again. A per-frame allocation or a growing buffer would put
/// allocator work and its latency spikes on the live path of every stream.
public struct PoseWindow: Sendable {
  /// T: frames held.
  public let capacity: Int
  /// F: features per frame.
  public let featureCount: Int
  private var storage: [Float]
  private var present: [Bool]
  /// The slot the next frame goes into; once full, also the oldest frame's slot.
  private var nextSlot: Int
  /// How many frames are held (the fill level, at most T).
  public private(set) var count = 0
  /// How many held frames show a person.
  public private(set) var presentCount = 0

  public init(capacity: Int = 60, featureCount: Int = FeatureSpec.featuresPerFrame) {
    self.init(capacity: capacity, featureCount: featureCount, startSlot: 0)
  }

  /// A window whose first frame lands in `startSlot`, so tests can cover every start slot.
  package init(capacity: Int, featureCount: Int, startSlot: Int) {
    precondition(capacity > 0 && featureCount > 0, "window needs T > 0 and F > 0")
    precondition(
      (0..<capacity).contains(startSlot), "start slot \(startSlot) outside 0..<\(capacity)")
    self.capacity = capacity
    self.featureCount = featureCount
    storage = Array(repeating: 0, count: capacity * featureCount)
    present = Array(repeating: false, count: capacity)
    nextSlot = startSlot
  }

  public var isFull: Bool { count == capacity }

  /// The share of held frames that show a person (0 when empty). Zero-padding does not count.
  public var presentFraction: Float { Float(presentCount) / Float(capacity) }

  /// Appends one frame's F features, overwriting the oldest frame when full. A frame of all
  /// zeros is nobody.
  public mutating func push(_ features: UnsafeBufferPointer<Float>) {
    precondition(
      features.count == featureCount,
      "frame has \(features.count) features, window F = \(featureCount)")
    var hasPerson = false
    for value in features where value != 0 {
      hasPerson = true
      break
    }
    let slot = nextSlot
    storage.withUnsafeMutableBufferPointer { buffer in
      _ = UnsafeMutableBufferPointer(
        rebasing: buffer[slot * featureCount..<(slot + 1) * featureCount]
      )
      .update(fromContentsOf: features)
    }
    advance(hasPerson: hasPerson)
  }

  /// Appends a frame where nobody was detected.
  public mutating func pushNobody() {
    let slot = nextSlot
    storage.withUnsafeMutableBufferPointer { buffer in
      UnsafeMutableBufferPointer(rebasing: buffer[slot * featureCount..<(slot + 1) * featureCount])
        .update(repeating: 0)
    }
    advance(hasPerson: false)
  }

  private mutating func advance(hasPerson: Bool) {
    if count == capacity {
      if present[nextSlot] { presentCount -= 1 }
    } else {
      count += 1
    }
    present[nextSlot] = hasPerson
    if hasPerson { presentCount += 1 }
    nextSlot = nextSlot + 1 == capacity ? 0 : nextSlot + 1
  }

  /// Empties the window.
  public mutating func removeAll() {
    count = 0
    presentCount = 0
    for index in present.indices { present[index] = false }
  }

  /// Copies the window into `out` as a (T, F) row-major block, oldest frame first, newest last,
  /// with zero frames in front while fewer than T frames have arrived. Allocates nothing.
  public func copy(into out: UnsafeMutableBufferPointer<Float>) {
    precondition(
      out.count == capacity * featureCount,
      "window copy needs T·F = \(capacity * featureCount) floats, got \(out.count)")
    let F = featureCount
    let padding = capacity - count
    UnsafeMutableBufferPointer(rebasing: out[0..<padding * F]).update(repeating: 0)
    let oldest = (nextSlot - count + capacity) % capacity
    let firstRun = min(count, capacity - oldest)
    storage.withUnsafeBufferPointer { buffer in
      func copyRun(from start: Int, length: Int, to target: Int) {
        let source = UnsafeBufferPointer(rebasing: buffer[start * F..<(start + length) * F])
        _ = UnsafeMutableBufferPointer(rebasing: out[target * F..<(target + length) * F])
          .update(fromContentsOf: source)
      }
      copyRun(from: oldest, length: firstRun, to: padding)
      copyRun(from: 0, length: count - firstRun, to: padding + firstRun)
    }
  }

  /// The features of the frame `age` frames back (0: the newest), as a buffer valid only inside
  /// `body`.
  public func withFrame<R>(age: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R
  {
    precondition((0..<count).contains(age), "frame age \(age) outside 0..<\(count)")
    let slot = (nextSlot - 1 - age + 2 * capacity) % capacity
    return try storage.withUnsafeBufferPointer { buffer in
      try body(
        UnsafeBufferPointer(rebasing: buffer[slot * featureCount..<(slot + 1) * featureCount]))
    }
  }
}
