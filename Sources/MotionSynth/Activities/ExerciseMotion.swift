import Foundation
import Randomness

/// How each of the twelve exercises moves the body, as a function of depth (0 at rest, 1 at the
/// bottom of a full rep) and the leading side. The rhythm comes from `RepTimeline`.
public enum ExerciseMotion: String, CaseIterable, Sendable {
  case squat
  case pushUp = "push_up"
  case sitUp = "sit_up"
  case pullUp = "pull_up"
  case benchPress = "bench_press"
  case jumpingJack = "jumping_jack"
  case lunge
  case bicepCurl = "bicep_curl"
  case frontRaise = "front_raise"
  case shoulderPress = "shoulder_press"
  case kneeRaise = "knee_raise"
  case sideTilt = "side_tilt"

  /// The label (DESIGN §5).
  public var label: String { rawValue }

  /// Mean seconds per rep: people's tempo spans 0.5–3 s, and each exercise its own part of it.
  public var tempo: ClosedRange<Double> {
    switch self {
    case .jumpingJack: 0.5...1.0
    case .kneeRaise, .sideTilt, .frontRaise, .bicepCurl: 1.0...2.5
    case .pullUp, .benchPress, .lunge: 1.4...3.0
    default: 1.0...2.8
    }
  }

  /// Whether each rep is led by the other side (then one side's movement is one rep).
  public func isAlternating(variant: Int) -> Bool {
    switch self {
    case .lunge, .kneeRaise, .sideTilt: true
    case .bicepCurl, .frontRaise: variant == 1
    default: false
    }
  }

  public func placement(variant: Int) -> Placement {
    switch self {
    case .pushUp: .plank(onKnees: variant == 1)
    case .sitUp: .supine(height: 0)
    case .benchPress: .supine(height: 0.45)
    case .pullUp: .hanging(height: 2.25)
    default: .standing
    }
  }

