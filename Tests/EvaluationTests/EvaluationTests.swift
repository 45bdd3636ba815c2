import ActionModel
import Poses
import Randomness
import RepCounting
import Spotter
import TestSupport
import Testing

@testable import Evaluation

@Suite struct EvaluationTests {
  /// A hand-made example: three labels, five clips, known windows and reps.
  /// Windows drawn calibrated at temperature 2 (right with their top probability) and then
  /// made overconfident as an untempered network is (p², normalised): the fit finds 2 back, and
  /// at it their expected calibration error is near zero, far under the overconfident one.
  @Test func temperatureScalingFindsTheTemperatureThatMadeTheWindows() {
    var generator = SeededGenerator(seed: 3)
    var windows: [Calibration.Window] = []
    for index in 0..<4000 {
      let top = 0.35 + 0.6 * generator.unit()
      let right = generator.unit() < top
      let truth = right ? 0 : 1 + Int(generator.next() % 3)
      let rest = (1 - top) / 3
      let calibrated = [top, rest, rest, rest]
      let sharp = calibrated.map { $0 * $0 }
      windows.append(
        Calibration.Window(
          probabilities: sharp.map { Float($0 / sharp.reduce(0, +)) }, truth: truth,
          fold: index % 5, dataset: index % 2))
    }
    let fitted = Calibration.fitTemperature(windows)
    #expect(abs(fitted - 2) < 0.15, "\(fitted)")
    let asIs = Calibration.expectedError(Calibration.confidences(windows, temperature: 1))
    let crossFitted = Calibration.expectedError(Calibration.crossFitted(windows).confidences)
    #expect(asIs > 0.1 && crossFitted < 0.03, "\(asIs) \(crossFitted)")
  }

  @Test func theArithmeticOfAHandMadeExample() {
    var report = EvaluationReport(labels: ["squat", "lunge", "other"])
    let squat: [Float] = [0.8, 0.1, 0.1]
    let lunge: [Float] = [0.2, 0.7, 0.1]
    let other: [Float] = [0.1, 0.1, 0.8]
    // Clip 1, squat: windows squat, squat, lunge → mean says squat.
    report.addClip(
      "a.jsonl", truth: "squat", windows: [squat, squat, lunge], scores: [0.6, 0.3, 0.1])
    // Clip 2, squat: windows lunge, lunge → lunge.
    report.addClip("b.jsonl", truth: "squat", windows: [lunge, lunge], scores: [0.2, 0.7, 0.1])
    // Clip 3, lunge: right.
    report.addClip("c.jsonl", truth: "lunge", windows: [lunge], scores: [0.2, 0.7, 0.1])
    // Clip 4, other: right.
    report.addClip("d.jsonl", truth: "other", windows: [other, other], scores: [0.1, 0.1, 0.8])
    // Clip 5: a label the model does not know.
    report.addClip("e.jsonl", truth: "burpee", windows: [other], scores: [0.1, 0.1, 0.8])
    #expect(report.clips == 4)
    #expect(report.clipAccuracy == 0.75)
    #expect(report.windowsTotal == 8)
    #expect(report.windowsCorrect == 2 + 0 + 1 + 2)
    #expect(report.confusion == [[1, 1, 0], [0, 1, 0], [0, 0, 1]])
    #expect(report.precision(0) == 1)  // one squat predicted, right
    #expect(report.recall(0) == 0.5)  // two squats, one found
    #expect(report.precision(1) == 0.5)
    #expect(report.recall(1) == 1)
    #expect(report.unknownLabels == ["burpee": 1])
    #expect(
      report.mislabelled.map { [$0.clip, $0.truth, $0.predicted] } == [
        ["b.jsonl", "squat", "lunge"]
      ])
    #expect(abs(report.mislabelled[0].probability - 0.7) < 1e-6)
    #expect(abs(report.mislabelled[0].truthProbability - 0.2) < 1e-6)

    report.addReps(RepScore(file: "a", label: "squat", truth: 10, counted: 10))
    report.addReps(RepScore(file: "b", label: "squat", truth: 12, counted: 9))  // |9 − 12| / 12
    report.addReps(RepScore(file: "c", label: "lunge", truth: 4, counted: 5))  // 0.25
    // No reps done: left out of the MAE.
    report.addReps(RepScore(file: "d", label: "lunge", truth: 0, counted: 0))
    let squats = report.repError(for: "squat")!
    #expect(squats.clips == 2 && abs(squats.mae - 0.125) < 1e-12 && squats.withinOne == 0.5)
    let lunges = report.repError(for: "lunge")!
    #expect(lunges.clips == 2 && abs(lunges.mae - 0.25) < 1e-12 && lunges.withinOne == 1)
    let all = report.repError()!
    #expect(all.clips == 4 && abs(all.mae - 0.5 / 3) < 1e-12 && all.withinOne == 0.75)
    #expect(report.reps.worst(2).map(\.file) == ["b", "c"])
    #expect(report.reps.worst(10).map(\.file) == ["b", "c"])  // not those counted exactly
  }
}

