import ArgumentParsing
import Foundation
import Poses
import RepCounting

/// `spotter measure --joint knee POSES`: a joint's angle over time and the range it reached,
/// per side: the rehab mode, no exercise needed.
enum MeasureCommand {
  static let command = Command(
    name: "measure",
    summary: "Follow a joint's angle (flexion and extension) over time, per side: rehab mode.",
    arguments: [Argument(name: "FILE", help: "A pose file, CSV, OpenPose folder, or - for stdin.")],
    options: [
      .value("joint", "JOINT", "knee, hip, elbow or shoulder.", default: "knee"),
      .value("side", "SIDE", "left, right or both.", default: "both"),
      .value("every", "S", "Seconds between rows of the table.", default: "0.5"),
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
      .flag("json", "Print one JSON object: the angle at every frame and the range per side."),
    ],
    discussion: """
      The angle is between the joint's two segments as the camera sees them (180° straight): a
      camera square to the movement (the side, for a knee) reads the true angle within a few
      degrees; from the front or behind, a knee or an elbow bending towards the camera reads
      far too straight (Sources/RepCounting/README.md gives the measured errors).
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    guard let joint = JointAngle(rawValue: arguments.string("joint")!) else {
      throw CLIError.usage("--joint must be knee, hip, elbow or shoulder", command: command)
    }
    let sides: [Bool]
    switch arguments.string("side")! {
    case "left": sides = [true]
    case "right": sides = [false]
    case "both": sides = [true, false]
    default: throw CLIError.usage("--side must be left, right or both", command: command)
    }
    let every = try arguments.double("every", range: 0.01...3600)!
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    var pipeline = FramePipeline()
    var series: [(t: Double, left: Double?, right: Double?)] = []
    // A joint's angle over the ticks, as the runtime follows and resamples them: no engine,
    // no classifier, so no session.
    try source.readAll { frame in
      pipeline.push(frame) { pose, t in
        let left = sides.contains(true) ? joint.degrees(in: pose, left: true) : nil
        let right = sides.contains(false) ? joint.degrees(in: pose, left: false) : nil
        series.append((t, left, right))
      }
    } skipped: {
      Terminal.error("warning: \($0)")
    }
    print(
      arguments.flag("json")
        ? json(series, joint: joint, sides: sides)
        : table(series, joint: joint, sides: sides, every: every))
    return 0
  }

  /// The least and greatest angle on one side, and their difference.
  static func range(_ values: [Double]) -> (least: Double, greatest: Double, range: Double)? {
    guard let least = values.min(), let greatest = values.max() else { return nil }
    return (least, greatest, greatest - least)
  }

  static func table(
    _ series: [(t: Double, left: Double?, right: Double?)], joint: JointAngle, sides: [Bool],
    every: Double
  ) -> String {
    func cell(_ value: Double?) -> String {
      value.map { String(format: "%7.1f°", $0) } ?? "      —"
    }
    let names = sides.map { $0 ? "left" : "right" }
    var lines = [
      "     t  "
        + names.map { $0.padding(toLength: 8, withPad: " ", startingAt: 0) }
        .joined(separator: " ") + "  (\(joint.rawValue) angle, 180° straight)"
    ]
    var next = series.first?.t ?? 0
    for entry in series where entry.t >= next - 1e-9 {
      let values = sides.map { $0 ? entry.left : entry.right }
      lines.append(String(format: "%6.1f  ", entry.t) + values.map(cell).joined(separator: " "))
      next += every * ((entry.t - next) / every).rounded(.down) + every
    }
    lines.append("")
    for (left, name) in zip(sides, names) {
      let values = series.compactMap { left ? $0.left : $0.right }
      guard let reached = range(values) else {
        lines.append("\(name): never seen")
        continue
      }
      lines.append(
        String(
          format: "%@: most bent %.1f°, straightest %.1f°, range %.1f° (%d frames seen)", name,
          reached.least, reached.greatest, reached.range, values.count))
    }
    return lines.joined(separator: "\n")
  }

  static func json(
    _ series: [(t: Double, left: Double?, right: Double?)], joint: JointAngle, sides: [Bool]
  ) -> String {
    var object: [String: Any] = ["joint": joint.rawValue]
    object["frames"] = series.map { entry -> [String: Any] in
      var row: [String: Any] = ["t": (entry.t * 1000).rounded() / 1000]
      if sides.contains(true) {
        row["left"] = entry.left.map { ($0 * 10).rounded() / 10 } ?? NSNull()
      }
      if sides.contains(false) {
        row["right"] = entry.right.map { ($0 * 10).rounded() / 10 } ?? NSNull()
      }
      return row
    }
    for left in sides {
      let values = series.compactMap { left ? $0.left : $0.right }
      object[left ? "left" : "right"] =
        range(values).map {
          [
            "most_bent": $0.least, "straightest": $0.greatest, "range": $0.range,
            "frames": values.count,
          ]
            as [String: Any]
        } ?? NSNull()
    }
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
