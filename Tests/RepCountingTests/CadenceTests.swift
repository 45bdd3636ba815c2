import Foundation
import Poses
import Randomness
import Testing

@testable import RepCounting

/// The cadence estimate on signals drawn by hand.
@Suite struct CadenceEstimatorTests {
  /// Feeds `seconds` of `signal(t)` at 30 fps; returns the last cadence found.
  static func cadence(seconds: Double, _ signal: (Double) -> Double) -> Cadence? {
    var estimator = CadenceEstimator()
    for frame in 0..<Int(seconds * 30) {
      let t = Double(frame) / 30
      estimator.add(signal(t), at: t)
    }
    return estimator.current
  }

  /// Rhythms from 0.4 s to 3.5 s a cycle, with noise of a tenth of their swing, are found
  /// within 5%, and their swing within 15%.
  @Test(arguments: [0.4, 0.55, 0.8, 1.3, 2.2, 3.5])
  func aRhythmsPeriodAndSwingAreFound(period: Double) throws {
    var random = SeededGenerator(seed: 11)
    let found = try #require(
      Self.cadence(seconds: 14) { t in
        10 * cos(2 * .pi * t / period) + random.normal()
      })
    #expect(abs(found.period - period) < 0.05 * period, "\(found)")
    #expect(abs(found.swing - 20) < 3, "\(found)")
  }

  /// A cycle that dips twice (a deep dip and a shallow one) repeats every whole cycle, not
  /// every half: the period is the cycle's, not a harmonic.
  @Test func aCycleWithTwoDipsIsOneCycle() throws {
    let found = try #require(
      Self.cadence(seconds: 12) { t in
        let phase = 2 * .pi * t / 1.6
        return cos(phase) + 0.45 * cos(2 * phase)
      })
    #expect(abs(found.period - 1.6) < 0.08, "\(found)")
  }

  /// One large swing as the person settles does not set the swing of the rhythm after it.
  @Test func oneLargeSwingDoesNotSetTheSwing() throws {
    let found = try #require(
      Self.cadence(seconds: 10) { t in
        t < 1.5 ? 175 - 65 * sin(.pi * t / 1.5) : 162.5 + 10 * cos(2 * .pi * (t - 1.5) / 0.5)
      })
    #expect(abs(found.period - 0.5) < 0.03 && abs(found.swing - 20) < 3, "\(found)")
  }

  /// Noise alone, and a slow drift, are no rhythm.
  @Test func noiseAndDriftAreNoRhythm() {
    var random = SeededGenerator(seed: 12)
    #expect(Self.cadence(seconds: 14) { _ in random.normal() } == nil)
    #expect(Self.cadence(seconds: 14) { t in 3 * t + 0.1 * random.normal() } == nil)
  }
}

/// Counting that keeps time: the signal engine with the cadence, on joint angles drawn by hand.
@Suite struct CountingKeepsTimeTests {
  /// Both arms bent to `degrees` at the elbow (180 straight), seen from the side.
  static func arms(bentTo degrees: Double, noise: Double = 0, _ random: inout SeededGenerator)
    -> Pose
  {
    var pose = Pose()
    let radians = degrees * .pi / 180
    for (shoulder, elbow, wrist, x) in [
      (CanonicalJoint.rightShoulder, CanonicalJoint.rightElbow, CanonicalJoint.rightWrist, 0.0),
      (.leftShoulder, .leftElbow, .leftWrist, 10.0),
    ] {
      func jitter() -> Float { Float(noise * random.normal()) }
      pose[shoulder] = Joint(x: Float(x) + jitter(), y: jitter(), confidence: 1)
      pose[elbow] = Joint(x: Float(x) + jitter(), y: 100 + jitter(), confidence: 1)
      pose[wrist] = Joint(
        x: Float(x + 100 * sin(radians)) + jitter(),
        y: Float(100 - 100 * cos(radians)) + jitter(), confidence: 1)
    }
    return pose
  }

  /// Runs the push-up definition's engine over the elbow angle `angle(t)` for `seconds`.
  static func pushUps(seconds: Double, noise: Double = 0, angle: (Double) -> Double)
    -> [RepEvent]
  {
    let engine = ExerciseCatalogue.makeEngine(catalogue.definition(named: "push_up")!)
    var random = SeededGenerator(seed: 21)
    var events: [RepEvent] = []
    var last = 0.0
    for frame in 0..<Int(seconds * 30) {
      let t = Double(frame) / 30
      let pose = arms(bentTo: angle(t), noise: noise, &random)
      engine.process(pose, t: t, bodySize: 100) { events.append($0) }
      last = t
    }
    engine.interrupt(at: last, because: .end) { events.append($0) }
    return events
  }

  static func reps(_ events: [RepEvent]) -> [Rep] {
    events.compactMap { if case .rep(let rep) = $0 { rep } else { nil } }
  }

  /// After one 65° swing as the person settles, push-ups swinging a steady 20° (150°–175°)
  /// every half second for 20 s all count: the swing does not set the bar for the rest.
  @Test func aSteadyRhythmUnderOneLargeSwingCountsEveryRep() {
    let events = Self.pushUps(seconds: 23.5) { t in
      if t < 1 { return 175 }
      if t < 2.5 { return 175 - 65 * sin(.pi * (t - 1) / 1.5) }
      if t < 3 { return 175 }
      return 162.5 + 12.5 * cos(2 * .pi * (t - 3) / 0.5)
    }
    let reps = Self.reps(events)
    // The settling swing and 41 cycles of the rhythm (the last one on its way back up).
    #expect(reps.count >= 41 && reps.count <= 42, "\(reps.count): \(events)")
  }

  /// Push-ups that never reach `min_range` (45°) but swing a steady 30° (the definition's
  /// `min_range_learned`, 22.5°, and `min_range_rhythm` by default) every 0.7 s are a set: the
  /// rhythm is the evidence, no full rep is needed first. The cycles before the rhythm is found
  /// count once it is (within six seconds of it), so at most the first few are lost.
  @Test func aSteadySetOfSmallRepsCountsWithoutAFullOne() {
    let events = Self.pushUps(seconds: 15.7, noise: 0.3) { t in
      t < 1 ? 175 : 160 + 15 * cos(2 * .pi * (t - 1) / 0.7)
    }
    let reps = Self.reps(events)
    // 21 cycles.
    #expect(reps.count >= 19 && reps.count <= 21, "\(reps.count): \(events)")
  }

  /// A set of four quick push-ups short of `min_range` (40°, 0.5 s each) is over before the
  /// cadence can lock on it: when the stream ends, the four cycles alike are its reps.
  @Test func aShortQuickSetCountsAtItsEnd() {
    let events = Self.pushUps(seconds: 4, noise: 0.3) { t in
      t < 1 || t >= 3 ? 175 : 155 + 20 * cos(2 * .pi * (t - 1) / 0.5)
    }
    let reps = Self.reps(events)
    #expect(reps.count == 4, "\(reps.map { ($0.start, $0.end) }): \(events)")
  }

  /// A slow rep of 5 s, down and up, with a detector's jitter on every joint counts once.
  @Test func aSlowRepWithJitterCountsOnce() {
    let events = Self.pushUps(seconds: 32, noise: 1.5) { t in
      // Five reps of 5 s (1 s still at the top between them), from 170° to 80° and back.
      let phase = t.truncatingRemainder(dividingBy: 6)
      return phase < 1 ? 170 : 125 + 45 * cos(2 * .pi * (phase - 1) / 5)
    }
    let reps = Self.reps(events)
    #expect(reps.count == 5, "\(reps.map { ($0.start, $0.end) })")
  }
}
