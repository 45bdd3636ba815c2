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
/// Implementation: a `FixedRing` of presence flags, whose slots are the rows of one T·F
/// buffer. `copy(into:)` writes at most two contiguous runs (older part, then newer part);
/// before the ring is full, the missing leading frames are zeros, exactly as a stream that has
/// only just begun looks to the network.
///
/// Why fixed: the capacity is the model's window, known when the session starts, so the ring
/// allocates once and never again. A per-frame allocation or a growing buffer would put
/// allocator work and its latency spikes on the live path of every stream.
public struct PoseWindow: Sendable {
  /// T: frames held.
  public var capacity: Int { presence.capacity }
  /// F: features per frame.
  public let featureCount: Int
  /// Whether each held frame shows a person; the ring's slots are the rows of `storage`.
  private var presence: FixedRing<Bool>
  /// (T, F): the frame in ring slot s is row s; empty once the features are dropped.
  private var storage: [Float]
  /// Whether the window still keeps its frames' features (`dropFeatures()`).
  public var keepsFeatures: Bool { !storage.isEmpty }
  /// How many held frames show a person.
  public private(set) var presentCount = 0

  public init(capacity: Int = 60, featureCount: Int = FeatureSpec().featuresPerFrame) {
    self.init(capacity: capacity, featureCount: featureCount, startSlot: 0)
  }

  /// A window whose first frame lands in `startSlot`, so tests can cover every start slot.
  package init(capacity: Int, featureCount: Int, startSlot: Int) {
    precondition(capacity > 0 && featureCount > 0, "window needs T > 0 and F > 0")
    self.featureCount = featureCount
    presence = FixedRing(capacity: capacity, repeating: false, startSlot: startSlot)
    storage = Array(repeating: 0, count: capacity * featureCount)
  }

  /// How many frames are held (the fill level, at most T).
  public var count: Int { presence.count }

  public var isFull: Bool { presence.isFull }

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
    if keepsFeatures {
      let row = rowForNext
      storage.withUnsafeMutableBufferPointer { buffer in
        _ = UnsafeMutableBufferPointer(rebasing: buffer[row]).update(fromContentsOf: features)
      }
    }
    advance(hasPerson: hasPerson)
  }

  /// Appends a frame where nobody was detected.
  public mutating func pushNobody() {
    if keepsFeatures {
      let row = rowForNext
      storage.withUnsafeMutableBufferPointer { buffer in
        UnsafeMutableBufferPointer(rebasing: buffer[row]).update(repeating: 0)
      }
    }
    advance(hasPerson: false)
  }

  /// Frees the features (T·F floats) and from now on keeps only which frames show a person:
  /// for an owner whose frames are held elsewhere once it has them (`FeatureStream`, once its
  /// network state is made). `count`, `presentCount` and the rest go on as before; `copy` and
  /// `withFrame` may no longer be called.
  public mutating func dropFeatures() {
    storage = []
  }

  /// Where the next frame's features go in `storage`.
  private var rowForNext: Range<Int> {
    presence.slotForNext * featureCount..<(presence.slotForNext + 1) * featureCount
  }

  private mutating func advance(hasPerson: Bool) {
    if presence.append(hasPerson) == true { presentCount -= 1 }
    if hasPerson { presentCount += 1 }
  }

  /// Empties the window.
  public mutating func removeAll() {
    presence.removeAll()
    presentCount = 0
  }

  /// Copies the window into `out` as a (T, F) row-major block, oldest frame first, newest last,
  /// with zero frames in front while fewer than T frames have arrived. Allocates nothing.
  public func copy(into out: UnsafeMutableBufferPointer<Float>) {
    precondition(keepsFeatures, "the window's features were dropped (dropFeatures)")
    precondition(
      out.count == capacity * featureCount,
      "window copy needs T·F = \(capacity * featureCount) floats, got \(out.count)")
    let width = featureCount
    let padding = capacity - count
    UnsafeMutableBufferPointer(rebasing: out[0..<padding * width]).update(repeating: 0)
    guard count > 0 else { return }
    let oldest = presence.slot(age: count - 1)
    let firstRun = min(count, capacity - oldest)
    storage.withUnsafeBufferPointer { buffer in
      func copyRun(from start: Int, length: Int, to target: Int) {
        let source = UnsafeBufferPointer(rebasing: buffer[start * width..<(start + length) * width])
        _ = UnsafeMutableBufferPointer(rebasing: out[target * width..<(target + length) * width])
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
    precondition(keepsFeatures, "the window's features were dropped (dropFeatures)")
    let slot = presence.slot(age: age)
    return try storage.withUnsafeBufferPointer { buffer in
      try body(
        UnsafeBufferPointer(rebasing: buffer[slot * featureCount..<(slot + 1) * featureCount]))
    }
  }
}