@Suite struct ClipScoringTests {
  /// A clip scored as a session classifies it: only windows in which at least 60% of the
  /// frames show a person, each equal to a stream's probabilities at that frame; a clip with
  /// no such window is scored by its last one.
  @Test func clipsAreScoredByTheWindowsASessionClassifies() {
    let classifier = Fixtures.randomClassifier(.tiny(classes: 3), seed: 5)
    // 20 frames of a person, 40 of nobody, 105 of a person again: 30 fps. The last frame
    // ends no window of the stride, so it is not classified.
    let shown = (0..<165).map { $0 < 20 || $0 >= 60 }
    let ticks = shown.enumerated().map { index, person in
      let t = Double(index) / 30
      return (t: t, pose: person ? Fixtures.squatter(at: t) : .nobody)
    }
    let recording = ResampledRecording(ticks: ticks)
    let (windows, _) = ClipScoring.classify(
      recording, from: nil, to: nil, classifier: classifier, stride: 10)
    // Expected: the windows ending at frames 9, 19, …, 159 with at least 36 of their 60
    // frames showing a person, from a stream of the same frames.
    let stream = FeatureStream(classifier: classifier)
    var expected: [[Float]] = []
    for (index, tick) in ticks.enumerated() {
      stream.push(tick.pose)
      let inWindow = shown[max(0, index - 59)...index].filter { $0 }.count
      if (index + 1) % 10 == 0 && inWindow >= 36 { expected.append(stream.probabilities()) }
    }
    #expect(expected.count == 7)  // ending at frames 99 (40 shown), 109, …, 159
    #expect(windows == expected)

    let short = ResampledRecording(ticks: Array(ticks.prefix(25)))
    let (one, mean) = ClipScoring.classify(
      short, from: nil, to: nil, classifier: classifier, stride: 10)
    #expect(one.count == 1 && one[0] == mean)
  }
}

@Suite struct TimelineReportTests {
  /// Two files by hand: boundaries on time and not, a split set, a miss, two stray exercises
  /// in one file.
  @Test func theArithmeticOfAHandMadeTimeline() {
    var report = TimelineReport(tolerance: 1)
    let rep = Rep(count: 1, start: 0, end: 1, rangeOfMotion: 1, timeDown: 0.5, timeUp: 0.5)
    report.add(
      events: [.exerciseStarted(t: 10.5, exercise: "squat", confidence: 1)]
        + [.rep(t: 12, exercise: "squat", rep: rep, backfilled: false)]
        + [.exerciseEnded(t: 29.2, exercise: "squat", reps: 8)]
        + Self.segment("lunge", 31, 33, reps: 2) + Self.segment("jumping_jack", 35, 37, reps: 1)
        + Self.segment("push_up", 42.5, 55, reps: 6),
      truth: [
        Annotation(fileName: "a", label: "squat", startTime: 10, endTime: 30, reps: 8),
        Annotation(fileName: "a", label: "other", startTime: 30, endTime: 40),
        Annotation(fileName: "a", label: "push_up", startTime: 40, endTime: 55, reps: 7),
      ])
    report.add(
      events: Self.segment("curl", 1, 5, reps: 3) + Self.segment("curl", 6, 10, reps: 4),
      truth: [
        Annotation(fileName: "b", label: "curl", startTime: 1, endTime: 10, reps: 7),
        Annotation(fileName: "b", label: "squat", startTime: 12, endTime: 20, reps: 5),
      ])
    #expect(report.files == 2)
    #expect(report.sets == 4)
    #expect(report.found == 3)
    // Squat: 0.5 s late, 0.8 s early: on time. Push-up: 2.5 s late. Curl: split in two.
    #expect(report.onTime == 1)
    #expect(report.countedExactly == 2)  // the squat, and the split curl (3 + 4)
    #expect(report.repErrors == 1 + 5)  // a push-up short, the missed squats
    #expect(report.strayExercises == 2 && report.strayReps == 3 && report.strayRecordings == 1)
    #expect(report.startErrors == [0.5, 2.5, 0])
    #expect(report.endErrors.map { ($0 * 10).rounded() / 10 } == [-0.8, 0, 0])
    #expect(TimelineReport.spread(report.startErrors)!.median == 0.5)
    #expect(report.perLabel["curl"]! == (sets: 1, onTime: 0, exact: 1))
    // Whatever the runtime took them for: squat 8 of 8, push-up 6 of 7 (the lunge segment
    // overlaps no set), curl 3 + 4 of 7, the missed squats 0 of 5.
    #expect(report.runtimeReps.map(\.counted) == [8, 6, 7, 0])
  }

