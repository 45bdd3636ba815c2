import ActionModel
import Foundation
import MotionSynth
import Poses
import Randomness

/// Builds training windows from synthetic workouts and from annotated recordings.
public enum DatasetBuilder {
  /// Windows from `count` synthetic workouts (each a new person, camera, detector, frame rate
  /// and layout), a window every `stride` frames, labelled by the segment their last frame is
  /// in. Windows mostly in another segment are left out: the runtime's smoother, not the
  /// network, is meant to decide those moments. Workouts are drawn on every core, four per
  /// one of `workers` at a time, and added in order: each draws from its own generator, so the
  /// set is the same for any number of workers. Frames become `features` (the trained model's
  /// `FeatureSpec`).
  public static func synthetic(
    count: Int, seed: UInt64, labels: [String], cameras: VirtualCamera.Mix = .any,
    rehab: Double = 0, others: [OtherActivity.Kind] = OtherActivity.Kind.classic,
    features: FeatureSpec = FeatureSpec(), stride: Int = 12,
    workers: Int = ProcessInfo.processInfo.activeProcessorCount,
    progress: ((Int) -> Void)? = nil
  ) -> TrainingSet {
    var set = TrainingSet(features: features.featuresPerFrame)
    let generator = SeededGenerator(seed: seed)
    let round = 4 * max(1, workers)
    let drawn = UnsafeMutableBufferPointer<SyntheticWorkout?>.allocate(capacity: round)
    drawn.initialize(repeating: nil)
    defer { drawn.deallocate() }
    var start = 0
    while start < count {
      let end = min(start + round, count)
      nonisolated(unsafe) let slots = drawn
      let first = start
      DispatchQueue.concurrentPerform(iterations: end - start) { offset in
        slots[offset] = SyntheticWorkout(
          index: first + offset, from: generator, cameras: cameras, rehab: rehab, others: others,
          features: features)
      }
      for index in start..<end {
        add(drawn[index - start]!, labels: labels, stride: stride, group: index, to: &set)
        drawn[index - start] = nil
        progress?(index + 1)
      }
      start = end
    }
    return set
  }

  /// One synthetic workout, drawn from `generator.derived(index)` alone, through the runtime's
  /// front end: its ticks' times and features, and its segments' labels.
  struct SyntheticWorkout {
    let times: [Double]
    let features: [Float]
    let segments: [Recording.Segment]

    /// - Parameter rehab: the share of workouts done as rehabilitation does them
    ///   (`ExerciseStyle.rehab`); at 0 nothing more is drawn, so the workouts are those of
    ///   a recipe without it.
    init(
      index: Int, from generator: SeededGenerator, cameras: VirtualCamera.Mix = .any,
      rehab: Double = 0, others: [OtherActivity.Kind] = OtherActivity.Kind.classic,
      features spec: FeatureSpec = FeatureSpec()
    ) {
      var recordingGenerator = generator.derived(UInt64(index))
      let plan = WorkoutPlan.random(
        sets: 3 + Int(recordingGenerator.next() % 3), others: others,
        generator: &recordingGenerator)
      var options = RecordingOptions()
      options.camera = cameras.draw(using: &recordingGenerator)
      options.detector =
        [DetectorModel.light, .normal, .normal, .heavy][Int(recordingGenerator.next() % 4)]
      options.layout =
        PoseLayout.allCases[Int(recordingGenerator.next() % UInt64(PoseLayout.allCases.count))]
      options.extraPartialReps = recordingGenerator.unit() < 0.3 ? 1 : 0
      // Half the people move as people do outside a lab (ExerciseStyle.everyday).
      options.realism = recordingGenerator.unit() < 0.5 ? .everyday : .clean
      if rehab > 0, recordingGenerator.unit() < rehab { options.realism = .rehab }
      let recording = Recorder.record(plan, options: options, seed: recordingGenerator.next())
      // Per recording, as a pipeline would differ: mirrored sides; no face (Penn Action, and
      // detectors that drop eyes and ears); squashed or stretched (coordinates normalised per
      // axis, as some pipelines do).
      var variation = Variation()
      variation.mirror = recordingGenerator.unit() < 0.5
      variation.noFace = recordingGenerator.unit() < 0.3
      if recordingGenerator.unit() < 0.3 {
        variation.aspect = Float(0.6 + 1.1 * recordingGenerator.unit())
      }
      // Frames normalised to their own box (a pipeline quirk the runtime corrects).
      variation.boxNormalised = recordingGenerator.unit() < 0.15
      let ticks = DatasetBuilder.ticks(recording, variation: variation)
      times = ticks.map(\.t)
      features = TrainingSet.features(of: ticks.map(\.pose), spec: spec)
      segments = recording.segments
    }
  }

  /// How a recording's poses are changed before training, to look like other pipelines'.
  struct Variation {
    var mirror = false
    var noFace = false
    /// Horizontal scale relative to vertical.
    var aspect: Float = 1
    /// Each frame stretched to its own box, as some pipelines write them.
    var boxNormalised = false
  }

