import Foundation

/// Feature version 2's additions to the joint positions: what changes less with the camera's
/// angle than where the joints fall in the image. A squat filmed from the front and from the
/// side puts its knees in different places, but bends them alike and keeps the thighs
/// pointing down the body; a phone on the floor tilts the image, but not the body's own frame.
///
/// The 34 values, after version 1's 54 (all 0 where a joint they need is missing):
/// - 0..<8: joint angles, the inside angle in units of π (0 folded, 1 straight), in the order
///   of `angles`: right elbow, left elbow (shoulder–elbow–wrist), right shoulder, left
///   shoulder (hip–shoulder–elbow), right hip, left hip (shoulder–hip–knee), right knee, left
///   knee (hip–knee–ankle).
/// - 8..<24: limb directions in the body's frame, (across, up) per limb, unit length, in the
///   order of `limbs`: right upper arm, right forearm, left upper arm, left forearm, right
///   thigh, right shin, left thigh, left shin. "Up" points from the hip centre to the neck;
///   "across" is up turned a quarter to the image's right. Without a torso, the image's axes
///   (up the image, across to its right).
/// - 24..<32: the same limbs' lengths in body sizes (short when a limb points at the camera).
/// - 32..<34: the torso's direction in the image (x, y; y down), unit length: upright, lying
///   or bent over; 0 without a torso.
public enum BodyFrameFeatures {
  public static let count = 34

  /// Each limb, from the joint nearer the trunk to the one further out.
  private static let limbs: [(from: CanonicalJoint, to: CanonicalJoint)] = [
    (.rightShoulder, .rightElbow), (.rightElbow, .rightWrist),
    (.leftShoulder, .leftElbow), (.leftElbow, .leftWrist),
    (.rightHip, .rightKnee), (.rightKnee, .rightAnkle),
    (.leftHip, .leftKnee), (.leftKnee, .leftAnkle),
  ]

  /// Each angle's three joints, the angle at the middle one.
  private static let angles: [(CanonicalJoint, CanonicalJoint, CanonicalJoint)] = [
    (.rightShoulder, .rightElbow, .rightWrist), (.leftShoulder, .leftElbow, .leftWrist),
    (.rightHip, .rightShoulder, .rightElbow), (.leftHip, .leftShoulder, .leftElbow),
    (.rightShoulder, .rightHip, .rightKnee), (.leftShoulder, .leftHip, .leftKnee),
    (.rightHip, .rightKnee, .rightAnkle), (.leftHip, .leftKnee, .leftAnkle),
  ]

  /// Writes the 34 values for `pose` into `out`, lengths divided by `scale` (the body size).
  static func extract(
    _ pose: Pose, threshold: Float, scale: Float, into out: UnsafeMutableBufferPointer<Float>
  ) {
    precondition(out.count == count)
    func seen(_ joint: CanonicalJoint) -> Joint? {
      let found = pose[joint]
      return found.confidence > threshold ? found : nil
    }
    for (index, (a, b, c)) in angles.enumerated() {
      out[index] = 0
      guard let a = seen(a), let b = seen(b), let c = seen(c) else { continue }
      let (ux, uy, vx, vy) = (a.x - b.x, a.y - b.y, c.x - b.x, c.y - b.y)
      let cross = ux * vy - uy * vx
      let dot = ux * vx + uy * vy
      guard cross != 0 || dot != 0 else { continue }
      out[index] = atan2f(abs(cross), dot) / .pi
    }
    let torso = torsoDirection(pose, threshold: threshold)
    // Up is the torso's direction; across, up turned a quarter towards the image's right
    // (y points down, so (−up.y, up.x)).
    let (upX, upY) = torso ?? (0, -1)
    let (acrossX, acrossY) = (-upY, upX)
    let inverse = scale > 0 ? 1 / scale : 1
    for (index, limb) in limbs.enumerated() {
      out[8 + 2 * index] = 0
      out[9 + 2 * index] = 0
      out[24 + index] = 0
      guard let from = seen(limb.from), let to = seen(limb.to) else { continue }
      let (dx, dy) = (to.x - from.x, to.y - from.y)
      let length = (dx * dx + dy * dy).squareRoot()
      guard length > 0 else { continue }
      out[8 + 2 * index] = (dx * acrossX + dy * acrossY) / length
      out[9 + 2 * index] = (dx * upX + dy * upY) / length
      out[24 + index] = length * inverse
    }
    out[32] = torso?.x ?? 0
    out[33] = torso?.y ?? 0
  }

  /// The unit vector from the hip centre (or the one hip seen) to the neck (or the shoulders'
  /// midpoint, or the one shoulder seen), if the pose shows both ends.
  static func torsoDirection(_ pose: Pose, threshold: Float) -> (x: Float, y: Float)? {
    guard let hip = midpoint(pose, .rightHip, .leftHip, threshold: threshold),
      let top = pose[.neck].confidence > threshold
        ? (pose[.neck].x, pose[.neck].y)
        : midpoint(pose, .rightShoulder, .leftShoulder, threshold: threshold)
    else { return nil }
    let (dx, dy) = (top.0 - hip.0, top.1 - hip.1)
    let length = (dx * dx + dy * dy).squareRoot()
    return length > 0 ? (dx / length, dy / length) : nil
  }

  /// The midpoint of two joints, the one seen, or nil.
  private static func midpoint(
    _ pose: Pose, _ first: CanonicalJoint, _ second: CanonicalJoint, threshold: Float
  ) -> (Float, Float)? {
    let (a, b) = (pose[first], pose[second])
    switch (a.confidence > threshold, b.confidence > threshold) {
    case (true, true): return ((a.x + b.x) / 2, (a.y + b.y) / 2)
    case (true, false): return (a.x, a.y)
    case (false, true): return (b.x, b.y)
    case (false, false): return nil
    }
  }
}
