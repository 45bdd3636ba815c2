import Evaluation
import Foundation

/// `spotter eval`'s reports as text tables and as one JSON object.
enum EvalOutput {
  static func percent(_ value: Double?) -> String {
    value.map { String(format: "%5.1f%%", $0 * 100) } ?? "   n/a"
  }

  static func padded(_ text: String, _ width: Int) -> String {
    text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0)
  }

  // MARK: clips

  static func text(_ report: EvaluationReport, worst: Int) -> String {
    var sections: [String] = []
    if report.clips > 0 { sections.append(classification(report)) }
    if worst > 0 && !report.mislabelled.isEmpty {
      sections.append(mislabelled(report.mislabelled, worst))
    }
    if !report.reps.isEmpty {
      sections.append(repTable("Rep counting", report.reps))
      if worst > 0 { sections.append(worstClips(report.reps, worst)) }
    }
    let uncounted = report.uncountedLabels.sorted { $0.key < $1.key }.map { label, count in
      "(\(count) clip\(count == 1 ? "" : "s") labelled '\(label)' give\(count == 1 ? "s" : "") reps, "
        + "but no exercise definition has that label: not counted)"
    }
    // The tempo table comes last, so what eval printed before it is unchanged by --tempo.
    let tempo = report.tempoClips.isEmpty ? [] : [tempoTable(TempoTable(report.tempoClips))]
    return sections.isEmpty
      ? (["Nothing to score: no clips the model knows, and no reps."] + uncounted).joined(
        separator: "\n")
      : (sections + (uncounted.isEmpty ? [] : [uncounted.joined(separator: "\n")]) + tempo)
        .joined(separator: "\n\n")
  }

  static func classification(_ report: EvaluationReport) -> String {
    var lines = [
      "Clips: \(report.clips)   clip accuracy \(percent(report.clipAccuracy))   window "
        + "accuracy \(percent(report.windowAccuracy)) (\(report.windowsTotal) windows)",
      "",
      "label           precision  recall   clips",
    ]
    for (k, label) in report.labels.enumerated()
    where report.confusion[k].reduce(0, +) > 0 || report.precision(k) != nil {
      lines.append(
        padded(label, 16)
          + "\(percent(report.precision(k)))    \(percent(report.recall(k)))   "
          + "\(report.confusion[k].reduce(0, +))"
      )
    }
    lines += [
      "", "Confusion (rows: truth, columns: predicted, headed by their labels' first letters):",
      padded("", 16) + report.labels.map { " " + String($0.prefix(3)) }.joined(),
    ]
    for (k, label) in report.labels.enumerated() where report.confusion[k].reduce(0, +) > 0 {
      lines.append(
        padded(label, 16) + report.confusion[k].map { String(format: "%4d", $0) }.joined())
    }
    for (label, count) in report.unknownLabels.sorted(by: { $0.key < $1.key }) {
      lines.append(
        "(\(count) clips labelled '\(label)', which the model does not know, were skipped)")
    }
    return lines.joined(separator: "\n")
  }

  /// The `count` clips labelled most confidently wrong.
  static func mislabelled(_ clips: [MislabelledClip], _ count: Int) -> String {
    let shown = clips.sorted {
      $0.probability - $0.truthProbability > $1.probability - $1.truthProbability
    }
    .prefix(count)
    var lines = [
      "Mislabelled, most confident first (\(shown.count) of \(clips.count): clip, truth, predicted):"
    ]
    for clip in shown {
      lines.append(
        "  \(clip.clip)  \(clip.truth) \(String(format: "%.2f", clip.truthProbability))  "
          + "\(clip.predicted) \(String(format: "%.2f", clip.probability))")
    }
    return lines.joined(separator: "\n")
  }

  /// A rep-count table: per label and all, clips, relative MAE (|counted − done| / done) and
  /// the share within one rep.
  static func repTable(_ title: String, _ scores: [RepScore]) -> String {
    var lines = [padded(title, 22) + "clips   rel.MAE within one rep"]
    for label in scores.labels {
      lines.append(row(label, scores.error(for: label)!))
    }
    lines.append(row("all", scores.error()!))
    return lines.joined(separator: "\n")
  }

  private static func row(_ label: String, _ error: RepError) -> String {
    padded(label, 22)
      + String(format: "%5d   %.3f   %@", error.clips, error.mae, percent(error.withinOne))
  }

  static func worstClips(_ scores: [RepScore], _ count: Int) -> String {
    var lines = ["Furthest off (file, label, done, counted):"]
    for score in scores.worst(count) {
      lines.append("  \(score.file)  \(score.label)  \(score.truth)  \(score.counted)")
    }
    return lines.joined(separator: "\n")
  }

  static func json(_ report: EvaluationReport) -> String {
    var object: [String: Any] = ["clips": report.clips]
    if report.clips > 0 {
      object["clip_accuracy"] = report.clipAccuracy
      object["window_accuracy"] = report.windowAccuracy
      object["labels"] = report.labels
      object["confusion"] = report.confusion
      object["mislabelled"] = report.mislabelled.map {
        [
          "clip": $0.clip, "truth": $0.truth, "predicted": $0.predicted,
          "probability": $0.probability, "truth_probability": $0.truthProbability,
        ] as [String: Any]
      }
      object["per_class"] = Dictionary(
        uniqueKeysWithValues: report.labels.enumerated().map { k, label in
          (
            label,
            ["precision": report.precision(k) ?? NSNull(), "recall": report.recall(k) ?? NSNull()]
              as [String: Any]
          )
        })
    }
    object["reps"] = repsObject(report.reps)
    if !report.tempoClips.isEmpty { object["tempo"] = tempoObject(TempoTable(report.tempoClips)) }
    return serialise(object)
  }

  static func repsObject(_ scores: [RepScore]) -> [String: Any] {
    var reps: [String: Any] = [:]
    for label in scores.labels { reps[label] = errorObject(scores.error(for: label)!) }
    if let overall = scores.error() { reps["all"] = errorObject(overall) }
    reps["clips"] = scores.map {
      ["file": $0.file, "label": $0.label, "truth": $0.truth, "counted": $0.counted]
    }
    return reps
  }

  static func errorObject(_ error: RepError) -> [String: Any] {
    ["clips": error.clips, "mae": error.mae, "within_one": error.withinOne]
  }

  // MARK: workouts

  static func text(_ report: TimelineReport, worst: Int) -> String {
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
      "exercises reported where none was  \(report.strayExercises) (\(report.strayReps) reps, in "
        + "\(report.strayRecordings) of \(report.files) recordings)",
      "",
      "label           sets  on time  counted exactly",
    ]
    for (label, score) in report.perLabel.sorted(by: { $0.key < $1.key }) {
      lines.append(
        padded(label, 16)
          + String(format: "%4d  %7d  %15d", score.sets, score.onTime, score.exact))
    }
    if !report.runtimeReps.isEmpty {
      lines += ["", repTable("Reps the runtime gave", report.runtimeReps)]
      if worst > 0 { lines += ["", worstClips(report.runtimeReps, worst)] }
    }
    return lines.joined(separator: "\n")
  }

  static func json(_ report: TimelineReport) -> String {
    var object: [String: Any] = [
      "files": report.files, "sets": report.sets, "found": report.found,
      "on_time": report.onTime, "tolerance": report.tolerance,
      "counted_exactly": report.countedExactly, "rep_errors": report.repErrors,
      "stray_exercises": report.strayExercises, "stray_reps": report.strayReps,
      "stray_recordings": report.strayRecordings,
      "per_label": Dictionary(
        uniqueKeysWithValues: report.perLabel.map {
          ($0.key, ["sets": $0.value.sets, "on_time": $0.value.onTime, "exact": $0.value.exact])
        }),
      "runtime_reps": repsObject(report.runtimeReps),
    ]
    if let start = TimelineReport.spread(report.startErrors),
      let end = TimelineReport.spread(report.endErrors)
    {
      object["start_error"] = ["median": start.median, "p90": start.p90]
      object["end_error"] = ["median": end.median, "p90": end.p90]
    }
    return serialise(object)
  }

  private static func serialise(_ object: [String: Any]) -> String {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
