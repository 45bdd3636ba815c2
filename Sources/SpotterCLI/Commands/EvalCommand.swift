import Evaluation
import ArgumentParsing
import ActionModel
import Foundation
import Poses
import RepCounting
import Spotter

/// `spotter eval --annotations FILE`: how well the model and the rep engines do on annotated
/// recordings.
enum EvalCommand {
  static let command = Command(
    name: "eval",
    summary: "Score the classifier and the rep counters against Create ML annotations.",
    options: [
      .value("annotations", "FILE", "A Create ML annotation file (JSON array).")
    ] + RuntimeOptions.options + [
      .flag("reps-only", "Only count reps (no classifier needed)."),
      .flag(
        "workouts",
        "Run each annotated file whole through a session, as classify does, and score the timeline."
      ),
      .value(
        "tolerance", "S", "With --workouts: how close a set's start and end must come.",
        default: "1"),
      .flag("json", "Print one JSON object."),
      FoldOption.option,
      .value(
        "min-clip-seconds", "S",
        "Classify only clips at least this long (transitions between sets are short).", default: "0"
      ),
    ],
    discussion: """
      Each annotation is one clip: its frames from start_time to end_time. A clip's label is the
      label with the highest mean probability over its windows (a window every --stride frames,
      zero-padded before the clip starts, as a live stream is). Reps are counted with each clip's
      annotated label's default exercise definition, where the annotation gives reps.

      With --workouts, each file is instead streamed whole through a session (the runtime's
      classifier, smoother, hand-off and backfill, with the session options) and its timeline
      scored: sets found, sets whose reported start and end are both within --tolerance of the
      annotation, sets counted exactly, and exercises reported where the file has none.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let path = try arguments.required("annotations")
    // Whole files: clip options would be silently ignored.
    if arguments.flag("workouts")
      && (arguments.flag("reps-only") || arguments.string("fold") != nil)
    {
      throw CLIError.usage(
        "--workouts scores whole files; --reps-only and --fold are for clips", command: command)
    }
    let annotations = try Annotations.read(path)
    if arguments.flag("workouts") { return try workouts(annotations, arguments) }
    let catalogue = try ExerciseCatalogueOption.load(arguments)
    let classifier =
      arguments.flag("reps-only")
      ? nil : try WeightsFile.load(WeightsLocation.resolve(arguments.string("weights")))
    let stride = try arguments.int("stride", range: 1...600)!
    let minimum = try arguments.double("min-clip-seconds", range: 0...3600)!
    var report = EvaluationReport(labels: classifier?.labels ?? [])
    var cache: (path: String, recording: ResampledRecording)?
    let showProgress = Terminal.isTerminal(2)
    let fold = try FoldOption.parse(arguments, command: command)
    for (index, annotation) in annotations.enumerated()
    where fold.map({ index % $0.count == $0.index }) ?? true {
      if cache?.path != annotation.resolvedPath {
        cache = (annotation.resolvedPath, try ResampledRecording.read(annotation.resolvedPath))
      }
      let recording = cache!.recording
      let long = (annotation.endTime ?? .infinity) - (annotation.startTime ?? 0) >= minimum
      if let classifier, long {
        let (windows, mean) = ClipScoring.classify(
          recording, from: annotation.startTime, to: annotation.endTime, classifier: classifier,
          stride: stride)
        if !windows.isEmpty {
          report.addClip(truth: annotation.label, windows: windows, scores: mean)
        }
      }
      if let truth = annotation.reps,
        let definition = catalogue.definition(forLabel: annotation.label)
      {
        let counted = ClipScoring.countReps(
          recording, from: annotation.startTime, to: annotation.endTime, definition: definition)
        report.addReps(label: annotation.label, counted: counted, truth: truth)
      }
      if showProgress { Terminal.error("\rclip \(index + 1)/\(annotations.count)") }
    }
    if showProgress { Terminal.error("") }
    print(arguments.flag("json") ? json(report) : text(report))
    return 0
  }

  /// `--workouts`: each annotated file through a session, its timeline scored.
  static func workouts(_ annotations: [Annotation], _ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    var report = TimelineReport(tolerance: try arguments.double("tolerance", range: 0...60)!)
    var files: [String] = []
    for annotation in annotations where !files.contains(annotation.resolvedPath) {
      files.append(annotation.resolvedPath)
    }
    let showProgress = Terminal.isTerminal(2)
    for (index, file) in files.enumerated() {
      report.add(
        events: try TimelineScoring.run(file, runtime: runtime),
        truth: annotations.filter { $0.resolvedPath == file })
      if showProgress { Terminal.error("\rfile \(index + 1)/\(files.count)") }
    }
    if showProgress { Terminal.error("") }
    print(arguments.flag("json") ? json(report) : text(report))
    return 0
  }

  static func text(_ report: TimelineReport) -> String {
    func count(_ n: Int) -> String { "\(n) of \(report.sets)" }
    func spread(_ errors: [Double]) -> String {
      TimelineReport.spread(errors).map {
        String(format: "|error| median %.2f s, 90th percentile %.2f s", $0.median, $0.p90)
      } ?? "n/a"
    }
    var lines = [
      "Workouts: \(report.files) files, \(report.sets) sets",
      "sets found                         \(count(report.found))",
      String(
        format: "start and end within %.1f s         %@", report.tolerance, count(report.onTime)),
      "  start                            \(spread(report.startErrors))",
      "  end                              \(spread(report.endErrors))",
      "counted exactly                    \(count(report.countedExactly))"
        + String(
          format: " (mean |error| %.2f reps a set)",
          Double(report.repErrors) / Double(max(1, report.sets))),
      "exercises reported where none was  \(report.strayExercises) (\(report.strayReps) reps)",
      "",
      "label           sets  on time  counted exactly",
    ]
    for (label, score) in report.perLabel.sorted(by: { $0.key < $1.key }) {
      lines.append(
        label.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%4d  %7d  %15d", score.sets, score.onTime, score.exact))
    }
    return lines.joined(separator: "\n")
  }

  static func json(_ report: TimelineReport) -> String {
    var object: [String: Any] = [
      "files": report.files, "sets": report.sets, "found": report.found,
      "on_time": report.onTime, "tolerance": report.tolerance,
      "counted_exactly": report.countedExactly, "rep_errors": report.repErrors,
      "stray_exercises": report.strayExercises, "stray_reps": report.strayReps,
      "per_label": Dictionary(
        uniqueKeysWithValues: report.perLabel.map {
          ($0.key, ["sets": $0.value.sets, "on_time": $0.value.onTime, "exact": $0.value.exact])
        }),
    ]
    if let start = TimelineReport.spread(report.startErrors),
      let end = TimelineReport.spread(report.endErrors)
    {
      object["start_error"] = ["median": start.median, "p90": start.p90]
      object["end_error"] = ["median": end.median, "p90": end.p90]
    }
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  static func percent(_ value: Double?) -> String {
    value.map { String(format: "%5.1f%%", $0 * 100) } ?? "   n/a"
  }

  static func text(_ report: EvaluationReport) -> String {
    var lines: [String] = []
    if report.clips > 0 {
      lines.append(
        "Clips: \(report.clips)   clip accuracy \(percent(report.clipAccuracy))   window accuracy \(percent(report.windowAccuracy)) (\(report.windowsTotal) windows)"
      )
      lines.append("")
      lines.append("label           precision  recall   clips")
      for (k, label) in report.labels.enumerated()
      where report.confusion[k].reduce(0, +) > 0 || report.precision(k) != nil {
        lines.append(
          label.padding(toLength: 16, withPad: " ", startingAt: 0)
            + "\(percent(report.precision(k)))    \(percent(report.recall(k)))   \(report.confusion[k].reduce(0, +))"
        )
      }
      lines.append("")
      lines.append("Confusion (rows: truth, columns: predicted, in label order):")
      for (k, label) in report.labels.enumerated() where report.confusion[k].reduce(0, +) > 0 {
        lines.append(
          label.padding(toLength: 16, withPad: " ", startingAt: 0)
            + report.confusion[k].map { String(format: "%4d", $0) }.joined())
      }
      for (label, count) in report.unknownLabels.sorted(by: { $0.key < $1.key }) {
        lines.append(
          "(\(count) clips labelled '\(label)', which the model does not know, were skipped)")
      }
    }
    if let overall = report.repError() {
      if !lines.isEmpty { lines.append("") }
      lines.append("Rep counting          clips   MAE     within one rep")
      for label in report.repLabels {
        let error = report.repError(for: label)!
        lines.append(
          label.padding(toLength: 22, withPad: " ", startingAt: 0)
            + String(format: "%5d   %.3f   %@", error.clips, error.mae, percent(error.offByOne)))
      }
      lines.append(
        "all".padding(toLength: 22, withPad: " ", startingAt: 0)
          + String(format: "%5d   %.3f   %@", overall.clips, overall.mae, percent(overall.offByOne))
      )
    }
    return lines.isEmpty
      ? "Nothing to score: no clips the model knows, and no reps." : lines.joined(separator: "\n")
  }

  static func json(_ report: EvaluationReport) -> String {
    var object: [String: Any] = ["clips": report.clips]
    if report.clips > 0 {
      object["clip_accuracy"] = report.clipAccuracy
      object["window_accuracy"] = report.windowAccuracy
      object["labels"] = report.labels
      object["confusion"] = report.confusion
      object["per_class"] = Dictionary(
        uniqueKeysWithValues: report.labels.enumerated().map { k, label in
          (
            label,
            ["precision": report.precision(k) ?? NSNull(), "recall": report.recall(k) ?? NSNull()]
              as [String: Any]
          )
        })
    }
    var reps: [String: Any] = [:]
    for label in report.repLabels {
      let error = report.repError(for: label)!
      reps[label] = ["clips": error.clips, "mae": error.mae, "off_by_one": error.offByOne]
    }
    if let overall = report.repError() {
      reps["all"] = ["clips": overall.clips, "mae": overall.mae, "off_by_one": overall.offByOne]
    }
    object["reps"] = reps
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
