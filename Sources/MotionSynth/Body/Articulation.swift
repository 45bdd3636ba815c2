import Foundation
import Poses

/// How the body is held at one instant: segment directions and trunk angles, in the body frame.
///
/// Limb directions are absolute, not joint angles: `Limb(flexion:abduction:)` starts from
/// hanging straight down, swings out to the side by `abduction` and forward by `flexion`
/// (degrees). Arms are given in the trunk's frame (they follow a lean); legs in the pelvis's.
public struct Articulation: Sendable {
  /// A segment's direction: (side · sin a, −cos a · cos f, cos a · sin f) for abduction a and
  /// flexion f. Flexion 90 points forward, 180 up; abduction 90 points out to the side.
  public struct Limb: Sendable {
    public var flexion: Double
    public var abduction: Double

    public init(flexion: Double = 0, abduction: Double = 0) {
      self.flexion = flexion
      self.abduction = abduction
    }

    func direction(side: Double) -> Vector3 {
      let (f, a) = (radians(flexion), radians(abduction))
      return Vector3(side * sin(a), -cos(a) * cos(f), cos(a) * sin(f))
    }

    /// Linear blend towards `other`.
    func mixed(_ other: Limb, _ amount: Double) -> Limb {
      Limb(
        flexion: flexion + (other.flexion - flexion) * amount,
        abduction: abduction + (other.abduction - abduction) * amount)
    }
  }

  /// Forward lean of the trunk from upright (degrees).
  public var trunkFlexion: Double = 0
  /// Sideways lean of the trunk towards the person's left (degrees; negative: right).
  public var trunkTilt: Double = 0
  /// Head nod forward (degrees), relative to the trunk.
  public var headFlexion: Double = 0
  public var leftUpperArm = Limb(abduction: 8)
  public var leftForearm = Limb(flexion: 10, abduction: 6)
  public var rightUpperArm = Limb(abduction: 8)
  public var rightForearm = Limb(flexion: 10, abduction: 6)
  public var leftThigh = Limb(abduction: 3)
  public var leftShin = Limb(abduction: 3)
  public var rightThigh = Limb(abduction: 3)
  public var rightShin = Limb(abduction: 3)

  public init() {}

  /// Standing upright, arms relaxed at the sides.
  public static let standing = Articulation()

  /// Every angle blended linearly towards `other`.
  public func mixed(_ other: Articulation, _ amount: Double) -> Articulation {
    var result = self
    result.trunkFlexion += (other.trunkFlexion - trunkFlexion) * amount
    result.trunkTilt += (other.trunkTilt - trunkTilt) * amount
    result.headFlexion += (other.headFlexion - headFlexion) * amount
    result.leftUpperArm = leftUpperArm.mixed(other.leftUpperArm, amount)
    result.leftForearm = leftForearm.mixed(other.leftForearm, amount)
    result.rightUpperArm = rightUpperArm.mixed(other.rightUpperArm, amount)
    result.rightForearm = rightForearm.mixed(other.rightForearm, amount)
    result.leftThigh = leftThigh.mixed(other.leftThigh, amount)
    result.leftShin = leftShin.mixed(other.leftShin, amount)
    result.rightThigh = rightThigh.mixed(other.rightThigh, amount)
    result.rightShin = rightShin.mixed(other.rightShin, amount)
    return result
  }

  /// Both sides' limbs swapped: the same movement led by the other side.
  public var mirrored: Articulation {
    var result = self
    result.trunkTilt = -trunkTilt
    (result.leftUpperArm, result.rightUpperArm) = (rightUpperArm, leftUpperArm)
    (result.leftForearm, result.rightForearm) = (rightForearm, leftForearm)
    (result.leftThigh, result.rightThigh) = (rightThigh, leftThigh)
    (result.leftShin, result.rightShin) = (rightShin, leftShin)
    return result
  }

