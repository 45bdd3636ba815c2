import ActionModel
import ArgumentParsing
import Evaluation
import Foundation
import Poses

/// `spotter calibrate --annotations FILE... --fold-weights FILE...`: whether the model's
/// confidence means what it says, on windows it did not train on, and the temperature that
/// makes it (written into a weights file with --write).
enum CalibrateCommand {
  static let command = Command(
    name: "calibrate",
    summary: "Fit the temperature that makes the model's confidence honest, on held-out windows.",
    options: [
      .value(
        "annotations", "FILE",
        "Create ML annotations of recordings, one data set a file (give it again for more)."),
      .value(
        "fold-weights", "FILE",
        "K weights files, those of train --fold 0/K … K-1/K in order: each clip's windows are "
          + "the model's that left the clip out."),
      .value(
        "stride", "N", "Frames between the windows classified, as a session makes them.",
        default: "10"),
      .value(
        "write", "FILE",
        "Set the temperatures fitted on all the windows in this weights file (the model trained "
          + "on all of them, whose folds these are); give it again for more files."),
      .flag("json", "Print one JSON object."),
    ],
    discussion: """
      Each clip (annotation) is classified as 'spotter eval' classifies it, by the fold model
      that left it out (clip n of a file is in fold n mod K), window by window. Temperature
      scaling divides the logits by T before the softmax; T is fitted by the likelihood of the
      true labels, each data set weighing the same: one for streams with positions, one for
      streams whose frames were each normalised to their own box (a model is sure of such
      frames far more often than it is right, and a session knows when its stream is one).
      Reported by data set: accuracy of the
      windows, expected calibration error (15 bins) at T = 1 and at the temperature fitted on
      the other folds' windows (cross-fitted: the fit never sees the windows it is judged on),
      and how often windows are right by their calibrated confidence. The shipped model's
      temperatures are the ones fitted on every fold's windows (Weights/MODEL_CARD.md).
      """,
    run: run
  )