  /// Files alternate between the halves within each label, by name, whatever their order.
  @Test func theHalvesAreFixedByFileNameWithinEachLabel() {
    let annotations =
      ["s3", "s1", "s2", "p1", "p2"].map {
        Annotation(fileName: $0, label: $0.hasPrefix("s") ? "squat" : "push_up", reps: 5)
      } + [Annotation(fileName: "s1", label: "other")]
    #expect(AnnotationSplit.tune.select(annotations).map(\.fileName) == ["s3", "s1", "p1", "s1"])
    #expect(AnnotationSplit.holdout.select(annotations).map(\.fileName) == ["s2", "p2"])
    #expect(AnnotationSplit.all.select(annotations).count == 6)
  }

  /// A reported exercise segment: its start and end events.
  static func segment(_ exercise: String, _ start: Double, _ end: Double, reps: Int)
    -> [SpotterEvent]
  {
    [
      .exerciseStarted(t: start, exercise: exercise, confidence: 1),
      .exerciseEnded(t: end, exercise: exercise, reps: reps),
    ]
  }
}

/// `spotter eval --shake`, `--scores`, `--frame-rate`: another detector, drawn the same way for
/// the same file.
@Suite struct PoseShakerTests {
  static func frame() -> PeopleFrame {
    var pose = Pose()
    for (index, (x, y)) in [(0.2, 0.1), (0.8, 0.3), (0.5, 0.9), (0.4, 0.5)].enumerated() {
      pose.joints[index * 3] = Joint(x: Float(x), y: Float(y), confidence: 1)
    }
    var frame = PeopleFrame()
    frame.people = [pose]
    return frame
  }

  static func shaken(seed: UInt64, label: UInt64) -> [Joint] {
    var shaker = PoseShaker(deviation: 0.05, seed: seed, label: label)
    var frame = frame()
    shaker.shake(&frame)
    return (0..<4).map { frame.people[0].joints[$0 * 3] }
  }

  @Test func jointsMoveAndTheBoxStays() {
    let before = (0..<4).map { Self.frame().people[0].joints[$0 * 3] }
    let after = Self.shaken(seed: 1, label: 7)
    let moved = zip(before, after).map { abs($0.x - $1.x) + abs($0.y - $1.y) }
    #expect(moved.contains { $0 > 1e-3 }, "\(after)")
    for axis in [\Joint.x, \Joint.y] {
      let (low, high) = (
        before.map { $0[keyPath: axis] }.min()!, before.map { $0[keyPath: axis] }.max()!
      )
      #expect(abs(after.map { $0[keyPath: axis] }.min()! - low) < 1e-5)
      #expect(abs(after.map { $0[keyPath: axis] }.max()! - high) < 1e-5)
    }
    #expect(after.allSatisfy { $0.confidence == 1 })
  }

  /// `--scores`: every detected joint scored within the range, positions untouched, a
  /// missing joint still missing.
  @Test func scoresAreDrawnInTheRangeAndJointsStayPut() {
    var shaker = PoseShaker(deviation: 0, scores: 0.2...0.4, seed: 1, label: 7)
    var frame = Self.frame()
    let before = frame.people[0]
    var drawn: Set<Float> = []
    for _ in 0..<20 {
      shaker.shake(&frame)
      for index in before.joints.indices {
        let (old, new) = (before.joints[index], frame.people[0].joints[index])
        #expect(new.isMissing == old.isMissing && new.x == old.x && new.y == old.y)
        if !new.isMissing {
          #expect((0.2...0.4).contains(new.confidence))
          drawn.insert(new.confidence)
        }
      }
    }
    #expect(drawn.count > 40)
  }

  /// `--frame-rate`: from 30 frames a second with times rounded to 0.1 ms (as Countix-Fitness
  /// writes them), a detector at N keeps N a second, each the first at or after its tick.
  @Test(arguments: [(30.0, 30), (25, 25), (15, 15), (10, 10), (7, 7), (60, 30)])
  func aLowerFrameRateKeepsThatManyFramesASecond(rate: Double, kept: Int) {
    var shaker = PoseShaker(deviation: 0, frameRate: rate, seed: 1, label: 7)
    let start = 12.3456
    let times = (0..<90).map { ((start + Double($0) / 30) * 10_000).rounded() / 10_000 }
    let keptTimes = times.filter { shaker.keeps($0) }
    #expect(keptTimes.count == 3 * kept)
    for (index, t) in keptTimes.enumerated() where rate <= 30 {
      let tick = start + Double(index) / rate
      #expect(t >= tick - 1e-3 && t < tick + 1 / 30, "frame \(index) at \(t), tick \(tick)")
    }
  }

  @Test func theSameSeedAndFileShakeAlike() {
    #expect(Self.shaken(seed: 1, label: 7) == Self.shaken(seed: 1, label: 7))
    #expect(Self.shaken(seed: 1, label: 7) != Self.shaken(seed: 1, label: 8))
    #expect(Self.shaken(seed: 1, label: 7) != Self.shaken(seed: 2, label: 7))
  }
}