  /// The 18 canonical joints in the body frame, the hip centre at the origin.
  func joints(for body: BodyShape) -> [Vector3] {
    var joints = [Vector3](repeating: .zero, count: CanonicalJoint.count)
    func set(_ joint: CanonicalJoint, _ point: Vector3) { joints[joint.rawValue] = point }
    // Trunk: lean forward (about x), then sideways (about z).
    func trunk(_ v: Vector3) -> Vector3 {
      v.rotatedX(radians(trunkFlexion)).rotatedZ(radians(trunkTilt))
    }
    let neck = trunk(Vector3(0, body.torso, 0))
    set(.neck, neck)
    for (side, shoulderJoint, elbowJoint, wristJoint, upper, fore) in [
      (
        1.0, CanonicalJoint.leftShoulder, CanonicalJoint.leftElbow, CanonicalJoint.leftWrist,
        leftUpperArm, leftForearm
      ),
      (-1.0, .rightShoulder, .rightElbow, .rightWrist, rightUpperArm, rightForearm),
    ] {
      let shoulder = neck + trunk(Vector3(side * body.shoulderHalfWidth, -0.02 * body.height, 0))
      let elbow = shoulder + trunk(upper.direction(side: side)) * body.upperArm
      let wrist = elbow + trunk(fore.direction(side: side)) * body.forearm
      set(shoulderJoint, shoulder)
      set(elbowJoint, elbow)
      set(wristJoint, wrist)
    }
    for (side, hipJoint, kneeJoint, ankleJoint, thigh, shin) in [
      (
        1.0, CanonicalJoint.leftHip, CanonicalJoint.leftKnee, CanonicalJoint.leftAnkle, leftThigh,
        leftShin
      ),
      (-1.0, .rightHip, .rightKnee, .rightAnkle, rightThigh, rightShin),
    ] {
      let hip = Vector3(side * body.hipHalfWidth, 0, 0)
      let knee = hip + thigh.direction(side: side) * body.thigh
      let ankle = knee + shin.direction(side: side) * body.shin
      set(hipJoint, hip)
      set(kneeJoint, knee)
      set(ankleJoint, ankle)
    }
    // Head: nodding about the neck, on top of the trunk's lean.
    func head(_ v: Vector3) -> Vector3 { neck + trunk(v.rotatedX(radians(headFlexion))) }
    let h = body.neckToHead
    set(.nose, head(Vector3(0, 0.75 * h, 0.55 * h)))
    set(.leftEye, head(Vector3(0.18 * h, 0.95 * h, 0.45 * h)))
    set(.rightEye, head(Vector3(-0.18 * h, 0.95 * h, 0.45 * h)))
    set(.leftEar, head(Vector3(0.42 * h, 0.85 * h, 0)))
    set(.rightEar, head(Vector3(-0.42 * h, 0.85 * h, 0)))
    return joints
  }
}

extension Articulation {
  /// An arm's two segments.
  public typealias Arm = (upper: Limb, fore: Limb)

  /// Hands resting on the hips.
  static let handsOnHips: Arm = (
    Limb(flexion: -15, abduction: 35), Limb(flexion: 20, abduction: -35)
  )
  /// Arms crossed on the chest.
  static let armsCrossed: Arm = (
    Limb(flexion: 35, abduction: 15), Limb(flexion: 90, abduction: -70)
  )
  /// Hands behind the head, elbows out.
  static let handsBehindHead: Arm = (
    Limb(flexion: 150, abduction: 60), Limb(flexion: 200, abduction: -60)
  )

  /// Both arms held the same way.
  mutating func setBothArms(_ arm: Arm) {
    (leftUpperArm, leftForearm) = arm
    (rightUpperArm, rightForearm) = arm
  }

  /// Each forearm in line with its upper arm's plane, bent `degrees` further at the elbow.
  mutating func forearmsFollowUpperArms(bentBy degrees: Double) {
    leftForearm = Limb(
      flexion: leftUpperArm.flexion + degrees, abduction: leftUpperArm.abduction)
    rightForearm = Limb(
      flexion: rightUpperArm.flexion + degrees, abduction: rightUpperArm.abduction)
  }

  /// One arm.
  mutating func setArm(_ side: RepTimeline.Side, upper: Limb, fore: Limb) {
    if side == .left {
      (leftUpperArm, leftForearm) = (upper, fore)
    } else {
      (rightUpperArm, rightForearm) = (upper, fore)
    }
  }
}
