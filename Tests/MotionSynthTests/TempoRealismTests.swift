import Foundation
import Poses
import Randomness
import Testing

@testable import MotionSynth

@Suite struct TempoRealismTests {
  static let bands: [ClosedRange<Double>] = [0.45...0.8, 0.8...1.2, 1.2...2, 2...3.5, 3.5...6]

  /// A pinned band is kept: each set lasts its reps times a tempo inside the band (the clip time
  /// ÷ reps that `spotter eval --tempo` reads), its rep bounds are in order inside it, and no
  /// rep takes longer than a slow band allows or leaves the rest of the set no time.
  @Test(arguments: bands, [ExerciseMotion.pushUp, .squat, .jumpingJack])
  func setsAreDrawnAtATempoInsideThePinnedBand(band: ClosedRange<Double>, motion: ExerciseMotion)
    throws
  {
    var options = RecordingOptions()
    options.realism = .tempo
    options.secondsPerRep = band
    options.extraPartialReps = 1  // an abandoned movement takes time but is no rep
    for seed in UInt64(1)...4 {
      let recording = Recorder.record(
        .single(motion, reps: 6 + Int(seed)), options: options, seed: seed)
      let set = try #require(recording.segments.first { $0.label == motion.label })
      let reps = try #require(set.reps)
      #expect(reps == 6 + Int(seed))
      let secondsPerRep = (set.end - set.start) / Double(reps)
      // Inside the band where the exercise is done at that tempo; else anywhere in the band.
      let inside =
        motion.isDone(within: band)
        ? max(
          band.lowerBound, motion.tempoRange.lowerBound)...min(
            band.upperBound, motion.tempoRange.upperBound)
        : band
      #expect(inside.contains(secondsPerRep), "\(motion) at \(secondsPerRep) s a rep")
      for (index, bound) in set.repBounds.enumerated() {
        #expect(bound.lowerBound >= set.start && bound.upperBound <= set.end)
        #expect(bound.upperBound > bound.lowerBound)
        if index > 0 { #expect(bound.lowerBound >= set.repBounds[index - 1].upperBound) }
        // Pace changes by up to 1.6 times and jitter by 12%: a rep's span stays under twice
        // the set's tempo, and under the engines' longest rep (8 s).
        #expect(bound.upperBound - bound.lowerBound < min(2 * secondsPerRep, 8))
      }
      let moving = set.repBounds.reduce(0) { $0 + $1.upperBound - $1.lowerBound }
      #expect(moving > 0.4 * (set.end - set.start))
    }
  }

  /// Quick sets are shallow, except jumping jacks; slower ones keep the style's depth.
  @Test func quickSetsAreShallow() {
    var generator = SeededGenerator(seed: 3)
    for _ in 0..<50 {
      let quick = SetTempo.draw(.pushUp, within: 0.45...0.8, generator: &generator)
      #expect(quick.secondsPerRep < 0.8 && (0.45...0.8).contains(quick.depth ?? -1))
      #expect(quick.bottomHold == 0 && quick.first == 1 && quick.last == 1)
      let jacks = SetTempo.draw(.jumpingJack, within: 0.45...0.8, generator: &generator)
      #expect((0.7...1).contains(jacks.depth ?? -1))
      let slow = SetTempo.draw(.squat, within: 2...3.5, generator: &generator)
      #expect(slow.depth == nil)
    }
  }

  /// Without a pinned band, the drawn tempos cover the exercise's whole range, every band of
  /// it, and some sets change pace inside.
  @Test func unpinnedTemposCoverEveryBand() {
    var generator = SeededGenerator(seed: 11)
    let tempos = (0..<400).map { _ in
      SetTempo.draw(.pushUp, within: nil, generator: &generator)
    }
    for band in Self.bands {
      #expect(tempos.contains { band.contains($0.secondsPerRep) }, "none in \(band)")
    }
    #expect(tempos.allSatisfy { ExerciseMotion.pushUp.tempoRange.contains($0.secondsPerRep) })
    #expect(tempos.contains { $0.last > 1.2 * $0.first })  // slowing
    #expect(tempos.contains { $0.last < $0.first / 1.2 })  // speeding up
    #expect(tempos.contains { $0.stepAt != nil })
    #expect(tempos.contains { $0.secondsPerRep >= 2 && $0.bottomHold > 0 })
  }

  /// A random workout at a pinned tempo draws only exercises done at that tempo.
  @Test func randomWorkoutsDrawFromTheExercisesGiven() {
    let quick = ExerciseMotion.allCases.filter { $0.isDone(within: 0.45...0.8) }
    #expect(Set(quick) == [.jumpingJack, .pushUp, .sitUp, .benchPress])
    for seed in UInt64(0)..<20 {
      var c = SeededGenerator(seed: seed)
      for item in WorkoutPlan.random(sets: 3, of: quick, generator: &c).items {
        if case .exercise(let motion, _, _) = item { #expect(quick.contains(motion)) }
      }
    }
  }
}

@Suite struct DetectorGlitchTests {
  /// A person's pose in pixels, every joint seen, in the middle of a picture so large that no
  /// snapped joint leaves it.
  static let pose: Pose = {
    var pose = Pose()
    for joint in CanonicalJoint.allCases {
      pose[joint] = Joint(
        x: 2000 + Float(joint.rawValue % 5) * 20, y: 2000 + Float(joint.rawValue) * 20,
        confidence: 0.9)
    }
    return pose
  }()

  /// Runs `glitches` over 4,000 frames of `pose` (a person 400 px tall); `check` sees each
  /// frame's pose and the joints a glitch moved. Returns how many frames in a row each glitch
  /// lasted, counting the snaps' runs if `snaps`, else the flips'.
  static func glitchLengths(
    _ glitches: DetectorGlitches, seed: UInt64, snaps: Bool,
    check: (Pose, [CanonicalJoint]) -> Void
  ) -> [Int] {
    var state = DetectorGlitches.State(generator: SeededGenerator(seed: seed))
    var lengths: [Int] = []
    var current = 0
    for _ in 0..<4000 {
      let isNew = snaps ? state.snap == nil : state.flip == nil
      var pose = Self.pose
      state.apply(glitches, to: &pose, scale: 400, width: 4000, height: 4000)
      let moved = CanonicalJoint.allCases.filter { pose[$0] != Self.pose[$0] }
      check(pose, moved)
      if !moved.isEmpty {
        if isNew && current > 0 { lengths.append(current) }
        current = isNew ? 1 : current + 1
      } else if current > 0 {
        lengths.append(current)
        current = 0
      }
    }
    return lengths
  }

  /// A snapped joint: one joint at a time, thrown 0.15–0.5 of the person's height away, for
  /// 1–3 frames; the rest of the pose untouched.
  @Test func aSnappedJointIsOneJointThrownAwayForAFrameToThree() {
    let lengths = Self.glitchLengths(
      DetectorGlitches(snaps: 0.05, flips: 0), seed: 5, snaps: true
    ) { pose, moved in
      #expect(moved.count <= 1)
      if let joint = moved.first {
        let dx = Double(pose[joint].x - Self.pose[joint].x)
        let dy = Double(pose[joint].y - Self.pose[joint].y)
        let distance = (dx * dx + dy * dy).squareRoot()
        #expect(distance >= 0.15 * 400 - 1e-3 && distance <= 0.5 * 400 + 1e-3)
        #expect(pose[joint].confidence == Self.pose[joint].confidence)
      }
    }
    #expect(lengths.count > 50)  // present
    #expect(lengths.allSatisfy { (1...DetectorGlitches.longestSnap).contains($0) })
    #expect(Set(lengths) == [1, 2, 3])
  }

  /// A flipped limb: an arm's or a lower leg's left and right joints trade places for 2–5
  /// frames; nothing else changes.
  @Test func aFlippedLimbSwapsItsSidesForAFewFrames() {
    let arm: Set<CanonicalJoint> = [.leftElbow, .rightElbow, .leftWrist, .rightWrist]
    let leg: Set<CanonicalJoint> = [.leftKnee, .rightKnee, .leftAnkle, .rightAnkle]
    let lengths = Self.glitchLengths(
      DetectorGlitches(snaps: 0, flips: 0.05), seed: 9, snaps: false
    ) { pose, moved in
      #expect(moved.isEmpty || Set(moved) == arm || Set(moved) == leg)
      for joint in moved { #expect(pose[joint] == Self.pose[joint.mirrored]) }
    }
    #expect(lengths.count > 30)
    #expect(lengths.allSatisfy { (2...DetectorGlitches.longestFlip).contains($0) })
  }

  /// Glitches draw from their own stream: a detector with them reports what one without them
  /// does, except in the few joints a glitch moves; and the tempo realism's detector has them.
  @Test func glitchesChangeNothingElseADetectorReports() {
    var plain = DetectorModel.normal
    plain.glitches = .none
    var glitchy = plain
    glitchy.glitches = .tempo
    let generator = SeededGenerator(seed: 21)
    var a = plain.session(generator: generator)
    var b = glitchy.session(generator: generator)
    var options = RecordingOptions()
    options.realism = .tempo
    #expect(options.seenBy.glitches == .tempo)
    options.realism = .everyday
    #expect(options.seenBy.glitches == .none)
    var bodyGenerator = SeededGenerator(seed: 4)
    let body = BodyShape.random(using: &bodyGenerator)
    let set = ExerciseSet(
      .squat, reps: 20, style: .textbook, secondsPerRep: 1.5, generator: &bodyGenerator)
    var cameraGenerator = SeededGenerator(seed: 2)
    let camera = VirtualCamera.random(
      .side, target: Vector3(0, 0.9, 0), extent: 2, generator: &cameraGenerator)
    var differing = 0
    for frame in 0..<Int(set.duration * 30) {
      let state = set.state(at: Double(frame) / 30)
      let joints = state.worldJoints(for: body)
      let axes = state.axes
      let seen = a.observe(joints, camera: camera, lateral: axes.lateral, facing: axes.facing)
      let glitched = b.observe(joints, camera: camera, lateral: axes.lateral, facing: axes.facing)
      let moved = CanonicalJoint.allCases.filter { seen[$0] != glitched[$0] }
      #expect(moved.count <= 5)  // a snapped joint and a flipped limb's four at most
      if !moved.isEmpty { differing += 1 }
    }
    #expect(differing > 0)
  }
}
