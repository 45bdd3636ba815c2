import ArgumentParsing
import Foundation
import Poses
import RepCounting
import Reporting
import Spotter

/// `spotter count --exercise NAME FILE|-`: one rep engine, no classifier.
enum CountCommand {
  static let command = Command(
    name: "count",
    summary: "Count reps of one named exercise in a pose stream (no classifier).",
    arguments: [Argument(name: "FILE", help: "A pose file, CSV, OpenPose folder, or - for stdin.")],
    options: [
      .value("exercise", "NAME", "The exercise definition to count (see 'spotter exercises').")
    ] + ExerciseCatalogueOption.options + [
      .flag("json", "Print NDJSON events (rep, cue, error, summary) instead of text."),
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
      ReportCommand.option,
    ],
    discussion: "Reps are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let definition = try definition(
      named: try arguments.required("exercise"), in: try ExerciseCatalogueOption.load(arguments),
      command: command)
    let path = arguments.positional(0)!
    let source = try PoseFiles.open(
      path, options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let json = arguments.flag("json")
    let output = TextOutput.standardOutput()
    let printer = EventPrinter(output: output)
    func report(_ event: SpotterEvent) {
      if json {
        output.writeLine(event.jsonLine)
      } else if case .error(_, let line, let message) = event {
        Terminal.error("warning: line \(line.map(String.init) ?? "?"): \(message)")
      } else {
        printer.print(event)
      }
    }
    let recorder = arguments.values["report"].map { _ in
      ReportRecorder(for: definition, source: source.name)
    }
    let counted = try count(source, definition: definition, recorder: recorder, emit: report) {
      try output.flush()
    }
    if json {
      output.writeLine(counted.summary.jsonLine)
    } else {
      let total = counted.total
      output.writeLine(
        String(format: "%@: %d reps in %.1f s", total.name, total.reps, total.activeSeconds)
          + (counted.badLines > 0 ? " (\(counted.badLines) bad lines skipped)" : ""))
    }
    if let recorder, let file = arguments.values["report"] {
      let written = try ReportCommand.write(recorder.report(), to: file, json: false)
      if !json { output.writeLine("Report: \(written.joined(separator: ", "))") }
    }
    try output.flush()
    return 0
  }

  /// The definition named `name`: a usage error listing the names when there is none.
  static func definition(named name: String, in catalogue: ExerciseCatalogue, command: Command)
    throws -> ExerciseDefinition
  {
    guard let definition = catalogue.definition(named: name) else {
      throw CLIError.usage(
        "unknown exercise '\(name)'; expected one of "
          + "\(catalogue.definitions.map(\.name).joined(separator: ", "))",
        command: command)
    }
    return definition
  }

  /// What counting a stream gave: the exercise's total, its `summary` event, bad lines.
  struct Counted {
    var total: ExerciseTotal
    var summary: SpotterEvent
    var badLines: Int
  }

  /// Runs `source` through one rep engine, each event to `emit` (`afterFrame` after each
  /// frame's). With a `recorder`, it also hears the ticks, the engine's samples and the
  /// events, with the stream as one set from the first tick to the last.
  static func count(
    _ source: any PoseSource, definition: ExerciseDefinition, recorder: ReportRecorder?,
    emit: (SpotterEvent) -> Void = { _ in }, afterFrame: () throws -> Void = {}
  ) throws -> Counted {
    let counter = RepCounter(definition)
    let name = definition.name
    func report(_ event: SpotterEvent) {
      recorder?.take(event)
      emit(event)
    }
    if let recorder {
      counter.engine.onSample = { recorder.take($0, exercise: name) }
    }
    var pipeline = FramePipeline()
    var frame = PeopleFrame()
    var (first, last): (Double?, Double) = (nil, 0)
    var lastTick: Double?
    var badLines = 0
    loop: while true {
      switch try source.next(into: &frame) {
      case .end: break loop
      case .skipped(let error):
        badLines += 1
        report(.error(t: nil, line: error.line, message: error.description))
      case .frame:
        first = first ?? frame.t
        last = frame.t
        pipeline.push(frame) { pose, t in
          if let recorder {
            if lastTick == nil {
              recorder.take(.exerciseStarted(t: t, exercise: name, confidence: 1))
            }
            recorder.take(pose, t: t)
          }
          lastTick = t
          counter.process(pose, t: t) { event in
            SpotterEvent.events(of: event, exercise: name, backfilled: false, emit: report)
          }
        }
        counter.positionsAreLost = pipeline.correctsBoxedFrames
        try afterFrame()
      }
    }
    let total = ExerciseTotal(
      name: definition.name, reps: counter.count, activeSeconds: last - (first ?? last))
    let summary = SpotterEvent.summary(
      t: last, exercises: [total], counters: StreamCounters(badLines: badLines))
    if let recorder, let lastTick {
      recorder.take(.exerciseEnded(t: lastTick, exercise: name, reps: counter.count))
      recorder.take(summary)
    }
    return Counted(total: total, summary: summary, badLines: badLines)
  }
}
