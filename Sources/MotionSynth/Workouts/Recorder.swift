import Foundation
import Poses
import Randomness

/// A synthetic recording: the poses a detector would report, and the truth about them.
public struct Recording: Sendable {
  /// One labelled stretch of the recording, in seconds.
  public struct Segment: Sendable, Equatable {
    public var label: String
    public var start: Double
    public var end: Double
    /// Full reps, for exercises.
    public var reps: Int?
    public var repBounds: [ClosedRange<Double>]
  }

  public var header: PoseFileHeader
  /// Frames in Spotter's internal space (pixels, y down); the header says how to write them.
  public var frames: [(t: Double, pose: Pose)]
  /// With `RecordingOptions.keepsWorld`: each frame's joints in the room (metres, canonical
  /// order), the truth that joint angles are measured against.
  public var world: [[Vector3]] = []
  public var segments: [Segment]
  public var body: BodyShape
}

/// How a recording is made: who, seen from where, by what kind of detector, written how.
public struct RecordingOptions: Sendable {
  public var camera: VirtualCamera.Range = .any
  public var detector: DetectorModel = .normal
  /// The detector's frame rate; nil draws one of 15, 24, 25, 30 or 60.
  public var fps: Double? = nil
  public var layout: PoseLayout = .coco17
  public var units: CoordinateSpace.Units = .pixels
  public var origin: CoordinateSpace.Origin = .topLeft
  /// The exercise style for every set; nil draws one per set.
  public var style: ExerciseStyle? = nil
  /// Partial reps per set, besides those the plan asks for.
  public var extraPartialReps = 0
  /// How people move: `clean` sets of full reps, `everyday` ones (`ExerciseStyle.everyday`)
  /// with the camera closer, cutting hands or feet off now and then, or sets at `tempo`s from
  /// 0.45 to 6 s a rep (`SetTempo`), seen by a detector that glitches (`DetectorGlitches`), or
  /// as `rehab` does them (`ExerciseStyle.rehab`: slow, deep, arms forward).
  public var realism: Realism = .clean

  public enum Realism: String, Sendable, CaseIterable { case clean, everyday, tempo, rehab }
  /// With the `tempo` realism: the seconds a rep (a set's time ÷ its reps) each set's tempo is
  /// drawn from, to pin a band; nil draws from each exercise's own range.
  public var secondsPerRep: ClosedRange<Double>? = nil
  /// With the `tempo` realism: the share of each rep's time spent standing still at the top
  /// before the next (a "6-count" set: a rep, then standing tall), drawn per set from this
  /// range; nil leaves it to the tempo.
  public var topPause: ClosedRange<Double>? = nil
  /// Keep each frame's joints in the room (`Recording.world`).
  public var keepsWorld = false

  public init() {}

  /// The detector as the realism has it: the `tempo` realism's glitches.
  var seenBy: DetectorModel {
    var detector = detector
    if realism == .tempo { detector.glitches = .tempo }
    return detector
  }

  /// The header of a recording through `camera` at `fps`: the options' layout, and their units
  /// and origin over the camera's picture.
  func header(camera: VirtualCamera, fps: Double, source: String) -> PoseFileHeader {
    let space = CoordinateSpace(
      units: units, origin: origin, imageWidth: Float(camera.width),
      imageHeight: Float(camera.height))
    return PoseFileHeader(layout: layout, space: space, fps: fps, source: source)
  }
}

/// Renders workout plans into recordings.
public enum Recorder {
  /// A recording of `plan` done by a random person, seen by a random camera: the same seed
  /// always gives the same recording.
  public static func record(
    _ plan: WorkoutPlan, options: RecordingOptions = RecordingOptions(), seed: UInt64
  ) -> Recording {
    var generator = SeededGenerator(seed: seed)
    let body = BodyShape.random(using: &generator)
    let activities = makeActivities(plan, options: options, generator: &generator)
    let timeline = Timeline(activities, body: body, generator: &generator)
    var range = options.camera
    if options.realism == .everyday {
      // Framed the way a phone propped up in a gym frames: often closer than the whole body.
      range.framing = 0.75...max(0.76, range.framing.upperBound * 0.8)
    }
    let camera = aimCamera(range, at: timeline, generator: &generator)
    let fps = options.fps ?? [15, 24, 25, 30, 30, 30, 60][Int(generator.next() % 7)]
    let (frames, world) = capture(
      timeline, camera: camera, fps: fps, detector: options.seenBy,
      keepsWorld: options.keepsWorld,
      generator: &generator)
    let header = options.header(
      camera: camera, fps: fps, source: "spotter synth (seed \(seed), \(camera.placement))")
    var recording = Recording(
      header: header, frames: frames, segments: timeline.segments, body: body)
    recording.world = world
    return recording
  }

