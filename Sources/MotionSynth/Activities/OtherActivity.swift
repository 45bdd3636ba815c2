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
    case dancing, boxing
    case warmUpSwings = "warm_up_swings"
    case phone
    case looseArmSwings = "loose_arm_swings"

    /// The kinds random workouts drew before the wider set: a recipe that keeps to them
    /// keeps its bytes.
    public static let classic: [Kind] = [
      .standing, .fidgeting, .walking, .armSwings, .stretching, .sitDownStandUp, .pickingUp,
      .facingAway,
    ]
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
      a.forearmsFollowUpperArms(bentBy: 10)
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
    case .dancing:
      // A bounce of the knees on every beat (1.6–2.4 a second), arms waving or swaying, a
      // step to one side and back every two beats, the body turning with it.
      let beat = 2 * .pi * (1.6 + 0.8 * (rate - 0.6) / 0.8) * t
      let bounce = (1 - cos(beat)) / 2
      let step = sin(beat / 2)
      a.leftThigh = .init(flexion: 15 * bounce, abduction: 8 + 10 * max(0, step))
      a.rightThigh = .init(flexion: 15 * bounce, abduction: 8 + 10 * max(0, -step))
      a.leftShin = .init(flexion: -15 * bounce, abduction: 4)
      a.rightShin = a.leftShin
      switch style.variant {
      case 0:  // arms up, waving in turn
        a.leftUpperArm = .init(flexion: 120 + 40 * sin(beat / 2), abduction: 30)
        a.rightUpperArm = .init(flexion: 120 - 40 * sin(beat / 2), abduction: 30)
      case 1:  // elbows bent at the chest, swaying side to side
        a.leftUpperArm = .init(flexion: 35, abduction: 25 + 20 * step)
        a.rightUpperArm = .init(flexion: 35, abduction: 25 - 20 * step)
      default:  // arms swinging low with the steps
        a.leftUpperArm = .init(flexion: 30 * step + 15, abduction: 15)
        a.rightUpperArm = .init(flexion: -30 * step + 15, abduction: 15)
      }
      let bend = style.variant == 1 ? 80.0 : 20
      a.leftForearm = .init(flexion: a.leftUpperArm.flexion + bend, abduction: 6)
      a.rightForearm = .init(flexion: a.rightUpperArm.flexion + bend, abduction: 6)
      a.trunkTilt = 6 * step + w(0) * 0.3
      return BodyState(
        articulation: a, yaw: yaw + 15 * step, ground: (0.2 * step, 0), lift: 0.02 * bounce)
    case .boxing:
      // A guard, fists by the chin, knees soft; punches thrown one hand after the other, each
      // out and back in a quarter of a second, the trunk turning into it.
      let guardUpper = Articulation.Limb(flexion: 40, abduction: 22)
      let guardFore = Articulation.Limb(flexion: 165, abduction: 10)
      let punches = (1.0 + 1.2 * (rate - 0.6) / 0.8) * t
      let which = Int(punches) % 2
      let reach = max(0, sin(.pi * min(1, punches.truncatingRemainder(dividingBy: 1) / 0.5)))
      for arm in [0, 1] {
        let out = arm == which ? reach : 0
        let upper = guardUpper.mixed(.init(flexion: 85, abduction: 8), out)
        let fore = guardFore.mixed(.init(flexion: 88, abduction: 6), out)
        a.setArm(arm == 0 ? .left : .right, upper: upper, fore: fore)
      }
      a.leftThigh = .init(flexion: 12, abduction: 10)
      a.rightThigh = .init(flexion: 4, abduction: 10)
      a.leftShin = .init(flexion: -10, abduction: 5)
      a.rightShin = .init(flexion: -8, abduction: 5)
      a.trunkFlexion = 8 + w(0) * 0.3
      return BodyState(articulation: a, yaw: yaw + 20 + (which == 0 ? 12 : -12) * reach)
    case .warmUpSwings:
      // Loose swings before a workout, 0.8–1.6 a second: both arms together, forward and back
      // with the knees bouncing; across the body; or one arm in big circles.
      let phase = 2 * .pi * (0.8 + 0.8 * (rate - 0.6) / 0.8) * t
      switch style.variant {
      case 0:
        let swing = 55 * sin(phase) + 25
        a.leftUpperArm = .init(flexion: swing, abduction: 10)
        a.rightUpperArm = a.leftUpperArm
        let bounce = (1 - cos(2 * phase)) / 2
        a.leftThigh = .init(flexion: 20 * bounce, abduction: 6)
        a.rightThigh = a.leftThigh
        a.leftShin = .init(flexion: -25 * bounce, abduction: 3)
        a.rightShin = a.leftShin
      case 1:
        a.leftUpperArm = .init(flexion: 70, abduction: 50 * sin(phase) - 10)
        a.rightUpperArm = .init(flexion: 70, abduction: -50 * sin(phase) - 10)
      default:
        let arm: RepTimeline.Side = style.phases[3] < .pi ? .left : .right
        a.setArm(
          arm, upper: .init(flexion: 80 + 90 * sin(phase), abduction: 20 + 15 * cos(phase)),
          fore: .init(flexion: 90 + 90 * sin(phase), abduction: 15 + 15 * cos(phase)))
      }
      if style.variant != 2 { a.forearmsFollowUpperArms(bentBy: 15) }
      return BodyState(articulation: a, yaw: yaw)
    case .looseArmSwings:
      // Arms swung forward and back in turn, as people loosen up or wait, drawn the way a
      // camera in front confuses them with front raises (issue #38: at 0.7 and 1.1–1.3 a
      // second, arm swings read as front raises): forward to 40–100°, each arm its own reach,
      // back 15–45°, 0.5–1.6 a second, elbows loose or bent.
      let phase = 2 * .pi * (0.5 + 1.1 * (rate - 0.6) / 0.8) * t
      let forward = 40 + 60 * style.width
      let back = 15 + 30 * style.lean
      let middle = (forward - back) / 2
      let reach = (forward + back) / 2
      let bend = style.variant == 2 ? 45.0 : 12
      for (arm, sign, share) in [
        (RepTimeline.Side.left, 1.0, 1 + style.asymmetry), (.right, -1, 1 - style.asymmetry),
      ] {
        let upper = Articulation.Limb(
          flexion: share * (middle + sign * reach * sin(phase)) + w(arm == .left ? 0 : 1),
          abduction: 6 + 8 * style.width)
        a.setArm(
          arm, upper: upper, fore: .init(flexion: upper.flexion + bend, abduction: upper.abduction))
      }
      a.trunkTilt = 3 * sin(phase) * style.lean
      return BodyState(articulation: a, yaw: yaw)
    case .phone:
      // Head down over a phone held at the chest, a thumb scrolling; now and then the other
      // hand comes up too, and the weight shifts from foot to foot.
      a.headFlexion = 30 + 3 * w(0)
      a.rightUpperArm = .init(flexion: 25 + 2 * w(1), abduction: 12)
      a.rightForearm = .init(flexion: 115 + 3 * sin(2 * .pi * 0.7 * t), abduction: -10)
      let both = sin(0.4 * t + style.phases[2]) > 0.3
      a.leftUpperArm = both ? .init(flexion: 25, abduction: 12) : .init(flexion: w(2), abduction: 8)
      a.leftForearm = both ? .init(flexion: 110, abduction: -15) : .init(flexion: 10, abduction: 6)
      let shift = sin(0.3 * t + style.phases[4])
      a.trunkTilt = 3 * shift
      a.leftThigh = .init(flexion: 0, abduction: 3 + 3 * max(0, shift))
      a.rightThigh = .init(flexion: 0, abduction: 3 + 3 * max(0, -shift))
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
