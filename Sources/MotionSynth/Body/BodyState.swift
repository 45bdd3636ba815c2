import Foundation
import Poses

/// Where the body is and what holds it up: the placement decides the whole-body orientation and
/// height from the articulation, so a squat lowers the hips because the legs bend, not because a
/// script says so.
public enum Placement: Sendable, Equatable {
  /// On the feet: the lower ankle rests on the floor.
  case standing
  /// Face down on hands and feet (or knees, for knee push-ups): the body pitches until both
  /// ends touch the floor.
  case plank(onKnees: Bool)
  /// On the back, the trunk's lowest point at `height` (0: the floor; 0.45: a bench).
  case supine(height: Double)
  /// Hanging from a bar at `height`: the wrists stay there.
  case hanging(height: Double)
}

/// The whole body at one instant: articulation, placement and where in the room it is.
public struct BodyState: Sendable {
  public var articulation: Articulation
  public var placement: Placement
  /// Facing direction, degrees about the vertical (0: facing +z).
  public var yaw: Double
  /// Position on the floor (x, z), metres.
  public var ground: (x: Double, z: Double)
  /// Height above what the placement gives (a hop), metres.
  public var lift: Double

  public init(
    articulation: Articulation, placement: Placement = .standing, yaw: Double = 0,
    ground: (x: Double, z: Double) = (0, 0), lift: Double = 0
  ) {
    self.articulation = articulation
    self.placement = placement
    self.yaw = yaw
    self.ground = ground
    self.lift = lift
  }

  /// The 18 canonical joints in the world (y up, floor at 0).
  public func worldJoints(for body: BodyShape) -> [Vector3] {
    let local = articulation.joints(for: body)
    let pitch: Double
    switch placement {
    case .standing, .hanging: pitch = 0
    case .supine: pitch = -90
    case .plank(let onKnees):
      pitch = Self.plankPitch(
        local, contact: onKnees ? [.leftKnee, .rightKnee] : [.leftAnkle, .rightAnkle])
    }
    var points = local.map { $0.rotatedX(radians(pitch)) }
    let shift: Double
    switch placement {
    case .standing:
      shift =
        body.ankleHeight
        - min(
          points[CanonicalJoint.leftAnkle.rawValue].y, points[CanonicalJoint.rightAnkle.rawValue].y)
    case .plank(let onKnees):
      let ends: [CanonicalJoint] =
        onKnees
        ? [.leftKnee, .rightKnee, .leftWrist, .rightWrist]
        : [.leftAnkle, .rightAnkle, .leftWrist, .rightWrist]
      shift = 0.05 - ends.map { points[$0.rawValue].y }.min()!
    case .supine(let height):
      let back: [CanonicalJoint] = [.leftHip, .rightHip, .leftShoulder, .rightShoulder]
      shift = height + 0.1 - back.map { points[$0.rawValue].y }.min()!
    case .hanging(let height):
      shift =
        height
        - max(
          points[CanonicalJoint.leftWrist.rawValue].y, points[CanonicalJoint.rightWrist.rawValue].y)
    }
    // What bears the weight stays put: on the feet, the feet (a squat sends the hips back, not
    // the ankles forward); in a plank, the hands (a push-up lowers the chest between them).
    var planted = (x: 0.0, z: 0.0)
    let base: (CanonicalJoint, CanonicalJoint)?
    switch placement {
    case .standing: base = (.leftAnkle, .rightAnkle)
    case .plank: base = (.leftWrist, .rightWrist)
    case .supine, .hanging: base = nil
    }
    if let (left, right) = base {
      let middle = (points[left.rawValue] + points[right.rawValue]) / 2
      planted = (-middle.x, -middle.z)
    }
    points = points.map { $0 + Vector3(planted.x, 0, planted.z) }
    let offset = Vector3(ground.x, shift + lift, ground.z)
    points = points.map { $0.rotatedY(radians(yaw)) + offset }
    return points
  }

  /// The person's left-pointing axis and the way their front faces, in the world.
  public var axes: (lateral: Vector3, facing: Vector3) {
    let pitch: Double
    switch placement {
    case .standing, .hanging: pitch = 0
    case .supine: pitch = -90
    case .plank: pitch = 80
    }
    return (
      Vector3(1, 0, 0).rotatedY(radians(yaw)),
      Vector3(0, 0, 1).rotatedX(radians(pitch)).rotatedY(radians(yaw))
    )
  }

  /// The pitch (degrees) at which the wrists and the contact joints are level.
  private static func plankPitch(_ local: [Vector3], contact: [CanonicalJoint]) -> Double {
    func imbalance(_ pitch: Double) -> Double {
      let rotated = local.map { $0.rotatedX(radians(pitch)) }
      let hands = min(
        rotated[CanonicalJoint.leftWrist.rawValue].y, rotated[CanonicalJoint.rightWrist.rawValue].y)
      let feet = contact.map { rotated[$0.rawValue].y }.min()!
      return hands - feet
    }
    var (low, high) = (30.0, 120.0)
    for _ in 0..<30 {
      let mid = (low + high) / 2
      if imbalance(mid) > 0 { low = mid } else { high = mid }
    }
    return (low + high) / 2
  }
}
