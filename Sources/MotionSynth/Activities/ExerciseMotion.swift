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

  /// The label (README, "Labels").
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
  public func articulation(depth: Double, side: RepTimeline.Side, style: ExerciseStyle, t: Double)
    -> (Articulation, lift: Double)
  {
    let moment = Moment(depth: depth, side: side, style: style, t: t)
    var a = Articulation.standing
    var lift = 0.0
    switch self {
    case .squat: Self.squat(&a, moment)
    case .pushUp: Self.pushUp(&a, moment)
    case .sitUp: Self.sitUp(&a, moment)
    case .pullUp: Self.pullUp(&a, moment)
    case .benchPress: Self.benchPress(&a, moment)
    case .jumpingJack: lift = Self.jumpingJack(&a, moment)
    case .lunge: Self.lunge(&a, moment)
    case .bicepCurl: Self.bicepCurl(&a, moment)
    case .frontRaise: Self.frontRaise(&a, moment)
    case .shoulderPress: Self.shoulderPress(&a, moment)
    case .kneeRaise: Self.kneeRaise(&a, moment)
    case .sideTilt: Self.sideTilt(&a, moment)
    }
    Self.holdEquipment(&a, self, moment)
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
      depthSpread: style.depthSpread, fatigue: style.fatigue, pause: style.pause,
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
