import ActionModel
import ArgumentParsing
import Evaluation
import Foundation
import Poses
import Randomness
import RepCounting
import Spotter

/// `spotter eval --annotations FILE`: how well the model and the rep engines do on annotated
/// recordings, real or synthetic.
enum EvalCommand {
  static let command = Command(
    name: "eval",
    summary: "Score the classifier and the rep counters against Create ML annotations.",
    options: [
      .value("annotations", "FILE", "A Create ML annotation file (JSON array).")
    ] + RuntimeOptions.options + [
      .flag("reps-only", "Only count reps (no classifier needed)."),
      .flag(
        "tempo",
        "Also score the reps by tempo band (seconds a rep: clip time ÷ reps), with the reps done "
          + "that got neither a rep nor a refusal where rep_bounds are annotated."),
      .flag(
        "whole-files",
        "With --reps-only: count each file from its start to its end, against the reps of all "
          + "its sets of the exercise."
      ),
      .flag(
        "workouts",
        "Run each annotated file whole through a session, as classify does, and score the "
          + "timeline and the reps it reports."
      ),
      .value(
        "tolerance", "S", "With --workouts: how close a set's start and end must come.",
        default: "1"),
      .value(
        "exercise", "NAME",
        "Count every clip with this definition; clips of other labels count as 0 reps done."),
      .value(
        "split", "HALF",
        "all, tune or holdout: a fixed half of the files, by name (alternating within each label).",
        default: "all"),
      .value(
        "worst", "N",
        "List the N clips whose count is furthest off, and the N labelled most confidently wrong.",
        default: "0"),
      .value(
        "shake", "D",
        "Move every joint by seeded Gaussian noise of D times the person's box, keeping the "
          + "box (a noisier detector).", default: "0"),
      .value(
        "scores", "LO:HI",
        "Give every detected joint a score drawn from LO…HI (0.01 ≤ LO ≤ HI ≤ 1) each frame (a "
          + "detector that scores on another scale)."),
      .value(
        "frame-rate", "N",
        "Keep only the frames a detector running N times a second would give (the first at or "
          + "after each 1/N s)."),
      .value(
        "quirk", "NAME",
        "Pass every pose on as another pipeline does: normalised-per-frame (each frame's joints "
          + "stretched to their own box), no-face (no eyes or ears), mirrored (the picture flipped, "
          + "as a mirrored front camera gives it) or swapped-sides (left and right swapped in "
          + "place)."),
      .value("seed", "N", "The seed of --shake's and --scores' draws (default 1)."),
      .flag("json", "Print one JSON object."),
      FoldOption.option,
      .value(
        "fold-weights", "FILE",
        "Cross-validated: give K weights files, those of train --fold 0/K … K-1/K in order; "
          + "each clip (each file with --workouts) is scored by the model that left it out."),
      .value(
        "min-clip-seconds", "S",
        "Classify only clips at least this long (transitions between sets are short).", default: "0"
      ),
    ],
    discussion: """
      Each annotation is one clip: its frames from start_time to end_time. A clip's label is the
      label with the highest mean probability over its windows: a window every --stride frames,
      zero-padded before the clip starts, of those a session classifies (at least 60% of the
      frames show a person), or the clip's last window when none is. Reps are counted with each clip's
      annotated label's default exercise definition (or --exercise), where the annotation gives
      reps: relative error |counted − done| / done, and the share of clips within one rep.

      With --workouts, each file is instead streamed whole through a session (the runtime's
      classifier, smoother, hand-off and backfill, with the session options) and its timeline
      scored: sets found, sets whose reported start and end are both within --tolerance of the
      annotation, sets counted exactly, exercises reported where the file has none, and the reps
      the runtime reported over each set whichever exercise it took it for.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let path = try arguments.required("annotations")
    // Whole files: clip options would be silently ignored.
    // Detector options are checked before any file is read.
    let drawn = try arguments.double("shake", range: 0...1)! > 0 || scores(arguments) != nil
    _ = try frameRate(arguments)
    _ = try quirk(arguments)
    if !drawn && arguments.string("seed") != nil {
      throw CLIError.usage(
        "--seed is the seed of --shake's and --scores' draws; give one of them too",
        command: command)
    }
    if arguments.flag("workouts")
      && (arguments.flag("reps-only") || arguments.string("fold") != nil
        || arguments.string("exercise") != nil || arguments.flag("tempo"))
    {
      throw CLIError.usage(
        "--workouts scores whole files; --reps-only, --exercise, --fold and --tempo are for clips",
        command: command)
    }
    if arguments.flag("whole-files") && arguments.flag("tempo") {
      throw CLIError.usage(
        "--tempo scores clips by their annotated time; --whole-files counts whole files",
        command: command)
    }
    guard let split = AnnotationSplit(rawValue: arguments.string("split")!) else {
      throw CLIError.usage("--split must be all, tune or holdout", command: command)
    }
    let all = try Annotations.read(path)
    let half = split.files(of: all)
    // Fold numbers are positions in the whole file, as train --fold counts them.
    let annotations = all.enumerated().filter { half.contains($0.element.fileName) }.map {
      NumberedAnnotation(number: $0.offset, annotation: $0.element)
    }
    let worst = try arguments.int("worst", range: 0...10_000)!
    if arguments.flag("workouts") {
      let report = try workouts(annotations, arguments)
      print(
        arguments.flag("json")
          ? EvalOutput.json(report) : EvalOutput.text(report, worst: worst))
      return 0
    }
    if arguments.flag("whole-files") && !arguments.flag("reps-only") {
      throw CLIError.usage("--whole-files is for --reps-only", command: command)
    }
    let report = try clips(annotations, arguments)
    print(
      arguments.flag("json") ? EvalOutput.json(report) : EvalOutput.text(report, worst: worst))
    return 0
  }

  /// An annotation and its position in its file, which decides its cross-validation fold.
  struct NumberedAnnotation {
    let number: Int
    let annotation: Annotation
  }

  /// The --fold-weights models, in fold order (empty without the option); K of them score
  /// annotation n with model n mod K.
  static func foldModels(_ arguments: ParsedArguments) throws -> [Classifier] {
    let paths = arguments.strings("fold-weights")
    guard !paths.isEmpty else { return [] }
    guard paths.count >= 2, arguments.string("weights") == nil, arguments.string("fold") == nil
    else {
      throw CLIError.usage(
        "--fold-weights takes K ≥ 2 files (one per fold) and replaces --weights and --fold",
        command: command)
    }
    let models = try paths.map { try WeightsFile.load($0) }
    if let other = models.first(where: { $0.labels != models[0].labels }) {
      throw CLIError.usage(
        "--fold-weights: the models' labels differ (\(models[0].labels) against \(other.labels))",
        command: command)
    }
    return models
  }

  /// Each annotated clip classified (unless --reps-only) and counted.
  static func clips(_ annotations: [NumberedAnnotation], _ arguments: ParsedArguments) throws
    -> EvaluationReport
  {
    let catalogue = try ExerciseCatalogueOption.load(arguments)
    let fixed = try arguments.string("exercise").map {
      try CountCommand.definition(named: $0, in: catalogue, command: command)
    }
    var models = try foldModels(arguments)
    if models.isEmpty && !arguments.flag("reps-only") {
      models = [try WeightsFile.load(WeightsLocation.resolve(arguments.string("weights")))]
    }
    let stride = try arguments.int("stride", range: 1...600)!
    let minimum = try arguments.double("min-clip-seconds", range: 0...3600)!
    let fold = try FoldOption.parse(arguments, command: command)
    var report = EvaluationReport(labels: models.first?.labels ?? [])
    if arguments.flag("whole-files") {
      try countWholeFiles(
        annotations.map(\.annotation), catalogue: catalogue, fixed: fixed, arguments: arguments,
        into: &report)
      return report
    }
    var cache: (path: String, recording: ResampledRecording)?
    let progress = ProgressLine(total: annotations.count, unit: "clip")
    for (index, numbered) in annotations.enumerated()
    where fold.map({ numbered.number % $0.count == $0.index }) ?? true {
      let annotation = numbered.annotation
      let classifier = models.isEmpty ? nil : models[numbered.number % models.count]
      if cache?.path != annotation.resolvedPath {
        cache = (annotation.resolvedPath, try read(annotation, arguments))
      }
      let recording = cache!.recording
      let (start, end) = (annotation.startTime, annotation.endTime)
      if let classifier, (end ?? .infinity) - (start ?? 0) >= minimum {
        let (windows, mean) = ClipScoring.classify(
          recording, from: start, to: end, classifier: classifier, stride: stride)
        if !windows.isEmpty {
          let clip =
            annotation.fileName + ((start ?? 0) > 0 ? String(format: " from %.1f s", start!) : "")
          report.addClip(clip, truth: annotation.label, windows: windows, scores: mean)
        }
      }
      let definition = fixed ?? catalogue.definition(forLabel: annotation.label)
      let truth = annotation.reps ?? (fixed != nil && annotation.label != fixed!.label ? 0 : nil)
      if let truth, let definition {
        let counted = ClipScoring.countReps(recording, from: start, to: end, definition: definition)
        report.addReps(
          RepScore(
            file: annotation.fileName, label: annotation.label, truth: truth,
            counted: counted.count))
        if arguments.flag("tempo") {
          report.addTempo(
            TempoClip(
              file: annotation.fileName, label: annotation.label, done: truth,
              counted: counted.count,
              seconds: (end ?? recording.ticks.last?.t ?? 0)
                - (start ?? recording.ticks.first?.t ?? 0),
              repBounds: annotation.repBounds?.map { $0[0]...$0[1] }, events: counted.events))
        }
      } else if truth != nil && annotation.label != Labels.other {
        report.addUncounted(label: annotation.label)  // `other` is no exercise, by design
      }
      progress.advance(to: index + 1)
    }
    progress.finish()
    return report
  }

  /// A recording as eval scores it: thinned to --frame-rate, shaken with --shake and rescored
  /// with --scores (each file by its own draws, from --seed and its name in the annotations, so
  /// they do not depend on which files are read with it, or on where the annotations were
  /// given from).
  static func read(_ annotation: Annotation, _ arguments: ParsedArguments) throws
    -> ResampledRecording
  {
    try ResampledRecording.read(
      annotation.resolvedPath, prepare: try preparation(for: annotation, arguments))
  }

  /// What `shaker(for:)` does to each frame, nil without detector options.
  static func preparation(for annotation: Annotation, _ arguments: ParsedArguments) throws
    -> ((inout PeopleFrame) -> Bool)?
  {
    guard var shaker = try shaker(for: annotation, arguments) else { return nil }
    return { shaker.prepare(&$0) }
  }

  /// The --shake, --scores and --frame-rate detector for the annotation's file, nil without
  /// them.
  static func shaker(for annotation: Annotation, _ arguments: ParsedArguments) throws
    -> PoseShaker?
  {
    let deviation = try arguments.double("shake", range: 0...1)!
    let scores = try scores(arguments)
    let frameRate = try frameRate(arguments)
    let quirk = try quirk(arguments)
    guard deviation > 0 || scores != nil || frameRate != nil || quirk != nil else { return nil }
    let seed = try arguments.int("seed", range: 0...Int.max) ?? 1
    return PoseShaker(
      deviation: Float(deviation), scores: scores, frameRate: frameRate, quirk: quirk,
      seed: UInt64(seed), label: StableHash.fnv1a(annotation.fileName))
  }

  /// `--quirk NAME`, one of `PoseShaker.InputQuirk`.
  static func quirk(_ arguments: ParsedArguments) throws -> PoseShaker.InputQuirk? {
    guard let name = arguments.string("quirk") else { return nil }
    guard let quirk = PoseShaker.InputQuirk(rawValue: name) else {
      throw CLIError.usage(
        "--quirk must be "
          + PoseShaker.InputQuirk.allCases.map(\.rawValue).joined(separator: ", "),
        command: command)
    }
    return quirk
  }

  /// `--frame-rate N`, 1 to 1000 frames a second.
  static func frameRate(_ arguments: ParsedArguments) throws -> Double? {
    try arguments.double("frame-rate", range: 1...1000)
  }

  /// `--scores LO:HI`, with 0.01 ≤ LO ≤ HI ≤ 1.
  static func scores(_ arguments: ParsedArguments) throws -> ClosedRange<Float>? {
    try arguments.interval("scores", within: 0.01...1).map {
      Float($0.lowerBound)...Float($0.upperBound)
    }
  }

  /// `--whole-files`: each file counted from start to end by its exercise's definition (or
  /// the fixed one), against the reps of all its sets of that exercise: what came before and
  /// after a set (walking up, getting down to the floor, getting up) must add nothing.
  static func countWholeFiles(
    _ annotations: [Annotation], catalogue: ExerciseCatalogue, fixed: ExerciseDefinition?,
    arguments: ParsedArguments, into report: inout EvaluationReport
  ) throws {
    var files: [String] = []
    for annotation in annotations where !files.contains(annotation.fileName) {
      files.append(annotation.fileName)
    }
    let progress = ProgressLine(total: files.count, unit: "file")
    for (index, file) in files.enumerated() {
      let sets = annotations.filter { $0.fileName == file }
      let label = fixed?.label ?? sets.first { $0.label != "other" }?.label ?? "other"
      guard let definition = fixed ?? catalogue.definition(forLabel: label) else { continue }
      let recording = try read(sets[0], arguments)
      let truth = sets.filter { $0.label == label }.reduce(0) { $0 + ($1.reps ?? 0) }
      let counted = ClipScoring.countReps(recording, from: nil, to: nil, definition: definition)
      report.addReps(RepScore(file: file, label: label, truth: truth, counted: counted.count))
      progress.advance(to: index + 1)
    }
    progress.finish()
  }

  /// `--workouts`: each annotated file through a session, its timeline scored.
  /// With --fold-weights, a file is run by the model that left out its first annotation.
  static func workouts(_ annotations: [NumberedAnnotation], _ arguments: ParsedArguments) throws
    -> TimelineReport
  {
    let models = try foldModels(arguments)
    let runtimes =
      models.isEmpty
      ? [try RuntimeOptions.runtime(arguments)]
      : try models.map { try RuntimeOptions.runtime(arguments, classifier: $0) }
    var report = TimelineReport(tolerance: try arguments.double("tolerance", range: 0...60)!)
    var files: [NumberedAnnotation] = []
    for numbered in annotations
    where !files.contains(where: { $0.annotation.resolvedPath == numbered.annotation.resolvedPath })
    {
      files.append(numbered)
    }
    let progress = ProgressLine(total: files.count, unit: "file")
    for (index, file) in files.enumerated() {
      let path = file.annotation.resolvedPath
      let events = try TimelineScoring.run(
        path, runtime: runtimes[file.number % runtimes.count],
        prepare: try preparation(for: file.annotation, arguments))
      report.add(
        events: events, truth: annotations.map(\.annotation).filter { $0.resolvedPath == path })
      progress.advance(to: index + 1)
    }
    progress.finish()
    return report
  }
}