  /// The plan's items as activities, each exercise set in its own style (or the options').
  static func makeActivities(
    _ plan: WorkoutPlan, options: RecordingOptions, generator: inout SeededGenerator
  ) -> [any Activity] {
    plan.items.map { item -> any Activity in
      switch item {
      case .exercise(let motion, let reps, let partial) where options.realism == .tempo:
        // The person is drawn as for clean sets, full range and steady form: what this world
        // varies is the tempo (and, with it, the depth of quick sets).
        var style = options.style ?? .random(using: &generator)
        style.depthSpread = 0.1
        var tempo = SetTempo.draw(motion, within: options.secondsPerRep, generator: &generator)
        if let pause = options.topPause {
          tempo.topPause =
            pause.lowerBound + (pause.upperBound - pause.lowerBound) * generator.unit()
        }
        return ExerciseSet(
          motion, reps: reps, partialReps: partial + options.extraPartialReps, style: style,
          tempo: tempo, generator: &generator)
      case .exercise(let motion, let reps, let partial) where options.realism == .rehab:
        let style = options.style ?? .rehab(using: &generator)
        return ExerciseSet(
          motion, reps: reps, partialReps: partial + options.extraPartialReps, style: style,
          secondsPerRep: ExerciseStyle.rehabTempo(motion, using: &generator),
          generator: &generator)
      case .exercise(let motion, let reps, let partial):
        let style =
          options.style
          ?? (options.realism == .everyday
            ? .everyday(using: &generator) : .random(using: &generator))
        return ExerciseSet(
          motion, reps: reps, partialReps: partial + options.extraPartialReps, style: style,
          generator: &generator)
      case .other(let kind, let seconds):
        return OtherActivity(kind, duration: seconds, generator: &generator)
      case .rest(let seconds):
        let kind: OtherActivity.Kind = generator.unit() < 0.6 ? .standing : .fidgeting
        return OtherActivity(kind, duration: seconds, generator: &generator)
      }
    }
  }

  /// Aims at the middle of everywhere the person goes (but for walks, which may leave the
  /// view) and frames all of it, as someone setting up a camera for a workout would: the bar
  /// of a pull-up and the floor of a push-up both in the picture.
  static func aimCamera(
    _ range: VirtualCamera.Range, at timeline: Timeline, generator: inout SeededGenerator
  ) -> VirtualCamera {
    var low = Vector3(repeating: .infinity)
    var high = Vector3(repeating: -.infinity)
    for step in stride(from: 0, through: timeline.duration, by: 0.25) {
      let (joints, state) = timeline.world(at: step)
      if case .standing = state.placement, state.ground.x != 0 || state.ground.z != 0 { continue }
      for joint in joints {
        low = Vector3(min(low.x, joint.x), min(low.y, joint.y), min(low.z, joint.z))
        high = Vector3(max(high.x, joint.x), max(high.y, joint.y), max(high.z, joint.z))
      }
    }
    let centre = (low + high) / 2
    let extent = max(high.y - low.y, high.x - low.x, high.z - low.z)
    return VirtualCamera.random(range, target: centre, extent: extent * 1.1, generator: &generator)
  }

  /// The detector's frames at `fps`, each at a capture time that wobbles by up to a fifth of a
  /// frame, as real cameras' do.
  static func capture(
    _ timeline: Timeline, camera: VirtualCamera, fps: Double, detector model: DetectorModel,
    keepsWorld: Bool, generator: inout SeededGenerator
  ) -> (frames: [(t: Double, pose: Pose)], world: [[Vector3]]) {
    var detector = model.session(generator: generator.derived(1))
    var jitter = generator.derived(2)
    var frames: [(t: Double, pose: Pose)] = []
    var world: [[Vector3]] = []
    var index = 0
    while Double(index) / fps <= timeline.duration {
      let nominal = Double(index) / fps
      let time = index == 0 ? 0 : nominal + 0.2 / fps * (2 * jitter.unit() - 1)
      let (joints, state) = timeline.world(at: time)
      let axes = state.axes
      frames.append(
        (time, detector.observe(joints, camera: camera, lateral: axes.lateral, facing: axes.facing))
      )
      if keepsWorld { world.append(joints) }
      index += 1
    }
    return (frames, world)
  }
}

/// The activities of a recording placed in time, each after a short transition from the one
/// before, and the body's joints in the world at any moment.
struct Timeline {
  let placed: [(activity: any Activity, start: Double)]
  let segments: [Recording.Segment]
  let duration: Double
  let body: BodyShape

  init(_ activities: [any Activity], body: BodyShape, generator: inout SeededGenerator) {
    var placed: [(activity: any Activity, start: Double)] = []
    var segments: [Recording.Segment] = []
    var t = 0.0
    for activity in activities {
      if !placed.isEmpty {
        let transition = 0.6 + 0.8 * generator.unit()
        segments.append(
          Recording.Segment(label: "other", start: t, end: t + transition, reps: nil, repBounds: [])
        )
        t += transition
      }
      placed.append((activity, t))
      let isExercise = activity.label != "other"
      segments.append(
        Recording.Segment(
          label: activity.label, start: t, end: t + activity.duration,
          reps: isExercise ? activity.repBounds.count : nil,
          repBounds: activity.repBounds.map { ($0.lowerBound + t)...($0.upperBound + t) }))
      t += activity.duration
    }
    self.placed = placed
    self.segments = segments
    self.body = body
    duration = t
  }

  /// The joints in the world at `time`, and the body state they come from. Between two
  /// activities, the end of one blends into the start of the next.
  func world(at time: Double) -> (joints: [Vector3], state: BodyState) {
    for (index, entry) in placed.enumerated() {
      let end = entry.start + entry.activity.duration
      guard time <= end || index == placed.count - 1 else { continue }
      if time >= entry.start || index == 0 {
        let state = entry.activity.state(
          at: min(max(time - entry.start, 0), entry.activity.duration))
        return (state.worldJoints(for: body), state)
      }
      let previous = placed[index - 1]
      let from = previous.activity.state(at: previous.activity.duration)
      let to = entry.activity.state(at: 0)
      let gapStart = previous.start + previous.activity.duration
      let u = (time - gapStart) / (entry.start - gapStart)
      let eased = (1 - cos(.pi * min(max(u, 0), 1))) / 2
      let a = from.worldJoints(for: body)
      let b = to.worldJoints(for: body)
      return (zip(a, b).map { $0 + ($1 - $0) * eased }, eased < 0.5 ? from : to)
    }
    fatalError("unreachable: the last activity takes any time")
  }
}
