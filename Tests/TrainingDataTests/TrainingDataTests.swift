import ActionModel
import Poses
import Randomness
import TestSupport
import Testing

@testable import TrainingData

@Suite struct TrainingDataTests {
  /// The same seed gives the same windows, drawn in rounds of 4 workouts (5 as 4 + 1) or 12.
  @Test func syntheticWindowsAreTheSameForASeedAndLabelledFromTheWorkout() {
    let a = DatasetBuilder.synthetic(count: 5, seed: 4, labels: Labels.all, workers: 1)
    let b = DatasetBuilder.synthetic(count: 5, seed: 4, labels: Labels.all, workers: 3)
    #expect(a.count > 80)
    #expect(a.labels == b.labels && a.groups == b.groups)
    #expect((0..<a.count).allSatisfy { a.window($0) == b.window($0) })
    let c = DatasetBuilder.synthetic(count: 3, seed: 5, labels: Labels.all)
    #expect(c.window(0) != a.window(0))
    #expect(Set(a.groups) == [0, 1, 2, 3, 4])
    #expect(a.labels.contains(Labels.all.firstIndex(of: "other")!))
    // Frames are kept once: far fewer than the windows' frames.
    #expect(a.frameCount * 3 < a.count * 60)
    #expect(!(0..<a.count).contains { a.isRecorded($0) })
  }

