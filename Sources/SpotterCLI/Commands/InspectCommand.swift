import ActionModel
import ArgumentParsing
import Foundation
import Poses

/// `spotter inspect [FILE|-]`: what a pose input or a weights file holds.
enum InspectCommand {
  static let command = Command(
    name: "inspect",
    summary: "Describe a pose file, CSV, OpenPose folder, stdin, or a weights file.",
    arguments: [
      Argument(
        name: "FILE",
        help:
          "A .jsonl pose file, a .csv, an OpenPose JSON folder, - for stdin, or a weights "
          + "file. Without it: the model in use.",
        optional: true)
    ],
    options: [
      WeightsLocation.option,
      .flag("json", "Print one JSON object instead of text."),
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
      .value("errors", "N", "How many bad-line errors to show.", default: "5"),
    ],
    discussion:
      "Bad lines are counted and the first few shown; the rest of the file is still read.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    guard let path = arguments.positional(0) else {
      return try describeWeights(
        WeightsLocation.resolve(arguments.string("weights")), json: arguments.flag("json"))
    }
    if WeightsInspection.isWeightsFile(path) {
      return try describeWeights(path, json: arguments.flag("json"))
    }
    let fps = try arguments.double("fps", range: 0.001...10_000)
    let keep = try arguments.int("errors", range: 0...1000)!
    let source = try PoseFiles.open(path, options: PoseFiles.Options(fps: fps))
    let showProgress = Terminal.isTerminal(2) && !arguments.flag("json")
    let summary = try PoseFileSummary.read(source, keepErrors: keep) { frames in
      if showProgress { Terminal.error("\rread \(frames) frames…") }
    }
    if arguments.flag("json") {
      print(json(summary))
    } else {
      print(text(summary))
    }
    return 0
  }

  static func describeWeights(_ path: String, json: Bool) throws -> Int32 {
    let (metadata, parameters) = try WeightsFile.read(path)
    print(
      json
        ? WeightsInspection.json(path: path, metadata: metadata, parameters: parameters)
        : WeightsInspection.text(path: path, metadata: metadata, parameters: parameters))
    return 0
  }

  static func text(_ summary: PoseFileSummary) -> String {
    let header = summary.header
    var lines: [String] = []
    func row(_ label: String, _ value: String) {
      lines.append(label.padding(toLength: 18, withPad: " ", startingAt: 0) + value)
    }
    row("File", summary.name)
    var space = "\(header.space.units.rawValue), origin \(header.space.origin.rawValue)"
    if header.space.mirrored { space += ", mirrored" }
    row("Layout", "\(header.layout.rawValue) (\(header.layout.jointCount) joints; \(space))")
    if let source = header.source { row("Source", source) }
    row("Frames", "\(summary.frames)")
    row("Duration", String(format: "%.2f s", summary.duration))
    let measured = summary.measuredFPS.map { String(format: "%.2f", $0) } ?? "n/a"
    row("Measured fps", "\(measured) (header: \(PoseFileHeaderFormat.number(header.fps)))")
    row(
      "With a person",
      String(
        format: "%.1f%% of frames (most people in a frame: %d)", summary.personShare * 100,
        summary.maxPeople))
    lines.append("Mean confidence per joint (frames with a person):")
    for chunk in stride(from: 0, to: CanonicalJoint.count, by: 3) {
      let cells = (chunk..<min(chunk + 3, CanonicalJoint.count)).map { index in
        let name = CanonicalJoint(rawValue: index)!.name
        return "  " + name.padding(toLength: 15, withPad: " ", startingAt: 0)
          + String(format: "%.2f", summary.meanConfidence[index])
      }
      lines.append(cells.joined(separator: "   "))
    }
    if let from = summary.boxNormalisedFrom {
      row(
        "Box-normalised",
        String(
          format: "each frame stretched to its own box (seen from %.2f s): scale and position "
            + "are lost, the aspect is refitted", from))
    }
    if let from = summary.scoresRaisedFrom {
      row(
        "Scores raised",
        String(
          format: "the detector scores low: raised up to ×%.2f to the definitions' scale "
            + "(from %.2f s)", summary.largestScoreFactor, from))
    }
    row("Bad lines", "\(summary.badLines)")
    for error in summary.firstErrors { lines.append("  \(error)") }
    if summary.badLines > summary.firstErrors.count {
      lines.append("  … and \(summary.badLines - summary.firstErrors.count) more")
    }
    return lines.joined(separator: "\n")
  }

  static func json(_ summary: PoseFileSummary) -> String {
    var joints: [String: Double] = [:]
    for joint in CanonicalJoint.allCases {
      joints[joint.name] = (summary.meanConfidence[joint.rawValue] * 1000).rounded() / 1000
    }
    var object: [String: Any] = [
      "file": summary.name,
      "layout": summary.header.layout.rawValue,
      "units": summary.header.space.units.rawValue,
      "origin": summary.header.space.origin.rawValue,
      "mirrored": summary.header.space.mirrored,
      "header_fps": summary.header.fps,
      "frames": summary.frames,
      "duration": summary.duration,
      "person_share": summary.personShare,
      "max_people": summary.maxPeople,
      "mean_confidence": joints,
      "bad_lines": summary.badLines,
      "box_normalised_from": summary.boxNormalisedFrom ?? NSNull(),
      "scores_raised_from": summary.scoresRaisedFrom ?? NSNull(),
      "score_factor_max": (Double(summary.largestScoreFactor) * 1000).rounded() / 1000,
      "errors": summary.firstErrors.map { error -> [String: Any] in
        var entry: [String: Any] = ["file": error.file, "message": error.message]
        if let line = error.line { entry["line"] = line }
        if let column = error.column { entry["column"] = column }
        return entry
      },
    ]
    object["measured_fps"] = summary.measuredFPS ?? NSNull()
    let data = try! JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }
}

/// Number formatting shared by the commands.
enum PoseFileHeaderFormat {
  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }
}
