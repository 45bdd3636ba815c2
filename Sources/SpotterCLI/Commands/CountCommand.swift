import Foundation
import Poses
import RepCounting
import Spotter

/// `spotter count --exercise NAME FILE|-`: one rep engine, no classifier.
enum CountCommand {
  static let command = Command(
    name: "count",
    summary: "Count reps of one named exercise in a pose stream (no classifier).",
    arguments: [Argument(name: "FILE", help: "A pose file, CSV, OpenPose folder, or - for stdin.")],
    options: [
      .value("exercise", "NAME", "The exercise definition to count (see 'spotter exercises')."),
      ExerciseCatalogueOption.option,
      .flag("json", "Print NDJSON events (rep, cue, error, summary) instead of text."),
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
    ],
    discussion: "Reps are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let name = try arguments.required("exercise")
    let catalogue = try ExerciseCatalogueOption.load(arguments)
    guard let definition = catalogue.definition(named: name) else {
      throw CLIError.usage(
        "unknown exercise '\(name)'; expected one of \(catalogue.definitions.map(\.name).joined(separator: ", "))",
        command: command)
    }
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let json = arguments.flag("json")
    let output = TextOutput.standardOutput()
    let counter = RepCounter(definition)
    var pipeline = FramePipeline()
    var frame = PeopleFrame()
    var last = 0.0
    var first: Double?
    var badLines = 0
    func report(_ event: SpotterEvent) {
      if json {
        output.writeLine(event.jsonLine)
      } else {
        switch event {
        case .rep(let t, _, let rep, _):
          let cue = rep.cue.map { "  — \($0)" } ?? ""
          output.writeLine(
            String(
              format: "%7.2f s  rep %d  (%.1f s, range %.2f)", t, rep.count, rep.duration,
              rep.rangeOfMotion) + cue)
        case .cue(let t, _, let message):
          output.writeLine(String(format: "%7.2f s  %@", t, message))
        case .error(_, let line, let message):
          Terminal.error("warning: line \(line.map(String.init) ?? "?"): \(message)")
        default: break
        }
      }
    }
    loop: while true {
      switch try source.next(into: &frame) {
      case .end: break loop
      case .skipped(let error):
        badLines += 1
        report(.error(t: nil, line: error.line, message: error.description))
      case .frame:
        if first == nil { first = frame.t }
        last = frame.t
        pipeline.push(frame) { pose, t in
          counter.process(pose, t: t) { event in
            switch event {
            case .rep(let rep):
              report(.rep(t: t, exercise: definition.name, rep: rep, backfilled: false))
            case .cue(let message, let at):
              report(.cue(t: at, exercise: definition.name, message: message))
            }
          }
        }
        try output.flush()
      }
    }
    let seconds = last - (first ?? last)
    if json {
      output.writeLine(
        SpotterEvent.summary(
          t: last, exercises: [(definition.name, counter.count, seconds)],
          extra: ["bad_lines": Double(badLines)]
        ).jsonLine)
    } else {
      output.writeLine(
        String(format: "%@: %d reps in %.1f s", definition.name, counter.count, seconds)
          + (badLines > 0 ? " (\(badLines) bad lines skipped)" : ""))
    }
    try output.flush()
    return 0
  }
}
