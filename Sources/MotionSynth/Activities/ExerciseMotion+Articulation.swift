import Foundation

/// Each exercise's body at one moment of a rep: one function per exercise, reading the depth
/// (0 at rest, 1 at the bottom of a full rep), the leading side and the person's style.
extension ExerciseMotion {
  /// What an exercise's pose depends on at one moment.
  struct Moment {
    let depth: Double
    let side: RepTimeline.Side
    let style: ExerciseStyle
    let t: Double

    /// A slow, person-specific wobble of joint `index`, degrees.
    func wobble(_ index: Int) -> Double { style.wobble(index, at: t) }

    /// The leading side's share of the movement: the person's asymmetry favours one side.
    func lead(_ amount: Double) -> Double {
      side == .left ? 1 + style.asymmetry * amount : 1 - style.asymmetry * amount
    }

    /// Depth, side, style, wobble and lead, for an exercise to unpack in one line (`_` for
    /// what it does not read).
    var parts: (Double, RepTimeline.Side, ExerciseStyle, (Int) -> Double, (Double) -> Double) {
      (depth, side, style, wobble, lead)
    }
  }

  /// Hips back and down, knees forward; the arms balance, rest on the hips or cross the chest.
  static func squat(_ a: inout Articulation, _ moment: Moment) {
    let (d, _, style, w, _) = moment.parts
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
      a.setBothArms(Articulation.handsOnHips)
    default:  // arms crossed on the chest
      a.setBothArms(Articulation.armsCrossed)
    }
  }

  /// From a plank: the elbows bend up and out while the hands stay on the floor.
  static func pushUp(_ a: inout Articulation, _ moment: Moment) {
    let (d, _, style, w, lead) = moment.parts
    let bend = d * lead(1)
    for arm in [0, 1] {
      // Top: arms straight to the floor. Bottom: elbows up and out, forearms slanting back in
      // so the hands stay where they are (for a typical upper arm 1.27 forearms long).
      let upper = Articulation.Limb(
        flexion: 90 - 125 * bend + w(arm), abduction: 8 + (30 + 25 * style.width) * bend)
      let inward = 1.27 * (sin(radians(8)) - sin(radians(upper.abduction))) + sin(radians(4))
      let fore = Articulation.Limb(
        flexion: 88 - 5 * bend, abduction: asin(min(1, max(-1, inward))) * 180 / .pi)
      a.setArm(arm == 0 ? .left : .right, upper: upper, fore: fore)
    }
    a.trunkFlexion = w(2) * 1.5 - 6 * style.lean * d  // sag or pike
    a.leftThigh = .init(flexion: -a.trunkFlexion * 0.5, abduction: 4)
    a.rightThigh = a.leftThigh
    let knees = style.variant == 1 ? 95.0 : 0
    a.leftShin = .init(flexion: a.leftThigh.flexion - knees, abduction: 3)
    a.rightShin = a.leftShin
    a.headFlexion = 10
  }

  /// Lying with the knees bent, the trunk curls up.
  static func sitUp(_ a: inout Articulation, _ moment: Moment) {
    let (d, _, style, w, _) = moment.parts
    a.trunkFlexion = 75 * d * (0.8 + 0.2 * style.width) + w(0)
    a.leftThigh = .init(flexion: 45 + 10 * style.lean, abduction: 8)
    a.rightThigh = a.leftThigh
    a.leftShin = .init(flexion: a.leftThigh.flexion - 100, abduction: 6)
    a.rightShin = a.leftShin
    a.headFlexion = 20 * d
    switch style.variant {
    case 0:  // hands behind the head
      a.setBothArms(Articulation.handsBehindHead)
    case 1:  // crossed on the chest
      a.setBothArms(Articulation.armsCrossed)
    default:  // reaching to the knees
      a.leftUpperArm = .init(flexion: 60 + 25 * d, abduction: 10)
      a.rightUpperArm = a.leftUpperArm
      a.leftForearm = a.leftUpperArm
      a.rightForearm = a.leftUpperArm
    }
  }

  /// Hanging from a bar, the elbows pull down to the ribs.
  static func pullUp(_ a: inout Articulation, _ moment: Moment) {
    let (d, _, style, w, lead) = moment.parts
    let grip = 8 + 18 * style.width
    for arm in [0, 1] {
      let pull = d * (arm == 0 ? lead(1) : 2 - lead(1))
      // At the top: elbows down by the ribs, chin over the bar.
      let upper = Articulation.Limb(
        flexion: 8 * pull + w(arm), abduction: 180 - grip - (125 - grip) * pull)
      let fore = Articulation.Limb(flexion: 5, abduction: 180 - grip * (1 - pull) - 5 * pull)
      a.setArm(arm == 0 ? .left : .right, upper: upper, fore: fore)
    }
    // Kipping: the legs swing forward and back through each pull, the hips driving it.
    let kip = style.swing * sin(2 * .pi * min(max(d, 0), 1))
    a.trunkFlexion = -5 + w(2) * 2 - 15 * style.swing * d
    let bent = style.variant == 2 ? 70.0 : 5
    a.leftThigh = .init(flexion: 10 + w(3) + 40 * kip, abduction: 3)
    a.rightThigh = a.leftThigh
    a.leftShin = .init(flexion: 10 - bent, abduction: 2)
    a.rightShin = a.leftShin
    a.headFlexion = -10 * d
  }

  /// Lying on a bench, the arms press up from the chest.
  static func benchPress(_ a: inout Articulation, _ moment: Moment) {
    let (d, _, style, w, lead) = moment.parts
    for arm in [0, 1] {
      let press = 1 - d * (arm == 0 ? lead(1) : 2 - lead(1))  // 1 arms up, 0 bar at the chest
      let upper = Articulation.Limb(
        flexion: -12 + 102 * press + w(arm), abduction: (45 + 35 * style.width) * (1 - press) + 6)
      let fore = Articulation.Limb(flexion: 88, abduction: 5 + 8 * style.width * (1 - press))
      a.setArm(arm == 0 ? .left : .right, upper: upper, fore: fore)
    }
    a.leftThigh = .init(flexion: 5, abduction: 18)
    a.rightThigh = a.leftThigh
    a.leftShin = .init(flexion: -85, abduction: 10)
    a.rightShin = a.leftShin
  }

  /// Arms and legs out and in together, with a small hop and a bounce in the knees as the
  /// feet land. People do them three ways (`style.variant`), as real videos show: full jacks
  /// (the arms overhead), half jacks (the arms to about shoulder height, a little forward),
  /// and quick ones with the elbows bent and the feet stepping out only a little.
  static func jumpingJack(_ a: inout Articulation, _ moment: Moment) -> Double {
    let (d, _, style, w, _) = moment.parts
    let swing: Double
    let forward: Double
    let bend: Double
    let step: Double
    switch style.variant {
    case 1:  // half jacks
      (swing, forward, bend, step) = (75 + 30 * style.width, 10 + 20 * style.lean, 15, 14)
    case 2:  // quick, elbows bent, small steps
      (swing, forward, bend, step) = (125, 6 + 10 * style.lean, 25 + 20 * style.width, 8)
    default:  // full jacks
      (swing, forward, bend, step) = (150, 8, 0, 14)
    }
    let arms = 12 + swing * d + w(0)
    a.leftUpperArm = .init(flexion: forward, abduction: arms)
    a.rightUpperArm = .init(flexion: forward, abduction: arms * (1 - style.asymmetry))
    a.leftForearm = .init(flexion: forward, abduction: arms + 8 + bend * d)
    a.rightForearm = .init(flexion: forward, abduction: a.rightUpperArm.abduction + 8 + bend * d)
    let legs = 3 + (step + 10 * style.width) * d
    // The knees give as the feet land, at either end of the jump.
    let landing = (6 + 8 * style.lean) * (1 - sin(.pi * min(max(d, 0), 1)))
    a.leftThigh = .init(flexion: 3 + landing, abduction: legs)
    a.rightThigh = a.leftThigh
    a.leftShin = .init(flexion: -landing, abduction: legs)
    a.rightShin = a.leftShin
    return 0.06 * sin(.pi * min(max(d, 0), 1)) * (0.5 + style.lean)
  }

  /// One leg steps forward and bends; the back knee drops.
  static func lunge(_ a: inout Articulation, _ moment: Moment) {
    let (d, side, style, w, lead) = moment.parts
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
      a.setBothArms(Articulation.handsOnHips)
    }
  }

  /// The forearms fold up to the upper arms, both together, alternating or one arm.
  static func bicepCurl(_ a: inout Articulation, _ moment: Moment) {
    let (d, side, style, w, lead) = moment.parts
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
      a.setArm(arm, upper: upper, fore: fore)
    }
    a.trunkFlexion = -6 * style.lean * d + w(2) * 0.5
  }

  /// Straight arms raised forward to shoulder height.
  static func frontRaise(_ a: inout Articulation, _ moment: Moment) {
    let (d, side, style, w, lead) = moment.parts
    let moving: [RepTimeline.Side] = style.variant == 1 ? [side] : [.left, .right]
    for arm in [RepTimeline.Side.left, .right] {
      let amount = moving.contains(arm) ? d * (arm == .left ? lead(1) : 2 - lead(1)) : 0
      let upper = Articulation.Limb(
        flexion: 4 + 88 * amount + w(arm == .left ? 0 : 1), abduction: 4 + 8 * style.width)
      let fore = Articulation.Limb(flexion: upper.flexion + 8, abduction: upper.abduction)
      a.setArm(arm, upper: upper, fore: fore)
    }
    a.trunkFlexion = -4 * style.lean * d
  }

  /// From the hands racked at the shoulders, pressed overhead.
  static func shoulderPress(_ a: inout Articulation, _ moment: Moment) {
    let (d, _, style, w, lead) = moment.parts
    for arm in [0, 1] {
      // A set starts with the hands racked at the shoulders (depth 0) and presses overhead.
      let press = d * (arm == 0 ? lead(1) : 2 - lead(1))
      let upper = Articulation.Limb(
        flexion: 10 + 15 * style.lean + w(arm), abduction: 88 + 75 * press)
      let fore = Articulation.Limb(flexion: 8 + 10 * style.lean, abduction: 172 + 4 * press)
      a.setArm(arm == 0 ? .left : .right, upper: upper, fore: fore)
    }
  }

  /// One knee raised towards the chest, the sides in turn.
  static func kneeRaise(_ a: inout Articulation, _ moment: Moment) {
    let (d, side, style, w, lead) = moment.parts
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
      a.setBothArms(Articulation.handsBehindHead)
    }
  }

  /// The trunk tilts to one side and back, the sides in turn.
  static func sideTilt(_ a: inout Articulation, _ moment: Moment) {
    let (d, side, style, w, lead) = moment.parts
    let tilt = (28 + 10 * style.width) * d * lead(1) + w(0)
    a.trunkTilt = side == .left ? tilt : -tilt
    switch style.variant {
    case 0:  // hands on hips
      a.setBothArms(Articulation.handsOnHips)
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

  /// A bar across the shoulders or dumbbells at the sides, for the standing lower-body
  /// exercises: the arms hold them instead of balancing.
  static func holdEquipment(_ a: inout Articulation, _ motion: ExerciseMotion, _ moment: Moment) {
    guard motion == .squat || motion == .lunge else { return }
    switch moment.style.equipment {
    case .none: break
    case .barOnBack:
      a.setBothArms((.init(flexion: -15, abduction: 80), .init(flexion: -40, abduction: 165)))
    case .dumbbells:
      a.setBothArms((.init(flexion: 0, abduction: 8), .init(flexion: 2, abduction: 6)))
    }
  }
}
