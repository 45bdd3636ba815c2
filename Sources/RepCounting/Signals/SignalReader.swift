import Foundation
import Poses

/// A `SignalSpec` made ready to read frames: joints resolved, side logic in place.
struct SignalReader: Sendable {
  let spec: SignalSpec
  let references: [JointReference]
  private let sided: Bool
  /// For `most_confident`: the side followed now, kept until the other is clearly better.
  private var followedSide: SideChoice = .left
  private var leftMemory: (value: Double, age: Int)?
  /// The right side's value minus the left's, smoothed, and frames since both were seen.
  private var sideGap: (value: Double, age: Int)?
  /// Median-of-three filters per side: a single wild frame (a hidden joint's guess) is dropped
  /// before sides are combined, where a `max` would pass it on.
  private var leftFilter = MedianOfThree()
  private var rightFilter = MedianOfThree()
  private var centreFilter = MedianOfThree()
  /// Per reference, for pair centres: half the last left-to-right vector, in body sizes.
  private var centreMemory = CentreMemory()
  private var rightMemory: (value: Double, age: Int)?
  /// For `max` and `min` with both sides seen: the side whose value was taken in the last
  /// frame, which for an alternating exercise is the side that moves.
  private(set) var leadingSide: SideChoice?

  init(spec: SignalSpec, references: [JointReference]) {
    self.spec = spec
    self.references = references
    sided = references.contains { $0.isSided }
  }

  /// The signal's value in this frame, or nil when a joint it needs is missing or unsure.
  ///
  /// - Parameter bodySize: the person's size in the image, for offsets and distances.
  mutating func value(_ pose: Pose, bodySize: Float, minConfidence: Float) -> Double? {
    guard let value = combined(pose, bodySize: bodySize, minConfidence: minConfidence) else {
      return nil
    }
    guard spec.absolute == true else { return value }
    // The size of the departure from the resting level: the mean over the last seconds, which
    // movements to either side balance out. Seen from above and to one side, the far shoulder
    // sits higher even at rest; measured from zero, a tilt towards it would shrink the value.
    let rest = restingLevel.map { $0 + Self.restingWeight * (value - $0) } ?? value
    restingLevel = rest
    return abs(value - rest)
  }

  /// For `absolute`: the signed value's slow mean (about five seconds at 30 fps).
  private var restingLevel: Double?
  static let restingWeight = 1.0 / 150

  /// Forgets everything seen: the person moved (or a new stream began) and is learned afresh.
  mutating func restart() {
    self = SignalReader(spec: spec, references: references)
  }

  /// Forgets the last few frames (the spike filters, a hidden side's held value), keeping
  /// what was learned about the person: for a stream that resumes after a gap.
  mutating func forgetRecent() {
    leftFilter = MedianOfThree()
    rightFilter = MedianOfThree()
    centreFilter = MedianOfThree()
    leftMemory = nil
    rightMemory = nil
  }