  /// Windows of annotated recordings are marked as recorded, and labelled from their clips.
  @Test func annotatedWindowsAreRecordedAndLabelledFromTheirClips() throws {
    let folder = Fixtures.temporaryFolder()
    let result = try SpotterProcess.run([
      "synth", "--output", folder, "--workout", "squat:4, lunge:4", "--count", "1", "--seed", "3",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let set = try DatasetBuilder.annotated(
      folder + "/annotations.json", labels: Labels.all, variants: 1, seed: 1)
    #expect(set.count > 4)
    #expect((0..<set.count).allSatisfy { set.isRecorded($0) })
    let names = Set(set.labels.map { Labels.all[$0] })
    // The annotations also mark what comes between the sets as `other`.
    #expect(names == ["squat", "lunge", "other"])
  }

  /// Whether a window is of real people (what `--recorded-weight` weights) survives appending
  /// sets and taking subsets.
  @Test func recordedWindowsStayMarkedThroughAppendsAndSplits() {
    var recorded = TrainingSet(window: 2, features: 1)
    let clip = recorded.addRecording([1, 2, 3])
    recorded.addWindow(of: clip, endingAt: 2, label: 1, group: 0, recorded: true)
    var set = TrainingSet(window: 2, features: 1)
    let synthetic = set.addRecording([4, 5])
    set.addWindow(of: synthetic, endingAt: 1, label: 0, group: 0, recorded: false)
    set.append(contentsOf: recorded, groupOffset: 1_000_000)
    #expect(!set.isRecorded(0) && set.isRecorded(1))
    #expect(set.window(1) == [2, 3])
    let (train, held) = set.split(holdingOut: 0.5, seed: 1)
    for subset in [train, held] {
      for index in 0..<subset.count {
        #expect(subset.isRecorded(index) == (set.groups[subset.indices[index]] == 1_000_000))
      }
    }
  }

  /// A window cut from the kept frames is what the runtime's feature stream held at its last
  /// frame (to half precision), zero-padded before the recording's start.
  @Test func aWindowIsTheFramesItEndsAtPaddedAtTheStart() {
    var set = TrainingSet(window: 4, features: 2)
    let recording = set.addRecording([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])  // five frames
    set.addWindow(of: recording, endingAt: 1, label: 0, group: 0, recorded: false)
    set.addWindow(of: recording, endingAt: 4, label: 1, group: 0, recorded: false)
    let second = set.addRecording([11, 12, 13, 14])
    set.addWindow(of: second, endingAt: 1, label: 2, group: 1, recorded: false)
    #expect(set.window(0) == [0, 0, 0, 0, 1, 2, 3, 4])
    #expect(set.window(1) == [3, 4, 5, 6, 7, 8, 9, 10])
    #expect(set.window(2) == [0, 0, 0, 0, 11, 12, 13, 14])
    #expect(set.labels == [0, 1, 2] && set.frameCount == 7)
  }

  /// With `reflects`, augmentation mirrors a clip for real: in some copies a person who faced
  /// the image's right faces its left (x reflected), and in every copy their own left shoulder
  /// is still on the side it was (the sides swapped with it). Renaming the sides alone (the
  /// shipped recipe) turns no head.
  @Test(arguments: [true, false])
  func augmentedCopiesAreReflectedWithTheirSidesSwapped(reflects: Bool) {
    var pose = Pose()
    pose[.neck] = Joint(x: 300, y: 100, confidence: 1)
    pose[.nose] = Joint(x: 330, y: 70, confidence: 1)  // the head turned to the image's right
    pose[.leftShoulder] = Joint(x: 340, y: 100, confidence: 1)
    pose[.rightShoulder] = Joint(x: 260, y: 100, confidence: 1)
    pose[.leftHip] = Joint(x: 325, y: 220, confidence: 1)
    pose[.rightHip] = Joint(x: 275, y: 220, confidence: 1)
    var facing = (right: 0, left: 0)
    var shoulders = (frames: 0, leftOnTheRight: 0)
    for seed in 0..<40 as Range<UInt64> {
      var augmenter = Augmentation(
        generator: SeededGenerator(seed: seed), plain: false, reflects: reflects)
      for frame in augmenter.apply(to: Array(repeating: pose, count: 30)) {
        let (nose, neck) = (frame[.nose], frame[.neck])
        let (left, right) = (frame[.leftShoulder], frame[.rightShoulder])
        if !left.isMissing && !right.isMissing {
          shoulders.frames += 1
          if left.x > right.x { shoulders.leftOnTheRight += 1 }
        }
        if !nose.isMissing && !neck.isMissing {
          if nose.x > neck.x { facing.right += 1 } else { facing.left += 1 }
        }
      }
    }
    if reflects {
      #expect(facing.left > 100 && facing.right > 100)
      #expect(shoulders.frames > 200 && shoulders.leftOnTheRight == shoulders.frames)
    } else {
      #expect(facing.left == 0 && facing.right > 100)
      #expect(shoulders.leftOnTheRight < shoulders.frames)
    }
  }

  /// A tighter frame takes the feet (the ankles in every frame: they never leave the floor)
  /// or the top of the head (the eyes where the person stands tallest) out of the picture, for
  /// the whole clip, in about the share of copies asked for; without it nothing is cut.
  @Test func tighterFramesCutTheFeetOrTheHead() {
    let clip = (0..<60).map { Fixtures.squatter(at: Double($0) / 30) }
    var (feet, head, whole) = (0, 0, 0)
    for seed in 0..<200 as Range<UInt64> {
      var augmenter = Augmentation(
        generator: SeededGenerator(seed: seed), plain: false, crops: 0.5)
      let copy = augmenter.apply(to: clip)
      let anklesGone = copy.allSatisfy { $0[.leftAnkle].isMissing && $0[.rightAnkle].isMissing }
      let eyesGone = copy.contains { $0[.leftEye].isMissing && $0[.rightEye].isMissing }
      let anklesSeen = copy.filter { !$0[.leftAnkle].isMissing }.count
      if anklesGone {
        feet += 1
        #expect(copy.filter { !$0[.neck].isMissing }.count > copy.count / 2)
      } else if eyesGone && anklesSeen > copy.count / 2 {
        head += 1
      } else {
        whole += 1
      }
    }
    #expect((55...95).contains(feet) && (10...45).contains(head), "\(feet) feet, \(head) head")
    var plainly = Augmentation(generator: SeededGenerator(seed: 1), plain: false)
    let kept = plainly.apply(to: clip)
    #expect(kept.filter { $0[.leftAnkle].isMissing }.count < 10)
  }

  @Test func aSplitKeepsEachRecordingOnOneSide() {
    let set = DatasetBuilder.synthetic(count: 8, seed: 2, labels: Labels.all)
    let (train, held) = set.split(holdingOut: 0.4, seed: 1)
    #expect(train.count + held.count == set.count)
    let groups = { (subset: TrainingSet.Subset) in Set(subset.indices.map { set.groups[$0] }) }
    #expect(groups(train).isDisjoint(with: groups(held)))
    #expect(held.count > 0 && train.count > 0)
  }
}
