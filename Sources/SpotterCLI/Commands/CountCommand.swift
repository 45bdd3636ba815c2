import ArgumentParsing
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
      .value("exercise", "NAME", "The exercise definition to count (see 'spotter exercises').")
    ] + ExerciseCatalogueOption.options + [
      .flag("json", "Print NDJSON events (rep, cue, error, summary) instead of text."),
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
      .value(
        "people", "N", "Count up to N people apart (events and totals carry person).",
        default: "1"),
    ],
    discussion: "Reps are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let name = try arguments.required("exercise")
    let catalogue = try ExerciseCatalogueOption.load(arguments)
    guard let definition = catalogue.definition(named: name) else {
      throw CLIError.usage(
        "unknown exercise '\(name)'; expected one of "
          + "\(catalogue.definitions.map(\.name).joined(separator: ", "))",
        command: command)
    }
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let json = arguments.flag("json")
    let output = TextOutput.standardOutput()
    let printer = EventPrinter(output: output)
    func report(_ event: SpotterEvent) {
      if json {
        output.writeLine(event.jsonLine)
      } else if case .error(_, let line, let message) = event {
        Terminal.error("warning: line \(line.map(String.init) ?? "?"): \(message)")
      }
    }
    // One counter a person: with --people 1, everyone in view is one stream (the most
    // prominent person followed), as the runtime does.
    let people = try arguments.int("people", range: 1...64)!
    var tracker = PeopleTracker(capacity: people)
    var counters: [(id: Int, counter: RepCounter, pipeline: FramePipeline)] = []
    var frame = PeopleFrame()
    var single = PeopleFrame()
    var (first, last): (Double?, Double) = (nil, 0)
    var badLines = 0
    func push(_ id: Int, _ frame: PeopleFrame) {
      if !counters.contains(where: { $0.id == id }) {
        counters.append((id, RepCounter(definition), FramePipeline()))
      }
      let index = counters.firstIndex { $0.id == id }!
      let counter = counters[index].counter
      counters[index].pipeline.push(frame) { pose, t in
        counter.process(pose, t: t) { event in
          SpotterEvent.events(of: event, exercise: definition.name, backfilled: false) {
            report($0, person: people > 1 ? id : nil)
          }
        }
      }
      counter.positionsAreLost = counters[index].pipeline.correctsBoxedFrames
    }
    func report(_ event: SpotterEvent, person: Int?) {
      if json {
        output.writeLine(event.jsonLine(person: person))
      } else {
        printer.print(event, person: person)
      }
    }
    loop: while true {
      switch try source.next(into: &frame) {
      case .end: break loop
      case .skipped(let error):
        badLines += 1
        report(.error(t: nil, line: error.line, message: error.description))
      case .frame:
        first = first ?? frame.t
        last = frame.t
        guard people > 1 else {
          push(1, frame)
          try output.flush()
          continue
        }
        var seen: [Int] = []
        tracker.update(
          frame.people, t: frame.t,
          assign: { id, pose in
            seen.append(id)
            single.t = frame.t
            single.people = [pose]
            push(id, single)
          }, ended: { _ in })
        for entry in counters where !seen.contains(entry.id) {
          single.t = frame.t
          single.people = []
          push(entry.id, single)
        }
        try output.flush()
      }
    }
    for entry in counters {
      let total = ExerciseTotal(
        name: definition.name, reps: entry.counter.count, activeSeconds: last - (first ?? last))
      let person = people > 1 ? entry.id : nil
      if json {
        output.writeLine(
          SpotterEvent.summary(
            t: last, exercises: [total], counters: StreamCounters(badLines: badLines)
          ).jsonLine(person: person))
      } else {
        output.writeLine(
          (person.map { "[person \($0)] " } ?? "")
            + String(format: "%@: %d reps in %.1f s", total.name, total.reps, total.activeSeconds)
            + (badLines > 0 ? " (\(badLines) bad lines skipped)" : ""))
      }
    }
    try output.flush()
    return 0
  }
}
