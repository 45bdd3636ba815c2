import Poses

/// A joint whose bend a rehab app follows, read on each side as the angle between its two
/// segments (degrees, 180 straight): the knee between thigh and shin, the hip between trunk and
/// thigh, the elbow between upper arm and forearm, the shoulder between trunk and upper arm.
///
/// In the picture, not in the room: a camera square to the limb's plane (the side for a squat's
/// knee) sees the true angle; one at an angle sees it foreshortened (Sources/RepCounting/README.md
/// gives the measured error by view).
public enum JointAngle: String, CaseIterable, Codable, Sendable {
  case knee, hip, elbow, shoulder

  /// The three joints of `side`, the angle at the middle one.
  public func joints(left: Bool) -> (CanonicalJoint, CanonicalJoint, CanonicalJoint) {
    switch (self, left) {
    case (.knee, true): (.leftHip, .leftKnee, .leftAnkle)
    case (.knee, false): (.rightHip, .rightKnee, .rightAnkle)
    case (.hip, true): (.leftShoulder, .leftHip, .leftKnee)
    case (.hip, false): (.rightShoulder, .rightHip, .rightKnee)
    case (.elbow, true): (.leftShoulder, .leftElbow, .leftWrist)
    case (.elbow, false): (.rightShoulder, .rightElbow, .rightWrist)
    case (.shoulder, true): (.leftHip, .leftShoulder, .leftElbow)
    case (.shoulder, false): (.rightHip, .rightShoulder, .rightElbow)
    }
  }

  /// The angle on one side in this pose, nil when a joint is missing or below `minConfidence`.
  public func degrees(in pose: Pose, left: Bool, minConfidence: Float = 0.3) -> Double? {
    let (a, b, c) = joints(left: left)
    let (ja, jb, jc) = (pose[a], pose[b], pose[c])
    for joint in [ja, jb, jc] where joint.confidence < minConfidence || joint.isMissing {
      return nil
    }
    return SignalReader.angle(ja, jb, jc)
  }
}

/// One side's angle over a rep: where it started (the top) and the farthest it went from there
/// (the bottom), in degrees.
public struct SideAngles: Equatable, Sendable {
  public var top: Double
  public var bottom: Double
  public var range: Double { abs(top - bottom) }

  public init(top: Double, bottom: Double) {
    self.top = top
    self.bottom = bottom
  }
}

/// A rep's joint angles on each side seen.
public struct JointAngles: Equatable, Sendable {
  public var joint: JointAngle
  public var left: SideAngles?
  public var right: SideAngles?
}

/// Follows a joint's angle on both sides, frame by frame, so each rep can report its own: its
/// two extremes between half a second before the rep's start (the engine's smoothed signal
/// leaves the top a little after the joint does) and its end, the top being the one nearer the
/// angle at the rep's start. (Not the one reached first: a person who straightens further at
/// the end of a rep than at its start reaches the far extreme, the bottom, first.) Keeps the
/// last ten seconds (a rep takes at most `max_rep_seconds`, 8 s by default). Allocates nothing
/// per frame.
struct JointAngleTrail {
  let joint: JointAngle
  let minConfidence: Float
  private var trail = FixedRing<(t: Double, left: Double?, right: Double?)>(
    capacity: 320, repeating: (0, nil, nil))

  init(joint: JointAngle, minConfidence: Float) {
    self.joint = joint
    self.minConfidence = minConfidence
  }

  mutating func observe(_ pose: Pose, t: Double) {
    trail.append(
      (
        t, joint.degrees(in: pose, left: true, minConfidence: minConfidence),
        joint.degrees(in: pose, left: false, minConfidence: minConfidence)
      ))
  }

  mutating func reset() { trail.removeAll() }

  /// The angles of the rep from `start` to `end`.
  func angles(from start: Double, to end: Double) -> JointAngles {
    JointAngles(
      joint: joint, left: side(from: start, to: end, \.left),
      right: side(from: start, to: end, \.right))
  }

  private func side(
    from start: Double, to end: Double,
    _ value: KeyPath<(t: Double, left: Double?, right: Double?), Double?>
  ) -> SideAngles? {
    var low: Double?
    var high: Double?
    // The angle seen nearest the rep's start.
    var atStart: (angle: Double, distance: Double)?
    for entry in trail where entry.t >= start - 0.5 && entry.t <= end + 1e-6 {
      guard let angle = entry[keyPath: value] else { continue }
      low = min(low ?? angle, angle)
      high = max(high ?? angle, angle)
      let distance = abs(entry.t - start)
      if atStart == nil || distance < atStart!.distance { atStart = (angle, distance) }
    }
    guard let low, let high, let atStart else { return nil }
    return high - atStart.angle <= atStart.angle - low
      ? SideAngles(top: high, bottom: low)
      : SideAngles(top: low, bottom: high)
  }
}
