import ArgumentParsing
import Foundation
import MotionSynth
import Poses
import Randomness

/// `spotter synth`: synthetic pose recordings with their ground truth.
enum SynthCommand {
  static let command = Command(
    name: "synth",
    summary: "Write synthetic exercise recordings: pose files plus a Create ML annotation file.",
    options: [
      .value(
        "output", "DIR", "Folder for the pose files and annotations.json (created if needed).",
        short: "o"),
      .value("exercise", "NAME", "One exercise set (with --reps) between two short rests."),
      .value("reps", "N", "Reps for --exercise.", default: "10"),
      .value(
        "workout", "PLAN",
        "A workout, e.g. 'squat:10, rest:20, push_up:8, walking:6'; 'random' draws one. Give it "
          + "again for more people in one picture: they walk in past each other first.",
        default: "demo"),
      .value(
        "count", "N", "How many recordings (each a new person, camera and seed).", default: "1"),
      .value(
        "seed", "N", "Seed of the first recording; the next ones count up from it.", default: "1"),
    ] + CameraOption.options(default: "any") + [
      .value("noise", "LEVEL", "Detector noise: none, light, normal or heavy.", default: "normal"),
      .value("fps", "N", "Detector frame rate (default: drawn from 15, 24, 25, 30, 60)."),
      .value(
        "layout", "NAME",
        "Output layout: \(PoseLayout.allCases.map(\.rawValue).joined(separator: ", ")).",
        default: "coco17"),
      .value("units", "UNITS", "pixels or normalized.", default: "pixels"),
      .value("origin", "ORIGIN", "top-left or bottom-left.", default: "top-left"),
      .value(
        "partial", "N",
        "Abandoned dips added to every set: a tenth to a fifth of a rep's depth, not reps (under "
          + "a detector's noise floor, counters pass them over without a word).", default: "0"),
      .value(
        "realism", "KIND",
        "clean (full reps, whole body in view), everyday (shallow sets, pauses, equipment, "
          + "closer framing), tempo (0.45 to 6 s a rep, quick sets shallow, slow ones held, "
          + "tempo changing within a set, a detector that glitches) or rehab (slow, deep, arms "
          + "held forward).", default: "clean"),
      .value(
        "seconds-per-rep", "A:B",
        "With --realism tempo: draw each set's seconds a rep (its time ÷ its reps) from A…B "
          + "(0.2 ≤ A ≤ B ≤ 20); a random workout then draws exercises done at that tempo."),
      .value(
        "top-pause", "A:B",
        "With --realism tempo: the share of each rep's time spent standing still at the top "
          + "before the next, drawn per set from A…B (0 ≤ A ≤ B ≤ 0.9): a rep, then standing tall."),
      .value(
        "missing", "X", "Share of frames dropped (nobody detected), for robustness checks.",
        default: "0"),
      .flag("no-face", "Leave out eyes and ears (as Penn Action and some COCO pipelines do)."),
      .flag(
        "swap-sides",
        "Write left joints as right and right as left, as a mirrored front camera does."),
      .flag(
        "normalize-per-frame",
        "Min-max normalise each frame's coordinates to its own box, as some pipelines do."),
    ],
    discussion: """
      Each recording is one pose file (JSON Lines) of one person doing the workout, seen by a
      virtual camera with detector-like noise. annotations.json holds a segment per exercise,
      rest and transition, with reps and rep_bounds for exercises. The same seed always gives
      the same files.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let folder = try arguments.required("output")
    let options = try recordingOptions(arguments)
    let workouts = arguments.strings("workout")
    if workouts.count > 1 {
      return try writeGroups(workouts, options: options, folder: folder, arguments: arguments)
    }
    let (plan, randomPlans) = try plan(arguments)
    let changes = try FileChanges(arguments)
    let count = try arguments.int("count", range: 1...100_000)!
    let firstSeed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var annotations: [Annotation] = []
    let showProgress = Terminal.isTerminal(2)
    for index in 0..<count {
      let seed = firstSeed + UInt64(index)
      var recordingPlan = plan
      if randomPlans {
        var generator = SeededGenerator(seed: seed ^ 0x5EED)
        recordingPlan = .random(sets: 3, of: motions(at: options), generator: &generator)
      }
      let recording = Recorder.record(recordingPlan, options: options, seed: seed)
      let name = String(format: "synth-%06llu.jsonl", seed)
      try write(recording, to: folder + "/" + name, changes: changes, seed: seed)
      annotations += recording.segments.map { segment in
        Annotation(
          fileName: name, label: segment.label, startTime: segment.start, endTime: segment.end,
          reps: segment.reps,
          repBounds: segment.reps == nil
            ? nil : segment.repBounds.map { [$0.lowerBound, $0.upperBound] })
      }
      if showProgress { Terminal.error("\rwrote \(index + 1)/\(count) recordings") }
    }
    try Annotations.write(annotations, to: folder + "/annotations.json")
    if showProgress { Terminal.error("") }
    print(
      "Wrote \(count) recording\(count == 1 ? "" : "s") and \(annotations.count) annotations "
        + "to \(folder)."
    )
    return 0
  }

  /// Several people in one picture, one plan each: a pose file of people per frame, and each
  /// person's sets annotated with `person`.
  static func writeGroups(
    _ workouts: [String], options: RecordingOptions, folder: String, arguments: ParsedArguments
  ) throws -> Int32 {
    let plans = try workouts.map { text in
      do { return try WorkoutPlan.parse(text) } catch {
        throw CLIError.usage("--workout: \(error)", command: command)
      }
    }
    let count = try arguments.int("count", range: 1...100_000)!
    let firstSeed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var annotations: [Annotation] = []
    for index in 0..<count {
      let seed = firstSeed + UInt64(index)
      let group = Recorder.recordGroup(plans, options: options, seed: seed)
      let name = String(format: "group-%06llu.jsonl", seed)
      let writer = try PoseFileWriter(
        path: folder + "/" + name, format: .jsonl, header: group.header)
      for frame in group.frames { try writer.write(t: frame.t, people: frame.people) }
      try writer.flush()
      for (person, truth) in group.people.enumerated() {
        annotations += truth.segments.map { segment in
          Annotation(
            fileName: name, label: segment.label, startTime: segment.start, endTime: segment.end,
            reps: segment.reps,
            repBounds: segment.reps == nil
              ? nil : segment.repBounds.map { [$0.lowerBound, $0.upperBound] },
            person: person + 1)
        }
      }
    }
    try Annotations.write(annotations, to: folder + "/annotations.json")
    print("Wrote \(count) recording\(count == 1 ? "" : "s") of \(plans.count) people to \(folder).")
    return 0
  }

  /// The workout: one exercise set, a named plan, or a random plan per recording.
  static func plan(_ arguments: ParsedArguments) throws -> (WorkoutPlan, random: Bool) {
    if let exercise = arguments.string("exercise") {
      guard let motion = ExerciseMotion(rawValue: exercise) else {
        throw CLIError.usage(
          "unknown exercise '\(exercise)'; expected one of "
            + "\(ExerciseMotion.allCases.map(\.rawValue).joined(separator: ", "))",
          command: command)
      }
      return (.single(motion, reps: try arguments.int("reps", range: 1...500)!), false)
    }
    switch arguments.string("workout")! {
    case "demo": return (.demo, false)
    case "random": return (.demo, true)
    case let text:
      do { return (try WorkoutPlan.parse(text), false) } catch {
        throw CLIError.usage("--workout: \(error)", command: command)
      }
    }
  }

  /// Who is filmed how: camera, detector noise, frame rate, layout and coordinate space.
  static func recordingOptions(_ arguments: ParsedArguments) throws -> RecordingOptions {
    var options = RecordingOptions()
    options.camera = try CameraOption.parse(arguments, command: command)
    guard let noise = DetectorModel.named(arguments.string("noise")!) else {
      throw CLIError.usage("--noise must be none, light, normal or heavy", command: command)
    }
    options.detector = noise
    options.fps = try arguments.double("fps", range: 1...240)
    guard let layout = PoseLayout(rawValue: arguments.string("layout")!) else {
      throw CLIError.usage(
        "unknown --layout; expected \(PoseLayout.allCases.map(\.rawValue).joined(separator: ", "))",
        command: command)
    }
    options.layout = layout
    guard let units = CoordinateSpace.Units(rawValue: arguments.string("units")!) else {
      throw CLIError.usage("--units must be pixels or normalized", command: command)
    }
    options.units = units
    guard let origin = CoordinateSpace.Origin(rawValue: arguments.string("origin")!) else {
      throw CLIError.usage("--origin must be top-left or bottom-left", command: command)
    }
    options.origin = origin
    options.extraPartialReps = try arguments.int("partial", range: 0...20)!
    guard let realism = RecordingOptions.Realism(rawValue: arguments.string("realism")!) else {
      throw CLIError.usage(
        "--realism must be clean, everyday, tempo or rehab", command: command)
    }
    options.realism = realism
    if arguments.string("seconds-per-rep") != nil {
      guard realism == .tempo else {
        throw CLIError.usage(
          "--seconds-per-rep pins the tempo realism's tempo; add --realism tempo",
          command: command)
      }
      options.secondsPerRep = try arguments.interval("seconds-per-rep", within: 0.2...20)
    }
    if arguments.string("top-pause") != nil {
      guard realism == .tempo else {
        throw CLIError.usage(
          "--top-pause is a share of the tempo realism's reps; add --realism tempo",
          command: command)
      }
      options.topPause = try arguments.interval("top-pause", within: 0...0.9)
    }
    return options
  }

  /// The exercises a random workout draws from: all of them, or, with a pinned tempo, those
  /// people do at that tempo (`ExerciseMotion.tempoRange`; all when none is).
  static func motions(at options: RecordingOptions) -> [ExerciseMotion] {
    guard let band = options.secondsPerRep else { return ExerciseMotion.allCases }
    let done = ExerciseMotion.allCases.filter { $0.isDone(within: band) }
    return done.isEmpty ? ExerciseMotion.allCases : done
  }

  /// What happens to the poses on their way to the file, as other pipelines would change them.
  struct FileChanges {
    var missing: Double
    var noFace: Bool
    var perFrame: Bool
    var swapSides: Bool

    init(_ arguments: ParsedArguments) throws {
      missing = try arguments.double("missing", range: 0...0.95)!
      noFace = arguments.flag("no-face")
      perFrame = arguments.flag("normalize-per-frame")
      swapSides = arguments.flag("swap-sides")
    }
  }

  /// Writes one recording's frames as a pose file, changed as `changes` asks.
  static func write(
    _ recording: Recording, to path: String, changes: FileChanges, seed: UInt64
  ) throws {
    let writer = try PoseFileWriter(path: path, format: .jsonl, header: recording.header)
    var dropper = SeededGenerator(seed: seed ^ 0xD40)
    for frame in recording.frames {
      var pose = frame.pose
      if changes.missing > 0, dropper.unit() < changes.missing { pose = .nobody }
      if changes.noFace {
        for joint in [CanonicalJoint.leftEye, .rightEye, .leftEar, .rightEar] {
          pose[joint] = .missing
        }
      }
      if changes.perFrame { pose = pose.normalisedToItsBox(in: recording.header.space) }
      if changes.swapSides { pose = pose.mirrored }
      try writer.write(t: frame.t, people: pose.hasPerson ? [pose] : [])
    }
    try writer.flush()
  }
}
