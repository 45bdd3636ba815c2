import Foundation
import Randomness

/// How fast one set goes, and how its time is spent, under the `tempo` realism: drawn once per
/// set, then laid out rep by rep by `RepTimeline(reps:tempo:…)`.
///
/// The clean and everyday worlds draw 0.5–3 s a rep and spend it all on movement. Real sets run
/// from about half a second a rep to 5 or 6: quick sets are shallow and steady, slow ones are
/// held at the bottom and rested at the top, and many change pace inside the set. This draws
/// all of that, and makes the set last exactly `secondsPerRep` times its reps, so the tempo that
/// `spotter eval --tempo` reads from the annotation (clip time ÷ reps) is the one drawn. The
/// ranges come from Countix-Fitness and Penn Action (`Benchmarks/eval/tempo-calibration.py`):
/// Countix videos' dominant periods run 1.4–4.5 s (10th to 90th percentile; two under 0.8 s,
/// quick push-ups and bench presses), their rep times vary within a video by 28% at the median;
/// Penn's quick half-reps (under 0.8 s a rep) swing half (bench presses) to two thirds
/// (push-ups) of the angle of slower ones, and jumping jacks 0.85 of it.
public struct SetTempo: Sendable {
  /// The set's time (its annotated span, from rest to rest) divided by its full reps.
  public var secondsPerRep: Double
  /// Each rep's share of the set's pace: `first` for the first rep, `last` for the last, a
  /// ramp between them, or a step at `stepAt` (a share of the reps).
  public var first: Double
  public var last: Double
  public var stepAt: Double?
  /// How far each rep's time strays from the pace, a share (0.1: ±10%).
  public var jitter: Double
  /// Shares of each rep's time (start to the next rep's start) held at the bottom and rested at
  /// the top.
  public var bottomHold: Double
  public var topPause: Double
  /// The depth of the set's full reps, when the tempo decides it (quick sets are shallow);
  /// nil leaves it to the style.
  public var depth: Double?

  /// The tempo of a set of `motion`, drawn log-uniformly (every band of tempos gets a fair
  /// share) from `band` where the exercise is done that fast or slow, else from all of `band`;
  /// without `band`, from the exercise's whole range (`ExerciseMotion.tempoRange`).
  public static func draw(
    _ motion: ExerciseMotion, within band: ClosedRange<Double>?,
    generator: inout SeededGenerator
  ) -> SetTempo {
    let plausible = motion.tempoRange
    var range = band ?? plausible
    if let band, motion.isDone(within: band) {
      range =
        max(band.lowerBound, plausible.lowerBound)...min(band.upperBound, plausible.upperBound)
    }
    let secondsPerRep = exp(
      log(range.lowerBound) + (log(range.upperBound) - log(range.lowerBound)) * generator.unit())
    var tempo = SetTempo(
      secondsPerRep: secondsPerRep, first: 1, last: 1, stepAt: nil, jitter: 0.06, bottomHold: 0,
      topPause: 0.03 + 0.09 * generator.unit(), depth: nil)
    if secondsPerRep < 0.8 {
      // Quick sets are steady and shallow: Penn Action's quick bench presses and push-ups move
      // about half the range of its median ones; jumping jacks stay near full range.
      let shallow = motion.fastDepth
      tempo.depth =
        shallow.lowerBound + (shallow.upperBound - shallow.lowerBound) * generator.unit()
      return tempo
    }
    tempo.jitter = 0.12
    let slow = secondsPerRep >= 2
    tempo.topPause = slow ? 0.1 + 0.3 * generator.unit() : 0.05 + 0.2 * generator.unit()
    if generator.unit() < (slow ? 0.6 : 0.3) {
      tempo.bottomHold = slow ? 0.1 + 0.2 * generator.unit() : 0.05 + 0.1 * generator.unit()
    }
    // A pace that changes inside the set: slowing or speeding up by up to 1.6 times, smoothly
    // or at once (Countix-Fitness: rep times within a set vary by 28% at the median).
    let change = generator.unit()
    if change >= 0.4 {
      let ratio = exp(log(1.6) * (2 * generator.unit() - 1))
      tempo.first = 2 / (1 + ratio)
      tempo.last = tempo.first * ratio
      if change >= 0.7 { tempo.stepAt = 0.3 + 0.4 * generator.unit() }
    }
    return tempo
  }

  /// The pace of rep `slot` of `slots`, before jitter.
  func pace(_ slot: Int, of slots: Int) -> Double {
    let u = slots > 1 ? Double(slot) / Double(slots - 1) : 0
    if let stepAt { return u < stepAt ? first : last }
    return first + (last - first) * u
  }
}

extension ExerciseMotion {
  /// The seconds a rep people take at this exercise, quickest to slowest, as a set's time ÷
  /// its reps (the `tempo` realism). Jumping jacks, push-ups, crunch-style sit-ups and bench
  /// presses are done quicker than 0.8 s a rep (Penn Action, Countix-Fitness); nobody does a
  /// 5-second jumping jack; pull-ups are seldom quicker than a second.
  public var tempoRange: ClosedRange<Double> {
    switch self {
    case .jumpingJack: 0.45...2
    case .pushUp: 0.45...6
    case .sitUp, .benchPress: 0.5...6
    case .pullUp: 1...6
    default: 0.8...6
    }
  }

  /// Whether people do this exercise at some tempo inside `band` (not only at its edge).
  public func isDone(within band: ClosedRange<Double>) -> Bool {
    tempoRange.lowerBound < band.upperBound && band.lowerBound < tempoRange.upperBound
  }

  /// The depth of a set quicker than 0.8 s a rep: short push-ups, presses and crunches;
  /// jumping jacks keep most of their range.
  var fastDepth: ClosedRange<Double> {
    self == .jumpingJack ? 0.7...1 : 0.45...0.8
  }
}

extension ExerciseSet {
  /// A set at a drawn tempo (the `tempo` realism): `RepTimeline(reps:tempo:…)` with the
  /// style's depth, unless the tempo sets it.
  public init(
    _ motion: ExerciseMotion, reps: Int, partialReps: Int = 0, style: ExerciseStyle,
    tempo: SetTempo, yaw: Double = 0, generator: inout SeededGenerator
  ) {
    var style = style
    if let depth = tempo.depth { style.depth = depth }
    self.init(
      motion, style: style, yaw: yaw,
      timeline: RepTimeline(
        reps: reps, tempo: tempo, partialReps: partialReps,
        alternating: motion.isAlternating(variant: style.variant), depth: style.depth,
        depthSpread: style.depthSpread, generator: &generator))
  }

  init(_ motion: ExerciseMotion, style: ExerciseStyle, yaw: Double, timeline: RepTimeline) {
    self.motion = motion
    self.style = style
    self.yaw = yaw
    self.timeline = timeline
  }
}
