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
      .value("annotations", "FILE", "A Create ML annotation file (JSON array)."),
      WeightsLocation.option,
      ExerciseCatalogueOption.option,
      .flag("reps-only", "Only count reps (no classifier needed)."),
      .value("stride", "N", "Frames between window predictions.", default: "10"),
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
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let path = try arguments.required("annotations")
    let annotations = try Annotations.read(path)
    let catalogue = try ExerciseCatalogueOption.load(arguments)
    let classifier =
      arguments.flag("reps-only")
      ? nil : try WeightsFile.load(WeightsLocation.resolve(arguments.string("weights")))
    let stride = try arguments.int("stride", range: 1...600)!
    let minimum = try arguments.double("min-clip-seconds", range: 0...3600)!
    var report = EvaluationReport(labels: classifier?.labels ?? [])
    var cache: (path: String, recording: ClipScoring.Recording)?
    let showProgress = Terminal.isTerminal(2)
    let fold = try FoldOption.parse(arguments, command: command)
    for (index, annotation) in annotations.enumerated()
    where fold.map({ index % $0.count == $0.index }) ?? true {
      if cache?.path != annotation.resolvedPath {
        cache = (annotation.resolvedPath, try ClipScoring.read(annotation.resolvedPath))
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
