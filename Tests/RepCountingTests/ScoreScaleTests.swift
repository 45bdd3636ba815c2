import MotionSynth
import Poses
import Testing

@testable import RepCounting

/// Streams from detectors that score joints low (`ScoreScale`): put on the scale the
/// definitions are set on, they count as the same poses scored high do.
@Suite struct ScoreScaleTests {
  /// The recording's poses through the front end, every score multiplied by `factor` first.
  static func ticks(_ recording: Recording, scoresTimes factor: Float) -> [(t: Double, pose: Pose)]
  {
    var pipeline = FramePipeline()
    var ticks: [(t: Double, pose: Pose)] = []
    var frame = PeopleFrame()
    for sample in recording.frames {
      var pose = sample.pose
      for index in pose.joints.indices where !pose.joints[index].isMissing {
        pose.joints[index].confidence *= factor
      }
      frame.t = sample.t
      frame.people = pose.hasPerson ? [pose] : []
      pipeline.push(frame) { pose, t in ticks.append((t, pose)) }
    }
    return ticks
  }

  static func count(_ name: String, _ ticks: [(t: Double, pose: Pose)]) -> Int {
    let counter = RepCounter(catalogue.definition(named: name)!)
    for tick in ticks { counter.process(tick.pose, t: tick.t) { _ in } }
    counter.finish(at: ticks.last!.t) { _ in }
    return counter.count
  }

  /// Scores at a third of MotionSynth's (0.2–0.33 in plain view, below every definition's 0.3
  /// floor) count as the same stream at the reference does (two thirds); before the scale they
  /// counted nothing.
  @Test(arguments: [("squat", "side"), ("push_up", "side"), ("bicep_curl", "front")])
  func lowScoresCountAsTheSameStreamAtTheReferenceDoes(_ exercise: (name: String, view: String)) {
    let take = recording(exercise.name, reps: 7, view: exercise.view, seed: 41)
    #expect(Self.count(exercise.name, Self.ticks(take, scoresTimes: 1)) == 7)
    let atReference = Self.count(exercise.name, Self.ticks(take, scoresTimes: 2.0 / 3))
    #expect(atReference >= 7)
    #expect(Self.count(exercise.name, Self.ticks(take, scoresTimes: 1.0 / 3)) == atReference)
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

  /// Low scores are raised until the joints in plain view reach the reference; none passes 1,
  /// a missing joint stays missing, and nobody passes as nobody.
  @Test func lowScoresAreRaisedToTheReferenceAndNoFurther() {
    var pose = Pose()
    for (index, joint) in CanonicalJoint.allCases.enumerated() where index < 16 {
      pose[joint] = Joint(x: Float(index), y: 1, confidence: index < 12 ? 0.1 : 0.3)
    }
    pose.joints[15].confidence = 0.9
    var scale = ScoreScale()
    var scaled = Pose()
    for _ in 0..<10 { scaled = scale.rescale(pose) }
    // The upper quartile of 16 scores is the 13th lowest: 0.3, raised to 0.6.
    #expect(abs(scale.factor - 2) < 1e-6)
    for index in pose.joints.indices {
      let (before, after) = (pose.joints[index], scaled.joints[index])
      #expect(after.isMissing == before.isMissing)
      #expect(before.isMissing || abs(after.confidence - min(1, before.confidence * 2)) < 1e-6)
      #expect(after.x == before.x && after.y == before.y)
    }
    #expect(scaled.joints[15].confidence == 1)
    #expect(scale.rescale(.nobody) == .nobody)
    var two = Pose()
    two[.nose] = Joint(x: 0, y: 0, confidence: 0.4)
    two[.neck] = Joint(x: 0, y: 1, confidence: 0.05)
    var fresh = ScoreScale()
    #expect(abs(fresh.rescale(two)[.nose].confidence - 0.6) < 1e-6)
  }
}
