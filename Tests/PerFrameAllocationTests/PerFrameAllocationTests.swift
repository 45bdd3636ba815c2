import ActionModel
import AllocationCounter
import Foundation
import Linalg
import MotionSynth
import Poses
import RepCounting
import TestSupport
import Testing

@testable import Spotter

#if DEBUG
  let optimised = false
#else
  let optimised = true
#endif

/// The per-frame path allocates nothing once warmed up: counted by interposing the allocator
/// (Tests/AllocationCounter), per thread, around a thousand frames.
///
/// Counted in optimised builds only (`make test` builds the suite that way): a debug build
/// keeps generic code unspecialised and boxes values the optimiser keeps on the stack.
@Suite(
  .enabled(
    if: optimised, "allocation counts mean something in optimised builds only: run make test"))
struct PerFrameAllocationTests {
  /// Allocations `body` makes on this thread.
  static func allocations(_ body: () -> Void) -> UInt64 {
    let before = spotter_thread_allocations()
    body()
    return spotter_thread_allocations() - before
  }

  @Test func theCounterSeesAllocations() {
    #expect(Self.allocations { _ = [Int](repeating: 1, count: 1000 + Int.random(in: 0..<2)) } >= 1)
  }

  /// With each feature version's extractor.
  @Test(arguments: FeatureSpec.versions)
  func posePathFromSelectionToWindowAllocatesNothing(version: Int) {
    let poses = (0..<1000).map { Fixtures.squatter(at: Double($0) / 30) }
    var people: [Pose] = []
    people.reserveCapacity(4)
    var selector = PersonSelector()
    var resampler = Resampler()
    let spec = FeatureSpec(version: version)
    var extractor = FeatureExtractor(spec: spec)
    var window = PoseWindow(featureCount: spec.featuresPerFrame)
    var features = [Float](repeating: 0, count: spec.featuresPerFrame)
    var input = [Float](repeating: 0, count: 60 * spec.featuresPerFrame)
    func step(_ index: Int) {
      people.removeAll(keepingCapacity: true)
      people.append(poses[index])
      let chosen = selector.select(people)
      resampler.push(t: Double(index) / 30 + (index % 3 == 0 ? 0.004 : 0), pose: chosen) {
        tick, _ in
        features.withUnsafeMutableBufferPointer { extractor.extract(tick, into: $0) }
        features.withUnsafeBufferPointer { window.push($0) }
      }
      input.withUnsafeMutableBufferPointer { window.copy(into: $0) }
    }
    for index in 0..<100 { step(index) }  // warm-up: the body-size history fills
    #expect(Self.allocations { for index in 100..<1000 { step(index) } } == 0)
  }

  /// Every frame and every 10, with the step's weights in single and in half precision, for
  /// one stream and for four in lockstep.
  @Test(arguments: [1, 10], [false, true])
  func streamingAllocatesNothing(stride: Int, half: Bool) {
    for streams in [1, 4] {
      streamingAllocatesNothing(stride: stride, half: half, streams: streams)
    }
  }

  func streamingAllocatesNothing(stride: Int, half: Bool, streams: Int) {
    let classifier = Fixtures.randomClassifier(.standard(classes: 13), seed: 3)
    let stream = classifier.makeStream(streams: streams, precision: half ? .half : .single)
    let frames = Fixtures.randomFrames(1000, features: 54 * streams, seed: 1)
    var probabilities = [Float](repeating: 0, count: 13 * streams)
    func step(_ index: Int) {
      frames[index].withUnsafeBufferPointer { stream.push($0) }
      if index % stride == 0 {
        probabilities.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
      }
    }
    for index in 0..<60 { step(index) }
    #expect(Self.allocations { for index in 60..<1000 { step(index) } } == 0)
  }

  /// The one-frame step's running sums are made at its first step, once: a state asked every
  /// 10 frames allocates nothing from its first frame on, and asked every frame after that,
  /// allocates them once and nothing more. (Without Spotter's own kernels there is no
  /// one-frame step: nothing at all.)
  @Test(arguments: [false, true])
  func theStepsSumsAreMadeOnceAtTheFirstStep(half: Bool) {
    let classifier = Fixtures.randomClassifier(.standard(classes: 13), seed: 3)
    let stream = classifier.makeStream(precision: half ? .half : .single)
    let frames = Fixtures.randomFrames(600, features: 54, seed: 1)
    var probabilities = [Float](repeating: 0, count: 13)
    func run(_ indices: Range<Int>, askEvery stride: Int) -> UInt64 {
      Self.allocations {
        for index in indices {
          frames[index].withUnsafeBufferPointer { stream.push($0) }
          if index % stride == stride - 1 {
            probabilities.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
          }
        }
      }
    }
    #expect(run(0..<300, askEvery: 10) == 0)
    #expect(run(300..<301, askEvery: 1) == (InstructionSet.available == .none ? 0 : 1))
    #expect(run(301..<600, askEvery: 1) == 0)
  }

