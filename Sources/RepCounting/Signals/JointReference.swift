import Poses

/// A joint as definitions name it: a canonical joint (`left_knee`, `neck`), one of a pair taken
/// from the side being measured (`knee`), or the midpoint of a pair (`hip_centre`).
enum JointReference: Equatable, Sendable {
  case joint(CanonicalJoint)
  case sided(left: CanonicalJoint, right: CanonicalJoint)
  case centre(CanonicalJoint, CanonicalJoint)

  init?(name: String) {
    if let joint = CanonicalJoint(name: name) {
      self = .joint(joint)
    } else if name.hasSuffix("_centre"), case let base = String(name.dropLast("_centre".count)),
      let left = CanonicalJoint(name: "left_" + base),
      let right = CanonicalJoint(name: "right_" + base)
    {
      self = .centre(left, right)
    } else if let left = CanonicalJoint(name: "left_" + name),
      let right = CanonicalJoint(name: "right_" + name)
    {
      self = .sided(left: left, right: right)
    } else {
      return nil
    }
  }

  var isSided: Bool {
    if case .sided = self { return true }
    return false
  }

  /// The point on `side` (`nil`: the reference must not be sided), if confident enough.
  func point(in pose: Pose, side: SideChoice?, minConfidence: Float) -> Joint? {
    func seen(_ joint: CanonicalJoint) -> Joint? {
      Self.isConfident(pose[joint], minConfidence) ? pose[joint] : nil
    }
    switch self {
    case .joint(let joint): return seen(joint)
    case .sided(let left, let right): return seen(side == .right ? right : left)
    case .centre(let left, let right):
      guard let a = seen(left), let b = seen(right) else { return nil }
      return Joint(
        x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, confidence: min(a.confidence, b.confidence))
    }
  }

  /// Whether the camera sees this reference at all: its joint, or for a pair or a centre
  /// either side's.
  func isSeen(in pose: Pose, minConfidence: Float) -> Bool {
    switch self {
    case .joint(let joint): return Self.isConfident(pose[joint], minConfidence)
    case .sided(let left, let right), .centre(let left, let right):
      return Self.isConfident(pose[left], minConfidence)
        || Self.isConfident(pose[right], minConfidence)
    }
  }

  private static func isConfident(_ joint: Joint, _ minConfidence: Float) -> Bool {
    joint.confidence >= minConfidence && joint.confidence > 0
  }

  /// The confidence of the joint(s) behind this reference on `side`.
  func confidence(in pose: Pose, side: SideChoice) -> Float {
    switch self {
    case .joint(let joint): return pose[joint].confidence
    case .sided(let left, let right): return pose[side == .right ? right : left].confidence
    case .centre(let left, let right): return min(pose[left].confidence, pose[right].confidence)
    }
  }

  /// All the canonical joint names this reference may read, for listings.
  static var allowedNames: String {
    "a canonical joint (left_knee, neck, …), a side-free pair name (knee, hip, …) or a pair's "
      + "centre (hip_centre, …)"
  }
}

/// Which side of the body a signal is read from.
enum SideChoice: Sendable { case left, right }
