import MotionSynth
import Poses
import Randomness
import Testing

@testable import RepCounting

/// Streams from detectors that score joints low (`ScoreScale`): put on the scale the
/// definitions are set on, they count as the same poses scored high do; keypoints guessed
/// with nobody there stay unreadable.
@Suite struct ScoreScaleTests {
  static func times(_ factor: Float) -> (Pose) -> Pose {
    { pose in
      var pose = pose
      for index in pose.joints.indices where !pose.joints[index].isMissing {
        pose.joints[index].confidence *= factor
      }
      return pose
    }
  }

  static func count(_ name: String, _ take: Recording, scoresTimes factor: Float) -> Int {
    countTicks(name, frontEnd(take, transform: times(factor)).ticks)
  }

  /// Scores at a half and at 0.35 of MotionSynth's (0.35: 0.21–0.35 in plain view, most under
  /// every definition's 0.3 floor) are raised to the same scale, so they count alike; the same
  /// 0.35 stream not raised counts 2 or none.
  @Test(arguments: [("squat", "side"), ("push_up", "side"), ("bicep_curl", "front")])
  func lowScoresCountAsTheSameStreamRaisedDoes(_ exercise: (name: String, view: String)) {
    let take = recording(exercise.name, reps: 7, view: exercise.view, seed: 41)
    #expect(Self.count(exercise.name, take, scoresTimes: 1) == 7)
    let half = Self.count(exercise.name, take, scoresTimes: 0.5)
    #expect(abs(half - 7) <= 2)
    #expect(Self.count(exercise.name, take, scoresTimes: 0.35) == half)
    let plain = frontEnd(take, raisesScores: false, transform: Self.times(0.35)).ticks
    #expect(countTicks(exercise.name, plain) <= 2)
  }

  /// A stream at the reference or above passes bit for bit: MotionSynth's, on which the
  /// definitions were tuned and the model trained.
  @Test(arguments: ["front", "side", "back", "any"])
  func scoresAtTheReferenceOrAbovePassUnchanged(view: String) {
    let take = recording("squat", reps: 4, view: view, seed: 42, noise: .heavy)
    var scale = ScoreScale()
    for sample in take.frames {
      #expect(scale.rescale(sample.pose) == sample.pose)
    }
    #expect(scale.factor == 1)
  }

  /// Training's front end keeps synthetic scores as drawn (`raisesScores: false`): a stream at
  /// half its scores is raised by the runtime's and passes training's as it came.
  @Test func trainingKeepsScoresAsDrawn() {
    let take = recording("squat", reps: 4, view: "side", seed: 44)
    let halved = Self.times(0.5)
    let runtime = frontEnd(take, transform: halved).ticks
    let training = frontEnd(take, raisesScores: false, transform: halved).ticks
    let plain = frontEnd(take, raisesScores: false).ticks
    func top(_ ticks: [(t: Double, pose: Pose)]) -> Float {
      ticks.map { tick in tick.pose.joints.indices.map { tick.pose.joints[$0].confidence }.max()! }
        .max()!
    }
    #expect(abs(top(training) - top(plain) / 2) < 1e-6)
    #expect(top(runtime) > top(training) * 1.2)
  }

  /// A body's joints guessed with nobody there: jittered about a standing pose, every score
  /// 0.02–0.29, as a detector reports keypoints in an empty room.
  static func guesses(seconds: Double, from t0: Double, like pose: Pose) -> [(
    t: Double, pose: Pose
  )] {
    var generator = SeededGenerator(seed: 5)
    return (0..<Int(seconds * 30)).map { index in
      var guess = pose
      for j in guess.joints.indices where !guess.joints[j].isMissing {
        guess.joints[j].x += Float(generator.normal()) * 20
        guess.joints[j].y += Float(generator.normal()) * 20
        guess.joints[j].confidence = 0.02 + 0.27 * Float(generator.unit())
      }
      return (t0 + Double(index) / 30, guess)
    }
  }

  /// Guesses stay unreadable: alone, and after a set scored low (raised while the person was
  /// there), they add no rep. Raised with the set's scale, 30 s of them counted 15 squats.
  @Test(arguments: ["squat", "lunge", "push_up"])
  func keypointsGuessedWithNobodyThereCountNothing(name: String) {
    let take = recording(name, reps: 6, view: "side", seed: 43)
    let standing = take.frames.first { $0.pose.hasPerson }!.pose
    let end = take.frames.last!.t + 1 / 30
    var alone = take
    alone.frames = Self.guesses(seconds: 30, from: 0, like: standing)
    #expect(countTicks(name, frontEnd(alone).ticks) == 0)
    let set = Self.count(name, take, scoresTimes: 0.5)
    var after = take
    after.frames =
      take.frames.map { ($0.t, Self.times(0.5)($0.pose)) }
      + Self.guesses(seconds: 30, from: end, like: standing)
    #expect(set >= 5)
    #expect(countTicks(name, frontEnd(after).ticks) == set)
  }

  /// Low scores are raised until the joints in plain view reach the reference; none passes 1,
  /// a missing joint stays missing, nobody passes as nobody, and a frame under half the
  /// stream's level is left as it is even in a stream that is raised.
  @Test func readableFramesAreRaisedToTheReferenceAndNoFurther() {
    var pose = Pose()
    for (index, joint) in CanonicalJoint.allCases.enumerated() where index < 16 {
      pose[joint] = Joint(x: Float(index), y: 1, confidence: index < 12 ? 0.1 : 0.4)
    }
    pose.joints[15].confidence = 0.9
    var scale = ScoreScale()
    var scaled = Pose()
    for _ in 0..<10 { scaled = scale.rescale(pose) }
    // The upper quartile of 16 scores is the 13th lowest: 0.4, raised to 0.6.
    #expect(abs(scale.factor - 1.5) < 1e-6)
    for index in pose.joints.indices {
      let (before, after) = (pose.joints[index], scaled.joints[index])
      #expect(after.isMissing == before.isMissing)
      #expect(before.isMissing || abs(after.confidence - min(1, before.confidence * 1.5)) < 1e-6)
      #expect(after.x == before.x && after.y == before.y)
    }
    #expect(scaled.joints[15].confidence == 1)
    #expect(scale.rescale(.nobody) == .nobody)
    let faint = Self.times(0.45)(pose)  // its upper quartile, 0.18, is under half of 0.4
    #expect(scale.rescale(faint) == faint)
    #expect(scale.factor > 1)
  }

  /// The level is a median over 60 frames: a stream that turns faint is raised at once only
  /// where it stays readable, and a stream that drops under the floor for good stops being
  /// raised once most of the last 60 frames are under it.
  @Test func theLevelFollowsTheLast60Frames() {
    var pose = Pose()
    for (index, joint) in CanonicalJoint.allCases.enumerated() {
      pose[joint] = Joint(x: Float(index), y: 1, confidence: 0.4)
    }
    var scale = ScoreScale()
    for _ in 0..<60 { _ = scale.rescale(Self.times(2)(pose)) }  // 0.8: not raised
    #expect(scale.factor == 1)
    for _ in 0..<31 { _ = scale.rescale(pose) }  // 0.4: most of the last 60
    #expect(abs(scale.factor - 1.5) < 1e-6)
    for _ in 0..<31 { _ = scale.rescale(Self.times(0.5)(pose)) }  // 0.2: under the floor
    #expect(scale.factor == 1)
  }
}