  /// A recording's ticks: the frames through the layout writer and back (what a file would
  /// hold), changed by `variation`, then through the runtime's front end (`FramePipeline`),
  /// scores as drawn: MotionSynth draws them on the scale `ScoreScale` raises other detectors
  /// to, and a body seen mostly hidden (one of the first 300 workouts measured a level of 0.38)
  /// is not a detector that scores low.
  static func ticks(_ recording: Recording, variation: Variation) -> [(t: Double, pose: Pose)] {
    var pipeline = FramePipeline(raisesScores: false)
    var frame = PeopleFrame()
    var ticks: [(t: Double, pose: Pose)] = []
    let layout = recording.header.layout
    let space = recording.header.space
    frame.box = space.frameBox
    for sample in recording.frames {
      var pose = sample.pose
      if pose.hasPerson {
        // Through the layout: joints the layout lacks are lost, as they would be in a file.
        let raw = layout.layoutJoints(from: pose, space: space).flatMap {
          [$0.x, $0.y, $0.confidence]
        }
        pose = raw.withUnsafeBufferPointer { layout.canonicalPose(from: $0, space: space) }
        if variation.mirror { pose = pose.mirrored }
        if variation.noFace {
          for joint in [CanonicalJoint.leftEye, .rightEye, .leftEar, .rightEar] {
            pose[joint] = .missing
          }
        }
        if variation.aspect != 1 {
          for index in pose.joints.indices { pose.joints[index].x *= variation.aspect }
        }
        if variation.boxNormalised { pose = pose.normalisedToItsBox(in: space) }
      }
      frame.t = sample.t
      frame.people = pose.hasPerson ? [pose] : []
      pipeline.push(frame) { tick, t in ticks.append((t, tick)) }
    }
    return ticks
  }

  static func add(
    _ workout: SyntheticWorkout, labels: [String], stride: Int, group: Int,
    to set: inout TrainingSet
  ) {
    let times = workout.times
    guard !times.isEmpty else { return }
    let recordingHandle = set.addRecording(workout.features)
    let frames = set.window
    func segment(at t: Double) -> Recording.Segment? {
      workout.segments.first { t >= $0.start && t < $0.end }
    }
    var end = group % stride  // each recording starts its windows at another phase
    while end < times.count {
      defer { end += stride }
      guard let current = segment(at: times[end]),
        let label = labels.firstIndex(of: current.label)
      else { continue }
      let startTime = times[max(0, end - frames + 1)]
      let inside = (times[end] - max(startTime, current.start)) / max(times[end] - startTime, 1e-9)
      if inside < 0.4 && end >= frames { continue }
      set.addWindow(
        of: recordingHandle, endingAt: end, label: label, group: group, recorded: false)
    }
  }

  /// Windows from annotated recordings (Create ML annotations, real or user-made): each clip
  /// in `variants` augmented copies (mirrored half the time, by `reflect`; rotation, scale,
  /// speed, joint dropout, jitter). A clip shorter than a window is looped to fill one, as a person
  /// repeating the movement would, so the network never learns clip length from padding.
  /// Windows in which fewer than `presence` of the frames show a person are left out: the
  /// runtime does not classify those (long real videos have stretches with nobody in view).
  ///
  /// - Parameters:
  ///   - reflect: mirrored copies are reflected (x flipped, sides swapped); else their sides
  ///     are only renamed.
  ///   - crops: the share of variants framed tighter (`Augmentation.crops`).
  ///   - features: what the windows hold a frame (the trained model's `FeatureSpec`).
  ///   - include: whether clip n of the file is used (cross-validation folds).
  public static func annotated(
    _ path: String, labels: [String], variants: Int, seed: UInt64, stride: Int = 6,
    presence: Double = 0.6, reflect: Bool = false, crops: Double = 0,
    features: FeatureSpec = FeatureSpec(),
    include: (Int) -> Bool = { _ in true }
  ) throws -> TrainingSet {
    var set = TrainingSet(features: features.featuresPerFrame)
    var generator = SeededGenerator(seed: seed)
    let annotations = try Annotations.read(path)
    var cache: (path: String, recording: ResampledRecording)?
    for (index, annotation) in annotations.enumerated() {
      guard include(index), let label = labels.firstIndex(of: annotation.label)
      else { continue }
      if cache?.path != annotation.resolvedPath {
        cache = (annotation.resolvedPath, try ResampledRecording.read(annotation.resolvedPath))
      }
      let clip = Array(
        cache!.recording.slice(from: annotation.startTime, to: annotation.endTime).map(\.pose))
      guard clip.count >= 8 else { continue }
      for variant in 0..<variants {
        var augmenter = Augmentation(
          generator: generator.derived(UInt64(index * 64 + variant)), plain: variant == 0,
          reflects: reflect, crops: crops)
        let poses = Augmentation.loop(augmenter.apply(to: clip), toAtLeast: set.window + 30)
        let recording = set.addRecording(TrainingSet.features(of: poses, spec: features))
        // Frames with a person before each tick, for each window's share.
        var seen = [0]
        for pose in poses { seen.append(seen.last! + (pose.hasPerson ? 1 : 0)) }
        var end = set.window - 1 + (variant % stride)
        while end < poses.count {
          let shown = Double(seen[end + 1] - seen[end + 1 - set.window]) / Double(set.window)
          if shown >= presence {
            set.addWindow(
              of: recording, endingAt: end, label: label, group: index, recorded: true)
          }
          end += stride
        }
      }
    }
    _ = generator.next()
    return set
  }
}
