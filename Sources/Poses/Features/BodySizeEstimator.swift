/// A robust, causal estimate of how big the person is in the image, in the image's units: the
/// scale that features and rep signals divide by, so they read the same near and far.
///
/// Each frame measures the segments it can see, each divided by its typical share of the
/// neck-to-hip torso (torso 1, shoulder width 0.75, upper arm 0.6, thigh and shin 0.85), and
/// takes the largest, since foreshortening only ever shortens a segment. The estimate is the
/// median of the last `history` measurements: one bad frame cannot move it, and it follows a
/// person who walks closer within a couple of seconds. Allocates nothing per frame.
public struct BodySizeEstimator: Sendable {
  public var history: Int { sizes.capacity }
  public let threshold: Float
  /// The last `history` measurements.
  private var sizes: RunningMedian

  public init(history: Int = 60, threshold: Float = 0.1) {
    precondition(history >= 1)
    self.threshold = threshold
    sizes = RunningMedian(capacity: history)
  }

  public mutating func reset() { sizes.removeAll() }

  /// The running median, if any frame has measured the body.
  public var current: Float? { sizes.median }

  /// Takes one frame's pose and returns the size to use for it: the running median, or for a
  /// first frame with no measurable segment, a third of its joints' bounding-box diagonal.
  public mutating func update(with pose: Pose) -> Float {
    if let measured = Self.measure(pose, threshold: threshold) { sizes.add(measured) }
    return current ?? Self.fallback(pose, threshold: threshold)
  }

  /// Segments and their typical length as a share of the torso (neck to hip centre).
  static let segments: [(CanonicalJoint, CanonicalJoint, Float)] = [
    (.rightShoulder, .leftShoulder, 0.75),
    (.rightShoulder, .rightElbow, 0.6), (.leftShoulder, .leftElbow, 0.6),
    (.rightHip, .rightKnee, 0.85), (.leftHip, .leftKnee, 0.85),
    (.rightKnee, .rightAnkle, 0.85), (.leftKnee, .leftAnkle, 0.85),
  ]

  /// This frame's body size in torso lengths: the largest of what its segments imply.
  public static func measure(_ pose: Pose, threshold: Float) -> Float? {
    func seen(_ joint: CanonicalJoint) -> Joint? {
      let value = pose[joint]
      return value.confidence > threshold ? value : nil
    }
    func distance(_ a: Joint, _ b: Joint) -> Float {
      ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }
    var best: Float = 0
    if let neck = seen(.neck), let right = seen(.rightHip), let left = seen(.leftHip) {
      best = distance(neck, Pose.midpoint(right, left))
    }
    for (a, b, share) in segments {
      if let ja = seen(a), let jb = seen(b) { best = max(best, distance(ja, jb) / share) }
    }
    return best > 0 && best.isFinite ? best : nil
  }

  /// A third of the present joints' bounding-box diagonal, or 1 when they are all at one point.
  static func fallback(_ pose: Pose, threshold: Float) -> Float {
    var (minX, minY, maxX, maxY) = (
      Float.infinity, Float.infinity, -Float.infinity, -Float.infinity
    )
    for index in pose.joints.indices where pose.joints[index].confidence > threshold {
      let joint = pose.joints[index]
      (minX, maxX) = (min(minX, joint.x), max(maxX, joint.x))
      (minY, maxY) = (min(minY, joint.y), max(maxY, joint.y))
    }
    let diagonal = ((maxX - minX) * (maxX - minX) + (maxY - minY) * (maxY - minY)).squareRoot()
    return diagonal > 0 && diagonal.isFinite ? diagonal / 3 : 1
  }
}
