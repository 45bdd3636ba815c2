import Foundation
import Randomness

/// Movement that is not an exercise (label `other`): what real recordings are full of between
/// and around sets. Several are periodic on purpose (walking, arm swings), so the classifier
/// must learn the exercises' shapes, not just rhythm.
public struct OtherActivity: Activity {
  public enum Kind: String, CaseIterable, Sendable {
    case standing, fidgeting, walking
    case armSwings = "arm_swings"
    case stretching
    case sitDownStandUp = "sit_down_stand_up"
    case pickingUp = "picking_up"
    case facingAway = "facing_away"
  }

  public let kind: Kind
  public let duration: Double
  public let label = "other"
  private let yaw: Double
  private let style: ExerciseStyle
  /// Walking: where it starts and its heading and speed.
  private let start: (x: Double, z: Double)
  private let heading: Double
  private let speed: Double
  private let rate: Double

  public init(_ kind: Kind, duration: Double, yaw: Double = 0, generator: inout SeededGenerator) {
    self.kind = kind
    self.duration = duration
    self.yaw = kind == .facingAway ? yaw + 150 + 60 * generator.unit() : yaw
    style = .random(using: &generator)
    heading = 360 * generator.unit()
    speed = 0.7 + 0.7 * generator.unit()
    rate = 0.6 + 0.8 * generator.unit()
    // A walk passes through the middle of the view: start half its length back along the heading.
    let half = speed * duration / 2
    start = (-half * sin(radians(heading)), -half * cos(radians(heading)))
  }

  /// A walk along a set path: from `start` (metres on the floor, relative to where the person
  /// will be) on `heading` (degrees; 90 is +x) at `speed` metres a second.
  public init(
    walkingFrom start: (x: Double, z: Double), heading: Double, speed: Double, duration: Double,
    generator: inout SeededGenerator
  ) {
    kind = .walking
    self.duration = duration
    yaw = 0
    style = .random(using: &generator)
    self.heading = heading
    self.speed = speed
    rate = 0.6 + 0.8 * generator.unit()
    self.start = start
  }

