/// One detected joint: image coordinates and the detector's confidence.
///
/// Confidence 0 means missing; coordinates of a missing joint mean nothing.
public struct Joint: Equatable, Sendable {
  public var x: Float
  public var y: Float
  public var confidence: Float

  public init(x: Float, y: Float, confidence: Float) {
    self.x = x
    self.y = y
    self.confidence = confidence
  }

  public static let missing = Joint(x: 0, y: 0, confidence: 0)

  public var isMissing: Bool { confidence <= 0 }
}

/// One person's 18 canonical joints (J = 18), stored inline so a pose never allocates.
///
/// Internally y points down (image convention) and units are whatever the source used:
/// features are body-relative, so image size is never needed.
public struct Pose: Equatable, Sendable {
  public var joints: InlineArray<18, Joint>

  public init() { joints = .init(repeating: .missing) }

  /// A pose from C (`spotter.h`): J = 18 (x, y, confidence) float triples in canonical order.
  /// A joint whose confidence is not a positive finite number, or whose x or y is not finite,
  /// is missing.
  public init(triples: UnsafePointer<Float>) {
    self.init()
    for index in 0..<CanonicalJoint.count {
      let confidence = triples[3 * index + 2]
      if confidence > 0 && confidence.isFinite && triples[3 * index].isFinite
        && triples[3 * index + 1].isFinite
      {
        joints[index] = Joint(
          x: triples[3 * index], y: triples[3 * index + 1], confidence: confidence)
      }
    }
  }

  /// The frame where nobody was detected: every joint missing.
  public static let nobody = Pose()

  public subscript(joint: CanonicalJoint) -> Joint {
    get { joints[joint.rawValue] }
    set { joints[joint.rawValue] = newValue }
  }

  /// Whether any joint was detected.
  public var hasPerson: Bool {
    for index in joints.indices where !joints[index].isMissing { return true }
    return false
  }

  /// The number of joints with confidence above `threshold`.
  public func presentCount(threshold: Float = 0) -> Int {
    var count = 0
    for index in joints.indices where joints[index].confidence > threshold { count += 1 }
    return count
  }

  /// The pose with the person's left and right sides swapped and every coordinate kept: the
  /// joints renamed, as `mirrored: true` input needs (a front camera's mirrored image already
  /// shows the body reflected; only its side names are wrong). See `reflected(aboutX:)` for a
  /// body seen in a mirror.
  public var mirrored: Pose {
    var result = Pose()
    for joint in CanonicalJoint.allCases { result[joint.mirrored] = self[joint] }
    return result
  }

  /// The pose as a mirror shows it: x reflected about the vertical line at `centreX` and the
  /// sides swapped, so the person's own left is still called left.
  ///
  /// A person facing the image's left becomes one facing its right, the way a camera on the
  /// other side of them would see them. Renaming the sides alone (`mirrored`) moves no joint,
  /// and features that are centred on the body are the same for every `centreX`.
  public func reflected(aboutX centreX: Float) -> Pose {
    var result = mirrored
    for index in result.joints.indices where !result.joints[index].isMissing {
      result.joints[index].x = 2 * centreX - result.joints[index].x
    }
    return result
  }

  public static func == (lhs: Pose, rhs: Pose) -> Bool {
    for index in lhs.joints.indices where lhs.joints[index] != rhs.joints[index] { return false }
    return true
  }

  /// The midpoint of two joints with the smaller confidence, or missing if either is.
  static func midpoint(_ a: Joint, _ b: Joint) -> Joint {
    guard !a.isMissing, !b.isMissing else { return .missing }
    return Joint(
      x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, confidence: min(a.confidence, b.confidence))
  }
}
