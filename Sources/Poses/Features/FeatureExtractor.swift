/// Computes one frame's features when the frame arrives, from that frame and a running median
/// of the body size over the recent past (README, "How it works").
///
/// Features are causal and final: a frame's features never change afterwards, which is what
/// lets the streaming network cache activations and equal the window forward pass. The trainer
/// runs the same extractor frame by frame over a whole clip before it cuts windows.
///
/// Centre: the midpoint of the hips, else the one hip seen, else the neck, else the mean of the
/// present joints. Body size: `BodySizeEstimator`'s running median over `scaleHistory` frames.
/// Allocates nothing per frame.
public struct FeatureExtractor: Sendable {
  public let spec: FeatureSpec
  private var size: BodySizeEstimator

  public init(spec: FeatureSpec = FeatureSpec()) {
    self.spec = spec
    size = BodySizeEstimator(history: spec.scaleHistory, threshold: spec.presenceThreshold)
  }

  /// Forgets the body-size history, as at the start of a new stream.
  public mutating func reset() { size.reset() }

  /// The current body size estimate (the running median), if any frame has measured one.
  public var bodySize: Float? { size.current }

  /// Writes the features of `pose` into `out` (F = `spec.featuresPerFrame` floats).
  public mutating func extract(_ pose: Pose, into out: UnsafeMutableBufferPointer<Float>) {
    precondition(
      out.count == spec.featuresPerFrame,
      "features need F = \(spec.featuresPerFrame) floats, not \(out.count)")
    let threshold = spec.presenceThreshold
    guard pose.presentCount(threshold: threshold) > 0 else {
      out.update(repeating: 0)
      return
    }
    let scale = size.update(with: pose)
    let (cx, cy) = Self.centre(pose, threshold: threshold)
    let inverse = scale > 0 ? 1 / scale : 1
    let jointCount = CanonicalJoint.count
    for j in 0..<jointCount {
      let joint = pose.joints[j]
      if joint.confidence > threshold {
        out[j] = (joint.x - cx) * inverse
        out[jointCount + j] = (joint.y - cy) * inverse
        out[2 * jointCount + j] = 1
      } else {
        out[j] = 0
        out[jointCount + j] = 0
        out[2 * jointCount + j] = 0
      }
    }
    if spec.addsBodyFrame {
      BodyFrameFeatures.extract(
        pose, threshold: threshold, scale: scale,
        into: UnsafeMutableBufferPointer(rebasing: out[FeatureSpec.positionFeatures...]))
    }
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