  private mutating func combined(_ pose: Pose, bodySize: Float, minConfidence: Float) -> Double? {
    leadingSide = nil
    guard sided else {
      return centreFilter.filter(
        measure(pose, side: nil, bodySize: bodySize, minConfidence: minConfidence))
    }
    var left = held(
      leftFilter.filter(
        measure(pose, side: .left, bodySize: bodySize, minConfidence: minConfidence)), &leftMemory)
    var right = held(
      rightFilter.filter(
        measure(pose, side: .right, bodySize: bodySize, minConfidence: minConfidence)), &rightMemory
    )
    // One side hidden for longer than the hold: estimate it from the other and the gap last
    // seen between them (they differ by perspective), so combining sides does not jump each
    // time the far side comes and goes.
    if let l = left, let r = right {
      let gap: Double = r - l
      let smoothed: Double = sideGap.map { $0.value + 0.1 * (gap - $0.value) } ?? gap
      sideGap = (smoothed, 0)
    } else if let gap = sideGap, gap.age < 90 {
      sideGap = (gap.value, gap.age + 1)
      if let l = left { right = l + gap.value } else if let r = right { left = r - gap.value }
    }
    switch spec.side ?? .mean {
    case .left: return left
    case .right: return right
    case .mean:
      guard let left else { return right }
      guard let right else { return left }
      return (left + right) / 2
    case .min:
      guard let left else { return right }
      guard let right else { return left }
      leadingSide = left <= right ? .left : .right
      return Swift.min(left, right)
    case .max:
      guard let left else { return right }
      guard let right else { return left }
      leadingSide = left >= right ? .left : .right
      return Swift.max(left, right)
    case .mostConfident:
      let leftConfidence = sideConfidence(pose, .left)
      let rightConfidence = sideConfidence(pose, .right)
      let (current, other): (Float, Float) =
        followedSide == .left
        ? (leftConfidence, rightConfidence) : (rightConfidence, leftConfidence)
      let currentValue = followedSide == .left ? left : right
      if currentValue == nil || other > current + 0.15 {
        followedSide = followedSide == .left ? .right : .left
      }
      return followedSide == .left ? left : right
    }
  }

  /// Reference `index`'s point. A pair's centre with one side hidden (the far hip, seen at an
  /// angle) is the visible side plus the offset to the centre last seen with both, for up to
  /// three seconds, rather than nothing: a turned body still has a middle.
  private mutating func point(
    _ index: Int, _ pose: Pose, side: SideChoice?, bodySize: Float, minConfidence: Float
  ) -> Joint? {
    let reference = references[index]
    guard case .centre(let left, let right) = reference else {
      return reference.point(in: pose, side: side, minConfidence: minConfidence)
    }
    let l = pose[left]
    let r = pose[right]
    let leftSeen = l.confidence >= minConfidence && l.confidence > 0
    let rightSeen = r.confidence >= minConfidence && r.confidence > 0
    let scale = max(bodySize, 1e-6)
    if leftSeen && rightSeen {
      let centre = Joint(
        x: (l.x + r.x) / 2, y: (l.y + r.y) / 2, confidence: min(l.confidence, r.confidence))
      centreMemory[index] = ((r.x - l.x) / 2 / scale, (r.y - l.y) / 2 / scale, 0)
      return centre
    }
    guard var memory = centreMemory[index], memory.age < 90, leftSeen || rightSeen else {
      return nil
    }
    memory.age += 1
    centreMemory[index] = memory
    let sign: Float = leftSeen ? 1 : -1  // the offset runs from the left joint to the centre
    let seen = leftSeen ? l : r
    return Joint(
      x: seen.x + sign * memory.dx * scale, y: seen.y + sign * memory.dy * scale,
      confidence: seen.confidence)
  }

  /// A side's value, or for a few frames after it goes missing its last value: a far-side
  /// joint that flickers below the confidence gate would otherwise make `max` or `mean` jump
  /// between one side and both.
  private func held(_ value: Double?, _ memory: inout (value: Double, age: Int)?) -> Double? {
    if let value {
      memory = (value, 0)
      return value
    }
    guard let last = memory, last.age < Self.holdFrames else {
      memory = nil
      return nil
    }
    memory = (last.value, last.age + 1)
    return last.value
  }

  /// The shortest segment, in body sizes, whose `inclination` is measured.
  static let shortestInclined: Float = 0.3

  /// Frames a missing side keeps its last value (a third of a second at 30 fps).
  static let holdFrames = 10

  private func sideConfidence(_ pose: Pose, _ side: SideChoice) -> Float {
    var lowest: Float = 1
    for reference in references {
      lowest = Swift.min(lowest, reference.confidence(in: pose, side: side))
    }
    return lowest
  }

