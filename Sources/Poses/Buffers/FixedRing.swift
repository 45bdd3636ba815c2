/// The last `capacity` values of a stream, oldest to newest: the one ring that every window,
/// trail and history in Spotter is kept in.
///
/// Concept: a fixed number of slots and the slot of the next write. Appending to a full ring
/// overwrites the oldest value (and hands it back, so a running sum or a sorted copy can let
/// it go); `removeOldest()` shortens a trail that keeps only the recent past.
///
/// Example:
/// ```swift
/// var presence = FixedRing(capacity: 60, repeating: false)
/// if presence.append(true) == true { … }     // the value that fell out, if the ring was full
/// presence[age: 0]                            // the newest; presence.first is the oldest
/// ```
///
/// Implementation: one array of `capacity` elements, made at `init` and never resized; a value
/// lives in a *slot*, so a caller that keeps wider rows per frame (`PoseWindow`'s features)
/// stores them in parallel storage at the slot `append` returns.
///
/// Why fixed: every capacity here is known when a stream starts (a window, two seconds of
/// history), so the ring allocates once and never again. A growing buffer, or an array that
/// shifts on `removeFirst`, puts allocator work and O(n) moves on the live path of every stream.
public struct FixedRing<Element> {
  /// The most values held.
  public let capacity: Int
  @usableFromInline var storage: [Element]
  /// The slot the next value goes into.
  @usableFromInline var nextSlot: Int
  @usableFromInline var filled = 0

  /// An empty ring; `filler` only initialises the storage and is never read as a value.
  @inlinable
  public init(capacity: Int, repeating filler: Element) {
    self.init(capacity: capacity, repeating: filler, startSlot: 0)
  }

  /// A ring whose first value lands in `startSlot`, so tests can cover every start slot.
  @inlinable
  package init(capacity: Int, repeating filler: Element, startSlot: Int) {
    precondition(capacity > 0, "a ring needs a capacity above 0")
    precondition(
      (0..<capacity).contains(startSlot), "start slot \(startSlot) outside 0..<\(capacity)")
    self.capacity = capacity
    storage = Array(repeating: filler, count: capacity)
    nextSlot = startSlot
  }

  /// How many values are held (at most `capacity`).
  @inlinable
  public var count: Int { filled }
  @inlinable
  public var isFull: Bool { count == capacity }

  /// The slot that will hold the next appended value.
  @inlinable
  public var slotForNext: Int { nextSlot }

  /// Appends a value, overwriting the oldest when full.
  ///
  /// - Returns: the value that was overwritten, if the ring was full.
  @inlinable
  @discardableResult
  public mutating func append(_ value: Element) -> Element? {
    var evicted: Element?
    if filled == capacity {
      evicted = storage[nextSlot]
    } else {
      filled += 1
    }
    storage[nextSlot] = value
    nextSlot = nextSlot + 1 == capacity ? 0 : nextSlot + 1
    return evicted
  }

  /// The slot of the value `age` appends back (0: the newest).
  @inlinable
  public func slot(age: Int) -> Int {
    precondition((0..<count).contains(age), "age \(age) outside 0..<\(count)")
    let slot = nextSlot - 1 - age
    return slot < 0 ? slot + capacity : slot
  }

  /// The value `age` appends back (0: the newest).
  @inlinable
  public subscript(age age: Int) -> Element {
    get { storage[slot(age: age)] }
    set { storage[slot(age: age)] = newValue }
  }

  /// Forgets the oldest value (a trail that keeps only the recent past).
  @inlinable
  public mutating func removeOldest() {
    precondition(filled > 0, "removeOldest on an empty ring")
    filled -= 1
  }

  /// Forgets every value; the storage stays.
  @inlinable
  public mutating func removeAll() { filled = 0 }

}

/// The values oldest first: `ring.first` is the oldest, `ring.last` the newest, and `for value
/// in ring` walks from one to the other without allocating.
extension FixedRing: RandomAccessCollection {
  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { filled }

  /// The value at `position` from the oldest (0) to the newest (`count - 1`).
  @inlinable
  public subscript(position: Int) -> Element { self[age: filled - 1 - position] }
}

extension FixedRing: Sendable where Element: Sendable {}
