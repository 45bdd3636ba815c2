import Foundation
import Poses
import Randomness
import Testing

@testable import MotionSynth

/// The views training may draw from (`VirtualCamera.Mix`) and sets done as rehabilitation does
/// them (`RecordingOptions.Realism.rehab`).
@Suite struct CameraAndRehabTests {
  /// A mix of one range draws nothing, so a recipe without the new cameras keeps its bytes;
  /// `every-angle` puts a fifth of the cameras on the floor, below the person, many in front,
  /// and about a quarter above 35°.
  @Test func everyAngleDrawsFloorCamerasAndAMixOfOneDrawsNothing() {
    var generator = SeededGenerator(seed: 3)
    var untouched = SeededGenerator(seed: 3)
    _ = VirtualCamera.Mix.any.draw(using: &generator)
    #expect(generator.next() == untouched.next())
    var floor = 0
    var front = 0
    var above = 0.0
    for _ in 0..<2000 {
      let range = VirtualCamera.Mix.everyAngle.draw(using: &generator)
      if range.elevation.upperBound < 0 { floor += 1 }
      if range.azimuth == -45...45 { front += 1 }
      // The share of the range's elevations above 35°.
      let (low, high) = (range.elevation.lowerBound, range.elevation.upperBound)
      above += max(0, high - max(low, 35)) / (high - low)
    }
    #expect((340...460).contains(floor), "\(floor) of 2000 on the floor")
    #expect((520...680).contains(front), "\(front) of 2000 in front")
    #expect((440...680).contains(Int(above)), "\(above) of 2000 above 35°")
  }

  /// Deeper and slower than the same person's sets: the knees bend further, and each rep takes
  /// longer than the exercise's slowest usual tempo.
  @Test func rehabSquatsAreDeeperAndSlowerThanCleanOnes() throws {
    func knee(_ realism: RecordingOptions.Realism, seed: UInt64) throws -> (
      least: Double, secondsPerRep: Double
    ) {
      var options = RecordingOptions()
      options.realism = realism
      options.keepsWorld = true
      options.detector = .none
      let recording = Recorder.record(.single(.squat, reps: 6), options: options, seed: seed)
      let (hip, knee, ankle) = (
        CanonicalJoint.leftHip.rawValue, CanonicalJoint.leftKnee.rawValue,
        CanonicalJoint.leftAnkle.rawValue
      )
      let least = recording.world.map { joints in
        let (u, v) = (joints[hip] - joints[knee], joints[ankle] - joints[knee])
        return acos(Vector3.dot(u, v) / (u.length * v.length)) * 180 / .pi
      }.min()!
      let set = try #require(recording.segments.first { $0.label == "squat" })
      return (least, (set.end - set.start) / 6)
    }
    for seed in UInt64(1)...4 {
      let (clean, rehab) = (try knee(.clean, seed: seed), try knee(.rehab, seed: seed))
      #expect(rehab.least < clean.least - 10, "knee \(rehab.least)° against \(clean.least)°")
      #expect(rehab.secondsPerRep > ExerciseMotion.squat.tempo.upperBound * 1.3)
    }
  }

  /// Random workouts keep to the classic kinds unless asked: a recipe without the wider set
  /// draws the workouts it always drew; with it, the new kinds come up.
  @Test func randomWorkoutsDrawTheNewKindsOnlyWhenAsked() {
    func kinds(_ others: [OtherActivity.Kind]) -> Set<String> {
      var found: Set<String> = []
      for seed in UInt64(1)...300 {
        var generator = SeededGenerator(seed: seed)
        for item in WorkoutPlan.random(sets: 5, others: others, generator: &generator).items {
          if case .other(let kind, _) = item { found.insert(kind.rawValue) }
        }
      }
      return found
    }
    #expect(kinds(OtherActivity.Kind.classic) == Set(OtherActivity.Kind.classic.map(\.rawValue)))
    #expect(kinds(OtherActivity.Kind.allCases) == Set(OtherActivity.Kind.allCases.map(\.rawValue)))
  }
}