  @Test(arguments: ConvolutionStrategy.allCases)
  func windowPredictionAllocatesNothing(strategy: ConvolutionStrategy) {
    let classifier = Fixtures.randomClassifier(.standard(classes: 13), seed: 3)
    let workspace = Workspace(for: classifier, tile: 4, strategy: strategy)
    let windows = Fixtures.randomFrames(60 * 9, features: 54, seed: 2).flatMap { $0 }
    var probabilities = [Float](repeating: 0, count: 9 * 13)
    func predict() {
      windows.withUnsafeBufferPointer { input in
        probabilities.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: 9, into: $0, workspace: workspace)
        }
      }
    }
    predict()
    #expect(Self.allocations { for _ in 0..<20 { predict() } } == 0)
  }

  @Test func decodingJSONLinesFramesAllocatesNothing() throws {
    let path = Fixtures.file(Fixtures.squatFile(frames: 3000))
    let source = try PoseFiles.open(path)
    var frame = PeopleFrame()
    for _ in 0..<10 { _ = try source.next(into: &frame) }
    var count = 0
    let made = Self.allocations {
      while case .frame = try! source.next(into: &frame) { count += 1 }
    }
    #expect(count == 2990)
    #expect(made == 0)
  }

  @Test(arguments: [
    "squat", "push_up", "bicep_curl", "side_tilt", "side_tilt_stages", "front_push_up",
    "knee_raise",
    "sit_up",
  ])
  func repCountingAllocatesNothing(name: String) throws {
    let definition = try #require(try ExerciseCatalogue.load().definition(named: name))
    let label = definition.label
    let take = Recorder.record(.single(ExerciseMotion(rawValue: label)!, reps: 12), seed: 3)
    let counter = RepCounter(definition)
    var reps = 0
    let frames = take.frames.map(\.pose)
    // Warm-up: one whole set, so every kind of event has been made once (the Swift runtime
    // sets up some type metadata on first use).
    for (index, pose) in frames.enumerated() {
      counter.process(pose, t: Double(index) / 30) { _ in }
    }
    counter.reset()
    var t = 0.0
    let made = Self.allocations {
      for (index, pose) in frames.enumerated() {
        counter.process(pose, t: t) { event in if case .rep = event { reps += 1 } }
        // Now and then the person walks off: the engine starts afresh, still allocating nothing.
        if index % 300 == 299 { counter.engine.interrupt(at: t, because: .gap) { _ in } }
        t += 1.0 / 30
      }
    }
    #expect(made == 0)
    #expect(reps > 0)
  }

  @Test func namingAJointOutOfSightAllocatesNothing() throws {
    let definition = try #require(try ExerciseCatalogue.load().definition(named: "push_up"))
    let take = Recorder.record(.single(.pushUp, reps: 12), seed: 3)
    // The hands leave the picture for five seconds of every ten.
    let frames = take.frames.enumerated().map { index, frame in
      var pose = frame.pose
      if index % 300 >= 150 { (pose[.leftWrist], pose[.rightWrist]) = (.missing, .missing) }
      return pose
    }
    let counter = RepCounter(definition)
    var cues = 0
    func run() {
      for (index, pose) in frames.enumerated() {
        counter.process(pose, t: Double(index) / 30) { event in if case .cue = event { cues += 1 } }
      }
    }
    run()  // warm-up: every kind of event made once
    counter.reset()
    cues = 0
    let made = Self.allocations(run)
    #expect(made == 0)
    #expect(cues > 0)
  }

  /// Predicting in-line (nil); and two sessions leaving predictions to their caller, who catches
  /// their network states up together and makes them every `batchEvery` frames: after each
  /// frame, as the daemon does for a client that sends as it goes, or after 100, as for one
  /// that sends in bursts (the sessions then make most predictions themselves, their held ticks
  /// full). A session makes its network state at its first prediction, once: that comes in the
  /// warm-up, and nothing is allocated after it.
  @Test(arguments: [nil, 1, 100]) func aSessionAllocatesNothingPerFrame(batchEvery: Int?) throws {
    let classifier = Fixtures.randomClassifier(.standard(classes: 13), seed: 2)
    let runtime = Runtime(classifier: classifier, catalogue: try ExerciseCatalogue.load())
    let batching = batchEvery != nil
    let sessions = (0..<(batching ? 2 : 1)).map { _ in
      runtime.makeSession(batchingPredictions: batching)
    }
    var batch = PredictionBatch()
    let recording = Recorder.record(.demo, seed: 4)
    var frame = PeopleFrame()
    var (events, due) = (0, 0)
    func push(_ index: Int) {
      frame.t = recording.frames[index].t
      frame.people.removeAll(keepingCapacity: true)
      if recording.frames[index].pose.hasPerson {
        frame.people.append(recording.frames[index].pose)
      }
      for session in sessions { session.push(frame) { _ in events += 1 } }
      guard index % (batchEvery ?? 1) == 0 else { return }
      while sessions[0].predictionDue {
        due += 1
        for session in sessions { batch.add(session) }
        batch.catchUp()
        for session in sessions { session.makeDuePrediction { _ in events += 1 } }
      }
    }
    for index in 0..<300 { push(index) }
    #expect(batching ? due > 0 : events > 0, "the first prediction comes in the warm-up")
    let made = Self.allocations { for index in 300..<recording.frames.count { push(index) } }
    #expect(made == 0)
    #expect(events > 0)
  }

  /// A session for a chosen exercise, of one person and of two side by side (each followed,
  /// with a session of their own, made when first seen): once everyone in view has been met,
  /// a frame allocates nothing. The group plays twice in one stream, as the workout below.
  @Test(arguments: [1, 2]) func aChosenExercisesSessionAllocatesNothingPerFrame(people: Int)
    throws
  {
    let runtime = Runtime(classifier: nil, catalogue: try ExerciseCatalogue.load())
    let session = try runtime.makeSession(exercise: "squat", people: people)
    var options = RecordingOptions()
    options.camera = .front
    let plan = WorkoutPlan(items: [.exercise(.squat, reps: 10, partialReps: 0)])
    let group = Recorder.recordGroup(
      Array(repeating: plan, count: people), options: options, seed: 5)
    let duration = group.frames.last!.t + 1
    var frame = PeopleFrame()
    var reps = 0
    func push(_ index: Int, pass: Int) {
      frame.t = group.frames[index].t + Double(pass) * duration
      frame.people.removeAll(keepingCapacity: true)
      frame.people.append(contentsOf: group.frames[index].people)
      session.push(frame) { _, event in
        if case .rep = event { reps += 1 }
      }
    }
    for index in group.frames.indices { push(index, pass: 0) }
    reps = 0
    let made = Self.allocations { for index in group.frames.indices { push(index, pass: 1) } }
    #expect(made == 0)
    #expect(reps >= 8 * people, "\(reps) reps")
  }

  /// The shipped model's network on the demo workout, its predictions scripted right
  /// (`ScriptedClassifier`, which allocates nothing): exercises start (with backfill) and end,
  /// engines count, anchors watch, whatever the model makes of the poses. The workout plays
  /// twice in one stream; the second time, every exercise has been met once, and nothing is
  /// allocated.
  @Test func aSessionFollowingAWorkoutAllocatesNothingPerFrame() throws {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    let runtime = Runtime(
      classifier: try WeightsFile.load(repository + "/Weights/default.spotter"),
      catalogue: try ExerciseCatalogue.load())
    let session = runtime.makeSession()
    var options = RecordingOptions()
    options.camera = .front
    let recording = Recorder.record(.demo, options: options, seed: 4)
    let duration = recording.frames.last!.t + 1
    session.scriptPredictions(
      ScriptedClassifier.script(labels: runtime.classifier!.labels) { t in
        ScriptedClassifier.truth(recording, at: t < duration ? t : t - duration)
      })
    var frame = PeopleFrame()
    var (starts, reps) = (0, 0)
    func push(_ index: Int, pass: Int) {
      frame.t = recording.frames[index].t + Double(pass) * duration
      frame.people.removeAll(keepingCapacity: true)
      if recording.frames[index].pose.hasPerson {
        frame.people.append(recording.frames[index].pose)
      }
      session.push(frame) { event in
        switch event {
        case .exerciseStarted: starts += 1
        case .rep: reps += 1
        default: break
        }
      }
    }
    for index in recording.frames.indices { push(index, pass: 0) }
    (starts, reps) = (0, 0)
    let made = Self.allocations { for index in recording.frames.indices { push(index, pass: 1) } }
    #expect(made == 0)
    #expect(starts >= 4 && reps >= 40, "\(starts) starts, \(reps) reps")
  }
}