  private mutating func measure(
    _ pose: Pose, side: SideChoice?, bodySize: Float, minConfidence: Float
  ) -> Double? {
    func joint(_ index: Int) -> Joint? {
      point(index, pose, side: side, bodySize: bodySize, minConfidence: minConfidence)
    }
    switch spec.kind {
    case .angle:
      guard let a = joint(0), let b = joint(1), let c = joint(2) else { return nil }
      return Self.angle(a, b, c)
    case .inclination:
      guard let a = joint(0), let b = joint(1) else { return nil }
      // A segment seen end-on (a thigh swung back, a trunk right under a camera high above)
      // is a few pixels long, and its direction is the detector's jitter.
      let shortest = Self.shortestInclined * bodySize
      guard Self.length(a, b) >= shortest else { return nil }
      var from = 180.0  // straight down
      if spec.relativeTo != nil {
        guard let c = joint(2), let d = joint(3), Self.length(c, d) >= shortest else {
          return nil
        }
        from = Self.orientation(c, d)
      }
      let difference = abs(Self.orientation(a, b) - from)
      return difference > 180 ? 360 - difference : difference
    case .verticalOffset, .horizontalOffset, .distance:
      guard bodySize > 0, let from = joint(0), let to = joint(1) else { return nil }
      let dx = Double(to.x - from.x)
      let dy = Double(to.y - from.y)
      let scale = Double(bodySize)
      switch spec.kind {
      case .verticalOffset: return -dy / scale  // image y points down: above is positive
      case .horizontalOffset: return abs(dx) / scale
      default: return (dx * dx + dy * dy).squareRoot() / scale
      }
    }
  }

  /// The angle at `b` between `a` and `c`, 0–180°, as atan2(|cross|, dot): accurate near 0°
  /// and 180°, where acos of a dot product loses precision.
  static func angle(_ a: Joint, _ b: Joint, _ c: Joint) -> Double {
    let (ux, uy) = (Double(a.x - b.x), Double(a.y - b.y))
    let (vx, vy) = (Double(c.x - b.x), Double(c.y - b.y))
    return atan2(abs(ux * vy - uy * vx), ux * vx + uy * vy) * 180 / .pi
  }

  static func length(_ a: Joint, _ b: Joint) -> Float {
    let (dx, dy) = (b.x - a.x, b.y - a.y)
    return (dx * dx + dy * dy).squareRoot()
  }

  /// The direction from `a` to `b`, 0–360° clockwise from image-up.
  static func orientation(_ a: Joint, _ b: Joint) -> Double {
    let degrees = atan2(Double(b.x - a.x), -Double(b.y - a.y)) * 180 / .pi
    return degrees < 0 ? degrees + 360 : degrees
  }
}

/// Per reference (a signal has at most four), what a pair's centre was last seen as: half
/// its left-to-right vector, in body sizes, and frames since. Fixed storage rather than an
/// array: a constant array literal is shared, and its first write in a frame would copy it.
struct CentreMemory: Sendable {
  typealias Entry = (dx: Float, dy: Float, age: Int)?
  private var entries: (Entry, Entry, Entry, Entry) = (nil, nil, nil, nil)

  subscript(index: Int) -> Entry {
    get {
      switch index {
      case 0: entries.0
      case 1: entries.1
      case 2: entries.2
      default: entries.3
      }
    }
    set {
      switch index {
      case 0: entries.0 = newValue
      case 1: entries.1 = newValue
      case 2: entries.2 = newValue
      default: entries.3 = newValue
      }
    }
  }
}

/// The median of the last three values seen: removes one-frame spikes, delays by one frame.
struct MedianOfThree: Sendable {
  private var a: Double?
  private var b: Double?

  /// Passes nil through (and forgets), so gaps do not mix old and new values.
  mutating func filter(_ value: Double?) -> Double? {
    guard let value else {
      (a, b) = (nil, nil)
      return nil
    }
    defer { (a, b) = (b, value) }
    guard let a, let b else { return value }
    return Swift.max(Swift.min(a, b), Swift.min(Swift.max(a, b), value))
  }
}
