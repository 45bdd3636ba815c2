/// Computes one frame's features when the frame arrives, from that frame and a running median
/// of the body size over the recent past (DESIGN §6).
///
/// Features are causal and final: a frame's features never change afterwards, which is what
/// lets the streaming network cache activations and equal the window forward pass. The trainer
/// runs the same extractor frame by frame over a whole clip before it cuts windows.
///
/// Centre: the midpoint of the hips, else the one hip seen, else the neck, else the mean of the
/// present joints. Body size: each frame measures the segments it can see, each divided by its
/// typical share of the neck-to-hip torso (torso 1, shoulder width 0.75, upper arm 0.6, thigh
/// and shin 0.85), and takes the largest, since foreshortening only ever shortens a segment;
/// the size used is the median of the last `scaleHistory` measurements. Allocates nothing per
/// frame.
public struct FeatureExtractor: Sendable {
  public let spec: FeatureSpec
  private var history: [Float]
  private var sorted: [Float]
  private var next = 0

  public init(spec: FeatureSpec = FeatureSpec()) {
    self.spec = spec
    history = []
    history.reserveCapacity(spec.scaleHistory)
    sorted = []
    sorted.reserveCapacity(spec.scaleHistory)
  }

  /// Forgets the body-size history, as at the start of a new stream.
  public mutating func reset() {
    history.removeAll(keepingCapacity: true)
    sorted.removeAll(keepingCapacity: true)
    next = 0
  }

  /// The current body size estimate (the running median), if any frame has measured one.
  public var bodySize: Float? {
    sorted.isEmpty ? nil : sorted[sorted.count / 2]
  }

  /// Writes the features of `pose` into `out` (F = 54 floats).
  public mutating func extract(_ pose: Pose, into out: UnsafeMutableBufferPointer<Float>) {
    precondition(out.count == FeatureSpec.featuresPerFrame, "features need F = 54 floats")
    let threshold = spec.presenceThreshold
    var present = 0
    for index in pose.joints.indices where pose.joints[index].confidence > threshold {
      present += 1
    }
    guard present > 0 else {
      out.update(repeating: 0)
      return
    }
    if let measured = Self.measureSize(pose, threshold: threshold) { record(measured) }
    let size = bodySize ?? Self.fallbackSize(pose, threshold: threshold)
    let (cx, cy) = Self.centre(pose, threshold: threshold)
    let inverse = size > 0 ? 1 / size : 1
    let J = CanonicalJoint.count
    for j in 0..<J {
      let joint = pose.joints[j]
      if joint.confidence > threshold {
        out[j] = (joint.x - cx) * inverse
        out[J + j] = (joint.y - cy) * inverse
        out[2 * J + j] = 1
      } else {
        out[j] = 0
        out[J + j] = 0
        out[2 * J + j] = 0
      }
    }
  }

  /// Adds one size measurement, dropping the oldest once the history is full.
  private mutating func record(_ size: Float) {
    if history.count < spec.scaleHistory {
      history.append(size)
    } else {
      let old = history[next]
      history[next] = size
      sorted.remove(at: Self.insertionIndex(of: old, in: sorted))
    }
    next = (next + 1) % spec.scaleHistory
    sorted.insert(size, at: Self.insertionIndex(of: size, in: sorted))
  }

  /// The first index whose value is not less than `value` (binary search).
  private static func insertionIndex(of value: Float, in array: [Float]) -> Int {
    var low = 0
    var high = array.count
    while low < high {
      let mid = (low + high) / 2
      if array[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// Segments and their typical length as a share of the torso (neck to hip centre).
  private static let segments: [(CanonicalJoint, CanonicalJoint, Float)] = [
    (.rightShoulder, .leftShoulder, 0.75),
    (.rightShoulder, .rightElbow, 0.6), (.leftShoulder, .leftElbow, 0.6),
    (.rightHip, .rightKnee, 0.85), (.leftHip, .leftKnee, 0.85),
    (.rightKnee, .rightAnkle, 0.85), (.leftKnee, .leftAnkle, 0.85),
  ]

  /// This frame's body size in torso lengths: the largest of what its segments imply.
  static func measureSize(_ pose: Pose, threshold: Float) -> Float? {
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

  /// For a first frame with no measurable segment: a third of the present joints' bounding
  /// box diagonal, or 1 when they are all at one point.
  static func fallbackSize(_ pose: Pose, threshold: Float) -> Float {
    var (minX, minY, maxX, maxY) = (
      Float.infinity, Float.infinity, -Float.infinity, -Float.infinity
    )
    for index in pose.joints.indices where pose.joints[index].confidence > threshold {
      let joint = pose.joints[index]
      (minX, maxX) = (min(minX, joint.x), max(maxX, joint.x))
      (minY, maxY) = (min(minY, joint.y), max(maxY, joint.y))
    }
    let diagonal = ((maxX - minX) * (maxX - minX) + (maxY - minY) * (maxY - minY)).squareRoot()
    return diagonal > 0 ? diagonal / 3 : 1
  }

  static func centre(_ pose: Pose, threshold: Float) -> (Float, Float) {
    let right = pose[.rightHip]
    let left = pose[.leftHip]
    let rightSeen = right.confidence > threshold
    let leftSeen = left.confidence > threshold
    if rightSeen && leftSeen { return ((right.x + left.x) / 2, (right.y + left.y) / 2) }
    if rightSeen { return (right.x, right.y) }
    if leftSeen { return (left.x, left.y) }
    let neck = pose[.neck]
    if neck.confidence > threshold { return (neck.x, neck.y) }
    var (sumX, sumY, count): (Float, Float, Float) = (0, 0, 0)
    for index in pose.joints.indices where pose.joints[index].confidence > threshold {
      sumX += pose.joints[index].x
      sumY += pose.joints[index].y
      count += 1
    }
    return (sumX / count, sumY / count)
  }
}