  /// The confidence bands the table reports: below `SessionOptions.lowConfidence`, and up.
  static let bands = [0, 0.3, 0.45, 0.6, 0.75, 0.9]

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let files = arguments.strings("annotations")
    guard !files.isEmpty else {
      throw CLIError.usage("give --annotations FILE (one data set a file)", command: command)
    }
    let paths = arguments.strings("fold-weights")
    guard paths.count >= 2 else {
      throw CLIError.usage(
        "--fold-weights takes K ≥ 2 files, one per fold: calibration is fitted on windows the "
          + "model did not train on", command: command)
    }
    let models = try paths.map(WeightsFile.load)
    if let other = models.first(where: { $0.labels != models[0].labels }) {
      throw CLIError.usage(
        "--fold-weights: the models' labels differ (\(models[0].labels) against \(other.labels))",
        command: command)
    }
    let stride = try arguments.int("stride", range: 1...600)!
    let targets = try arguments.strings("write").map { path in
      let (metadata, parameters) = try WeightsFile.read(path)
      guard metadata.labels == models[0].labels else {
        throw CLIError.usage(
          "--write \(path): its labels \(metadata.labels) are not the folds' \(models[0].labels)",
          command: command)
      }
      return (path, metadata, parameters)
    }
    var windows: [Calibration.Window] = []
    for (dataset, file) in files.enumerated() {
      let held = try heldOutWindows(file, dataset: dataset, models: models, stride: stride)
      for fold in models.indices where !held.contains(where: { $0.fold == fold }) {
        throw CLIError.failure(
          "\(file) has no window the model of fold \(fold) left out: give every fold clips to "
            + "classify (clip n is in fold n mod \(models.count))", hint: nil)
      }
      windows += held
    }
    // One temperature for streams with positions, one for streams whose frames were each
    // normalised to their own box (the runtime knows which it has), each fitted on its own
    // windows; three decimals, as the weights file keeps them.
    var fitted: [Bool: Double] = [:]
    var foldTemperatures: [Bool: [Int: Double]] = [:]
    var crossFitted = [(Double, Bool)](repeating: (0, false), count: windows.count)
    for normalised in [false, true] {
      let indices = windows.indices.filter { windows[$0].normalisedFrames == normalised }
      guard !indices.isEmpty else { continue }
      let group = indices.map { windows[$0] }
      fitted[normalised] = (Calibration.fitTemperature(group) * 1000).rounded() / 1000
      let (confidences, byFold) = Calibration.crossFitted(group)
      foldTemperatures[normalised] = byFold
      for (index, confidence) in zip(indices, confidences) { crossFitted[index] = confidence }
    }
    let temperature = fitted[false] ?? fitted[true]!
    let normalisedFramesTemperature = fitted[false] == nil ? nil : fitted[true]
    let asIs = Calibration.confidences(windows, temperature: 1)
    let rows = files.indices.map { dataset in
      let indices = windows.indices.filter { windows[$0].dataset == dataset }
      return Row(
        name: (files[dataset] as NSString).deletingLastPathComponent.split(separator: "/").last
          .map(String.init) ?? files[dataset],
        windows: indices.count,
        accuracy: Double(indices.filter { asIs[$0].1 }.count) / Double(max(1, indices.count)),
        errorAsIs: Calibration.expectedError(indices.map { asIs[$0] }),
        errorCrossFitted: Calibration.expectedError(indices.map { crossFitted[$0] }),
        bands: Calibration.reliability(indices.map { crossFitted[$0] }, bands: bands))
    }
    for (path, metadata, parameters) in targets {
      var calibrated = metadata
      calibrated.temperature = temperature
      calibrated.normalisedFramesTemperature = normalisedFramesTemperature
      try WeightsFile.write(metadata: calibrated, parameters: parameters, to: path)
    }
    let fit = Fit(
      temperature: temperature, normalisedFrames: normalisedFramesTemperature,
      folds: foldTemperatures[false] ?? foldTemperatures[true]!,
      normalisedFramesFolds: normalisedFramesTemperature == nil ? nil : foldTemperatures[true])
    let written = targets.map(\.0)
    print(
      arguments.flag("json") ? json(rows, fit, written: written) : text(rows, fit, written: written)
    )
    return 0
  }

  /// Each clip's windows, classified by the fold model that left it out, at temperature 1.
  static func heldOutWindows(
    _ file: String, dataset: Int, models: [Classifier], stride: Int
  ) throws -> [Calibration.Window] {
    let annotations = try Annotations.read(file)
    var windows: [Calibration.Window] = []
    var cache: (path: String, recording: ResampledRecording)?
    let progress = ProgressLine(total: annotations.count, unit: "clip")
    let unknown = Set(annotations.map(\.label)).subtracting(models[0].labels)
    guard unknown.isEmpty else {
      throw CLIError.failure(
        "\(file) has labels the models do not know (\(unknown.sorted().joined(separator: ", "))); "
          + "expected the models' labels: \(models[0].labels.joined(separator: ", "))", hint: nil)
    }
    for (number, annotation) in annotations.enumerated() {
      let truth = models[0].labels.firstIndex(of: annotation.label)!
      if cache?.path != annotation.resolvedPath {
        cache = (annotation.resolvedPath, try ResampledRecording.read(annotation.resolvedPath))
      }
      let fold = number % models.count
      let model = models[fold]
      // Probabilities at temperature 1, whatever the fold model's own.
      let own = model.metadata.temperature ?? 1
      let scored = ClipScoring.classify(
        cache!.recording, from: annotation.startTime, to: annotation.endTime, classifier: model,
        stride: stride
      ).windows
      let normalised = cache!.recording.positionsLostAfterTick != nil
      for probabilities in scored {
        let raw = Calibration.rescaled(probabilities, temperature: 1 / own).map { Float($0) }
        windows.append(
          Calibration.Window(
            probabilities: raw, truth: truth, fold: fold, dataset: dataset,
            normalisedFrames: normalised))
      }
      progress.advance(to: number + 1)
    }
    progress.finish()
    return windows
  }

  /// The temperatures fitted on every fold's windows, and on the other folds', fold by fold.
  struct Fit {
    var temperature: Double
    var normalisedFrames: Double?
    var folds: [Int: Double]
    var normalisedFramesFolds: [Int: Double]?
  }

  /// One data set's line of the report.
  struct Row {
    var name: String
    var windows: Int
    var accuracy: Double
    var errorAsIs: Double
    var errorCrossFitted: Double
    var bands: [(from: Double, windows: Int, accuracy: Double)]
  }

  static func text(_ rows: [Row], _ fit: Fit, written: [String]) -> String {
    func folds(_ temperatures: [Int: Double]) -> String {
      temperatures.sorted { $0.key < $1.key }.map { String(format: "%.3f", $0.value) }
        .joined(separator: ", ")
    }
    var lines = [
      String(format: "Temperature fitted on every fold's windows: %.3f", fit.temperature),
      "  fitted on the other folds', fold by fold: " + folds(fit.folds),
    ]
    if let normalised = fit.normalisedFrames, let byFold = fit.normalisedFramesFolds {
      lines.append(
        String(format: "Streams of frames normalised to their own box: %.3f", normalised))
      lines.append("  fitted on the other folds', fold by fold: " + folds(byFold))
    }
    lines += ["", "data set                 windows  accuracy  ECE at T=1  ECE cross-fitted"]
    for row in rows {
      lines.append(
        row.name.padding(toLength: 24, withPad: " ", startingAt: 0)
          + String(
            format: " %7d  %7.1f%%  %10.3f  %16.3f", row.windows, 100 * row.accuracy,
            row.errorAsIs, row.errorCrossFitted))
    }
    lines.append("")
    lines.append("Windows right, by calibrated confidence (cross-fitted):")
    for row in rows {
      lines.append(
        "  \(row.name): "
          + row.bands.map {
            String(format: "≥%.2f %d at %.0f%%", $0.from, $0.windows, 100 * $0.accuracy)
          }.joined(separator: "; "))
    }
    if !written.isEmpty {
      lines.append("")
      lines.append("Wrote the temperatures into " + written.joined(separator: ", ") + ".")
    }
    return lines.joined(separator: "\n")
  }

  static func json(_ rows: [Row], _ fit: Fit, written: [String]) -> String {
    let object: [String: Any] = [
      "temperature": fit.temperature,
      "fold_temperatures": fit.folds.sorted { $0.key < $1.key }.map(\.value),
      "normalised_frames_temperature": fit.normalisedFrames as Any,
      "normalised_frames_fold_temperatures": fit.normalisedFramesFolds.map {
        $0.sorted { $0.key < $1.key }.map(\.value)
      } as Any,
      "written": written,
      "datasets": rows.map { row in
        [
          "name": row.name, "windows": row.windows, "accuracy": row.accuracy,
          "ece": row.errorAsIs, "ece_cross_fitted": row.errorCrossFitted,
          "bands": row.bands.map {
            ["from": $0.from, "windows": $0.windows, "accuracy": $0.accuracy] as [String: Any]
          },
        ] as [String: Any]
      },
    ]
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