  /// The body at `depth`, led by `side`, `t` seconds into the set (for the wobble).
  public func articulation(depth d: Double, side: RepTimeline.Side, style: ExerciseStyle, t: Double)
    -> (Articulation, lift: Double)
  {
    var a = Articulation.standing
    let w = { (index: Int) in style.wobble(index, at: t) }
    let lead: (Double) -> Double = {
      side == .left ? 1 + style.asymmetry * $0 : 1 - style.asymmetry * $0
    }
    var lift = 0.0
    switch self {
    case .squat:
      let thigh = 95 * d + w(0)
      let knee = 118 * d + w(1)
      let spread = 6 + 18 * style.width + 10 * d
      a.leftThigh = .init(flexion: thigh * (1 + style.asymmetry), abduction: spread)
      a.rightThigh = .init(flexion: thigh * (1 - style.asymmetry), abduction: spread)
      a.leftShin = .init(flexion: a.leftThigh.flexion - knee, abduction: spread * 0.6)
      a.rightShin = .init(flexion: a.rightThigh.flexion - knee, abduction: spread * 0.6)
      a.trunkFlexion = (12 + 30 * style.lean) * d + w(2)
      switch style.variant {
      case 0:  // arms forward for balance
        a.leftUpperArm = .init(flexion: 10 + 75 * d, abduction: 8)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 15 + 75 * d, abduction: 5)
        a.rightForearm = a.leftForearm
      case 1:  // hands on hips
        a.leftUpperArm = .init(flexion: -15, abduction: 35)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 20, abduction: -35)
        a.rightForearm = a.leftForearm
      default:  // arms crossed on the chest
        a.leftUpperArm = .init(flexion: 35, abduction: 15)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 90, abduction: -70)
        a.rightForearm = a.leftForearm
      }
    case .pushUp:
      let bend = d * lead(1)
      for arm in [0, 1] {
        // Top: arms straight to the floor. Bottom: elbows up and out, forearms slanting back in
        // so the hands stay where they are (for a typical upper arm 1.27 forearms long).
        let upper = Articulation.Limb(
          flexion: 90 - 125 * bend + w(arm), abduction: 8 + (30 + 25 * style.width) * bend)
        let inward = 1.27 * (sin(radians(8)) - sin(radians(upper.abduction))) + sin(radians(4))
        let fore = Articulation.Limb(
          flexion: 88 - 5 * bend, abduction: asin(min(1, max(-1, inward))) * 180 / .pi)
        if arm == 0 {
          (a.leftUpperArm, a.leftForearm) = (upper, fore)
        } else {
          (a.rightUpperArm, a.rightForearm) = (upper, fore)
        }
      }
      a.trunkFlexion = w(2) * 1.5 - 6 * style.lean * d  // sag or pike
      a.leftThigh = .init(flexion: -a.trunkFlexion * 0.5, abduction: 4)
      a.rightThigh = a.leftThigh
      let knees = style.variant == 1 ? 95.0 : 0
      a.leftShin = .init(flexion: a.leftThigh.flexion - knees, abduction: 3)
      a.rightShin = a.leftShin
      a.headFlexion = 10
    case .sitUp:
      a.trunkFlexion = 75 * d * (0.8 + 0.2 * style.width) + w(0)
      a.leftThigh = .init(flexion: 45 + 10 * style.lean, abduction: 8)
      a.rightThigh = a.leftThigh
      a.leftShin = .init(flexion: a.leftThigh.flexion - 100, abduction: 6)
      a.rightShin = a.leftShin
      a.headFlexion = 20 * d
      switch style.variant {
      case 0:  // hands behind the head
        a.leftUpperArm = .init(flexion: 150, abduction: 60)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 200, abduction: -60)
        a.rightForearm = a.leftForearm
      case 1:  // crossed on the chest
        a.leftUpperArm = .init(flexion: 35, abduction: 15)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 90, abduction: -70)
        a.rightForearm = a.leftForearm
      default:  // reaching to the knees
        a.leftUpperArm = .init(flexion: 60 + 25 * d, abduction: 10)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = a.leftUpperArm
        a.rightForearm = a.leftUpperArm
      }
    case .pullUp:
      let grip = 8 + 18 * style.width
      for arm in [0, 1] {
        let pull = d * (arm == 0 ? lead(1) : 2 - lead(1))
        let upper = Articulation.Limb(
          flexion: 8 * pull + w(arm), abduction: 180 - grip - (125 - grip) * pull)  // top: elbows down by the ribs, chin over the bar
        let fore = Articulation.Limb(flexion: 5, abduction: 180 - grip * (1 - pull) - 5 * pull)
        if arm == 0 {
          (a.leftUpperArm, a.leftForearm) = (upper, fore)
        } else {
          (a.rightUpperArm, a.rightForearm) = (upper, fore)
        }
      }
      a.trunkFlexion = -5 + w(2) * 2
      let bent = style.variant == 2 ? 70.0 : 5
      a.leftThigh = .init(flexion: 10 + w(3), abduction: 3)
      a.rightThigh = a.leftThigh
      a.leftShin = .init(flexion: 10 - bent, abduction: 2)
      a.rightShin = a.leftShin
      a.headFlexion = -10 * d
    case .benchPress:
      for arm in [0, 1] {
        let press = 1 - d * (arm == 0 ? lead(1) : 2 - lead(1))  // 1 arms up, 0 bar at the chest
        let upper = Articulation.Limb(
          flexion: -12 + 102 * press + w(arm), abduction: (45 + 35 * style.width) * (1 - press) + 6)
        let fore = Articulation.Limb(flexion: 88, abduction: 5 + 8 * style.width * (1 - press))
        if arm == 0 {
          (a.leftUpperArm, a.leftForearm) = (upper, fore)
        } else {
          (a.rightUpperArm, a.rightForearm) = (upper, fore)
        }
      }
      a.leftThigh = .init(flexion: 5, abduction: 18)
      a.rightThigh = a.leftThigh
      a.leftShin = .init(flexion: -85, abduction: 10)
      a.rightShin = a.leftShin
    case .jumpingJack:
      let arms = 12 + 150 * d + w(0)
      a.leftUpperArm = .init(flexion: 8, abduction: arms)
      a.rightUpperArm = .init(flexion: 8, abduction: arms * (1 - style.asymmetry))
      a.leftForearm = .init(flexion: 8, abduction: arms + 8)
      a.rightForearm = .init(flexion: 8, abduction: a.rightUpperArm.abduction + 8)
      let legs = 3 + (14 + 10 * style.width) * d
      a.leftThigh = .init(flexion: 3, abduction: legs)
      a.rightThigh = a.leftThigh
      a.leftShin = .init(flexion: 0, abduction: legs)
      a.rightShin = a.leftShin
      lift = 0.06 * sin(.pi * min(max(d, 0), 1)) * (0.5 + style.lean)
    case .lunge:
      let front = d * lead(1)
      var frontThigh = Articulation.Limb(flexion: 88 * front + w(0), abduction: 4)
      var frontShin = Articulation.Limb(flexion: frontThigh.flexion - 92 * front, abduction: 3)
      var backThigh = Articulation.Limb(flexion: -18 * front, abduction: 3)
      var backShin = Articulation.Limb(flexion: backThigh.flexion - 82 * front, abduction: 2)
      if style.variant == 2 {  // a longer stride
        frontShin.flexion += 8 * front
        backThigh.flexion -= 8 * front
      }
      if side == .right {
        swap(&frontThigh, &backThigh)
        swap(&frontShin, &backShin)
      }
      (a.leftThigh, a.leftShin, a.rightThigh, a.rightShin) = (
        frontThigh, frontShin, backThigh, backShin
      )
      a.trunkFlexion = 5 * style.lean + w(1)
      if style.variant == 1 {  // hands on hips
        a.leftUpperArm = .init(flexion: -15, abduction: 35)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 20, abduction: -35)
        a.rightForearm = a.leftForearm
      }
    case .bicepCurl:
      let elbow = { (amount: Double) in 12 + 128 * amount }
      let swing = 12 * style.lean  // sloppy curls swing the elbow forward
      let moving: [RepTimeline.Side] =
        switch style.variant {
        case 1: [side]  // alternating
        case 2: [.right]  // one arm
        default: [.left, .right]
        }
      for arm in [RepTimeline.Side.left, .right] {
        let amount = moving.contains(arm) ? d * (arm == .left ? lead(1) : 2 - lead(1)) : 0
        let upper = Articulation.Limb(
          flexion: 4 + swing * amount + w(arm == .left ? 0 : 1), abduction: 6 + 6 * style.width)
        let fore = Articulation.Limb(flexion: upper.flexion + elbow(amount), abduction: 6)
        if arm == .left {
          (a.leftUpperArm, a.leftForearm) = (upper, fore)
        } else {
          (a.rightUpperArm, a.rightForearm) = (upper, fore)
        }
      }
      a.trunkFlexion = -6 * style.lean * d + w(2) * 0.5
    case .frontRaise:
      let moving: [RepTimeline.Side] = style.variant == 1 ? [side] : [.left, .right]
      for arm in [RepTimeline.Side.left, .right] {
        let amount = moving.contains(arm) ? d * (arm == .left ? lead(1) : 2 - lead(1)) : 0
        let upper = Articulation.Limb(
          flexion: 4 + 88 * amount + w(arm == .left ? 0 : 1), abduction: 4 + 8 * style.width)
        let fore = Articulation.Limb(flexion: upper.flexion + 8, abduction: upper.abduction)
        if arm == .left {
          (a.leftUpperArm, a.leftForearm) = (upper, fore)
        } else {
          (a.rightUpperArm, a.rightForearm) = (upper, fore)
        }
      }
      a.trunkFlexion = -4 * style.lean * d
    case .shoulderPress:
      for arm in [0, 1] {
        // A set starts with the hands racked at the shoulders (depth 0) and presses overhead.
        let press = d * (arm == 0 ? lead(1) : 2 - lead(1))
        let upper = Articulation.Limb(
          flexion: 10 + 15 * style.lean + w(arm), abduction: 88 + 75 * press)
        let fore = Articulation.Limb(flexion: 8 + 10 * style.lean, abduction: 172 + 4 * press)
        if arm == 0 {
          (a.leftUpperArm, a.leftForearm) = (upper, fore)
        } else {
          (a.rightUpperArm, a.rightForearm) = (upper, fore)
        }
      }
    case .kneeRaise:
      let raise = d * lead(1)
      let thigh = Articulation.Limb(flexion: 92 * raise + w(0), abduction: 4)
      let shin = Articulation.Limb(
        flexion: thigh.flexion - (85 + 10 * style.width) * raise, abduction: 3)
      if side == .left {
        (a.leftThigh, a.leftShin) = (thigh, shin)
      } else {
        (a.rightThigh, a.rightShin) = (thigh, shin)
      }
      a.trunkFlexion = 8 * raise * style.lean
      if style.variant == 1 {  // hands behind the head
        a.leftUpperArm = .init(flexion: 150, abduction: 60)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 200, abduction: -60)
        a.rightForearm = a.leftForearm
      }
    case .sideTilt:
      let tilt = (28 + 10 * style.width) * d * lead(1) + w(0)
      a.trunkTilt = side == .left ? tilt : -tilt
      switch style.variant {
      case 0:  // hands on hips
        a.leftUpperArm = .init(flexion: -15, abduction: 35)
        a.rightUpperArm = a.leftUpperArm
        a.leftForearm = .init(flexion: 20, abduction: -35)
        a.rightForearm = a.leftForearm
      case 1:  // the far arm over the head
        let over = Articulation.Limb(flexion: 10, abduction: 150 + 20 * d)
        let overFore = Articulation.Limb(flexion: 10, abduction: 190 + 20 * d)
        if side == .left {
          (a.rightUpperArm, a.rightForearm) = (over, overFore)
        } else {
          (a.leftUpperArm, a.leftForearm) = (over, overFore)
        }
      default:  // the near hand slides down the leg
        break
      }
    }
    return (a, lift)
  }
}