  public func state(at t: Double) -> BodyState {
    var a = Articulation.standing
    let w = { (index: Int) in style.wobble(index, at: t) * 2 }
    switch kind {
    case .standing, .facingAway:
      a.trunkTilt = 2 * sin(0.4 * t + style.phases[0]) + w(0) * 0.3
      a.headFlexion = 8 * sin(0.3 * t + style.phases[1])
      a.leftUpperArm.flexion = w(1)
      a.rightUpperArm.flexion = w(2)
      if style.variant == 1 {  // arms crossed
        a.leftUpperArm = .init(flexion: 35, abduction: 15)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 90, abduction: -70)
        a.rightForearm = a.leftForearm
      }
      return BodyState(articulation: a, yaw: yaw)
    case .fidgeting:
      a.leftUpperArm = .init(flexion: 20 + 4 * w(0), abduction: 10 + 2 * w(1))
      a.rightUpperArm = .init(flexion: 25 + 4 * w(2), abduction: 12 + 2 * w(3))
      a.leftForearm = .init(flexion: a.leftUpperArm.flexion + 60 + 5 * w(4), abduction: 5)
      a.rightForearm = .init(flexion: a.rightUpperArm.flexion + 70 + 5 * w(5), abduction: 5)
      a.trunkFlexion = 3 + w(6)
      a.headFlexion = 10 + 2 * w(7)
      return BodyState(articulation: a, yaw: yaw + 10 * sin(0.5 * t))
    case .walking:
      let phase = 2 * .pi * 0.9 * speed * t
      let swing = 22 * sin(phase)
      a.leftThigh = .init(flexion: swing, abduction: 3)
      a.rightThigh = .init(flexion: -swing, abduction: 3)
      a.leftShin = .init(flexion: swing - 35 * max(0, sin(phase + 1.2)), abduction: 2)
      a.rightShin = .init(flexion: -swing - 35 * max(0, sin(phase + 1.2 + .pi)), abduction: 2)
      a.leftUpperArm = .init(flexion: -18 * sin(phase), abduction: 8)
      a.rightUpperArm = .init(flexion: 18 * sin(phase), abduction: 8)
      a.leftForearm = .init(flexion: a.leftUpperArm.flexion + 20, abduction: 6)
      a.rightForearm = .init(flexion: a.rightUpperArm.flexion + 20, abduction: 6)
      a.trunkFlexion = 4
      let travelled = speed * t
      let ground = (
        start.x + travelled * sin(radians(heading)), start.z + travelled * cos(radians(heading))
      )
      return BodyState(articulation: a, yaw: heading, ground: ground)
    case .armSwings:
      let phase = 2 * .pi * rate * t
      if style.variant == 0 {  // forward and back, alternating
        a.leftUpperArm = .init(flexion: 50 * sin(phase) + 20, abduction: 8)
        a.rightUpperArm = .init(flexion: -50 * sin(phase) + 20, abduction: 8)
      } else {  // circles
        a.leftUpperArm = .init(flexion: 40 + 60 * sin(phase), abduction: 60 + 40 * cos(phase))
        a.rightUpperArm = .init(
          flexion: 40 + 60 * sin(phase + style.phases[2]),
          abduction: 60 + 40 * cos(phase + style.phases[2]))
      }
      a.leftForearm = .init(
        flexion: a.leftUpperArm.flexion + 10, abduction: a.leftUpperArm.abduction)
      a.rightForearm = .init(
        flexion: a.rightUpperArm.flexion + 10, abduction: a.rightUpperArm.abduction)
      return BodyState(articulation: a, yaw: yaw)
    case .stretching:
      // Holds of a few seconds each, eased from one to the next.
      let holds = [Self.overheadReach, Self.sideStretch, Self.quadStretch, Self.hamstringStretch]
      let index = Int(t / 4)
      let from = holds[(index + style.variant) % holds.count]
      let to = holds[(index + style.variant + 1) % holds.count]
      let local = t.truncatingRemainder(dividingBy: 4)
      let blend = local < 3 ? 0 : (1 - cos(.pi * (local - 3))) / 2
      return BodyState(articulation: from.mixed(to, blend), yaw: yaw)
    case .sitDownStandUp:
      // Down over 1.5 s, seated, up again at the end: one slow movement, not a set.
      let down = min(1, t / 1.5)
      let up = max(0, (t - (duration - 1.5)) / 1.5)
      let d = (1 - cos(.pi * down)) / 2 * (1 - (1 - cos(.pi * min(up, 1))) / 2)
      a.leftThigh = .init(flexion: 90 * d, abduction: 8)
      a.rightThigh = a.leftThigh
      a.leftShin = .init(flexion: 0, abduction: 5)
      a.rightShin = a.leftShin
      a.trunkFlexion = 25 * d * (1 - d) * 4 * 0.5
      a.leftUpperArm.flexion = 20 * d
      a.rightUpperArm.flexion = 20 * d
      return BodyState(articulation: a, yaw: yaw)
    case .pickingUp:
      let cycle = min(1, t / max(duration, 0.1))
      let d = sin(.pi * cycle)
      a.trunkFlexion = 80 * d
      a.leftThigh = .init(flexion: 30 * d, abduction: 6)
      a.rightThigh = a.leftThigh
      a.leftShin = .init(flexion: -15 * d, abduction: 4)
      a.rightShin = a.leftShin
      a.rightUpperArm = .init(flexion: 60 * d, abduction: 8)
      a.rightForearm = .init(flexion: 60 * d, abduction: 6)
      return BodyState(articulation: a, yaw: yaw)
    }
  }

  static let overheadReach: Articulation = {
    var a = Articulation.standing
    a.leftUpperArm = .init(flexion: 170, abduction: 10)
    a.rightUpperArm = a.leftUpperArm
    a.leftForearm = a.leftUpperArm
    a.rightForearm = a.leftUpperArm
    return a
  }()

  static let sideStretch: Articulation = {
    var a = overheadReach
    a.trunkTilt = 20
    return a
  }()

  static let quadStretch: Articulation = {
    var a = Articulation.standing
    a.leftThigh = .init(flexion: -10, abduction: 3)
    a.leftShin = .init(flexion: -160, abduction: 3)
    a.leftUpperArm = .init(flexion: -30, abduction: 10)
    a.leftForearm = .init(flexion: -60, abduction: 5)
    return a
  }()

  static let hamstringStretch: Articulation = {
    var a = Articulation.standing
    a.trunkFlexion = 70
    a.leftUpperArm = .init(flexion: 0, abduction: 5)
    a.rightUpperArm = a.leftUpperArm
    return a
  }()
}