/// One set of an exercise: `reps` full reps (and maybe partial ones), one person's style.
public struct ExerciseSet: Activity {
  public let motion: ExerciseMotion
  public let timeline: RepTimeline
  public let style: ExerciseStyle
  /// Facing, degrees: the camera does the rest.
  public let yaw: Double

  public var label: String { motion.label }
  public var duration: Double { timeline.duration }
  public var repBounds: [ClosedRange<Double>] { timeline.repBounds }

  public init(
    _ motion: ExerciseMotion, reps: Int, partialReps: Int = 0, style: ExerciseStyle,
    secondsPerRep: Double? = nil,
    yaw: Double = 0, generator: inout SeededGenerator
  ) {
    self.motion = motion
    self.style = style
    self.yaw = yaw
    let tempo =
      secondsPerRep ?? motion.tempo.lowerBound + (motion.tempo.upperBound - motion.tempo.lowerBound)
      * generator.unit()
    timeline = RepTimeline(
      reps: reps, secondsPerRep: tempo, partialReps: partialReps,
      alternating: motion.isAlternating(variant: style.variant), depth: style.depth,
      generator: &generator)
  }

  public func state(at t: Double) -> BodyState {
    let (depth, side) = timeline.position(at: t)
    let (articulation, lift) = motion.articulation(depth: depth, side: side, style: style, t: t)
    return BodyState(
      articulation: articulation, placement: motion.placement(variant: style.variant), yaw: yaw,
      lift: lift)
  }
}
