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
      RuntimeOptions.goal,
      .flag(
        "json", "Print NDJSON events (rep, cue, goal_reached, error, summary) instead of text."),
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
      .value(
        "people", "N", "Count up to N people apart (events and totals carry person).",
        default: "1"),
      ReportCommand.option,
    ],
    discussion: """
      Reps are printed as they happen, so a live pipe shows them at once. The stream is one set,
      from its first frame: a --goal (20 reps, 60s, or squat:20 for the exercise counted) ends it,
      with a goal_reached event, and what comes after is not counted.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let definition = try definition(
      named: try arguments.required("exercise"), in: try ExerciseCatalogueOption.load(arguments),
      command: command)
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let people = try arguments.int("people", range: 1...64)!
    let goals = try RuntimeOptions.goals(arguments)
    if let other = goals.first(where: { !$0.applies(to: definition.name) }) {
      throw CLIError.usage(
        "--goal \(other) is for \(other.exercise!); this counts \(definition.name)",
        command: command)
    }
    let reportFile = arguments.values["report"]
    if people > 1 && reportFile != nil {
      throw CLIError.usage("--report is for one person", command: command)
    }
    if let reportFile { try ReportCommand.checkWritable(reportFile) }
    try countAndPrint(
      source, definition: definition, people: people, goals: goals,
      json: arguments.flag("json"), reportFile: reportFile, output: TextOutput.standardOutput())
    return 0
  }

  /// `source` counted as `count` runs it: reps and cues printed as they come (NDJSON with
  /// `json`, else text and a total a person), and with `reportFile` the page written at the end,
  /// once `finishReport` has added to it what the caller has (the video's frames, from the
  /// report and its recorder's poses).
  static func countAndPrint(
    _ source: any PoseSource, definition: ExerciseDefinition, people: Int = 1,
    goals: [Goal] = [], json: Bool, reportFile: String?, output: TextOutput,
    finishReport: (SessionReport, ReportRecorder) throws -> SessionReport = { report, _ in report }
  ) throws {
    let printer = EventPrinter(output: output, definition: { _ in definition })
    func report(_ event: SpotterEvent, person: Int?) {
      if json {
        output.writeLine(event.jsonLine(person: person))
      } else if case .error(_, let line, let message) = event {
        Terminal.error("warning: line \(line.map(String.init) ?? "?"): \(message)")
      } else {
        printer.print(event, person: person)
      }
    }
    let recorder = reportFile.map { _ in ReportRecorder(for: definition, source: source.name) }
    let counted = try count(
      source, definition: definition, people: people, goals: goals, recorder: recorder,
      emit: report
    ) {
      try output.flush()
    }
    for (person, summary) in counted.summaries {
      if json {
        output.writeLine(summary.jsonLine(person: person))
      } else if case .summary(_, let totals, _) = summary, let total = totals.first {
        output.writeLine(
          (person.map { "[person \($0)] " } ?? "")
            + String(format: "%@: %d reps in %.1f s", total.name, total.reps, total.activeSeconds)
            + (total.goalsReached > 0 ? ", goal reached" : "")
            + (counted.badLines > 0 ? " (\(counted.badLines) bad lines skipped)" : ""))
      }
    }
    if let recorder, let reportFile {
      let written = try ReportCommand.write(
        try finishReport(recorder.report(), recorder), to: reportFile, json: false)
      if !json { output.writeLine("Report: \(written.joined(separator: ", "))") }
    }
    try output.flush()
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

  /// What counting a stream gave: a `summary` event for each person (person nil when the
  /// stream is counted as one), and the bad lines skipped.
  struct Counted {
    var summaries: [(person: Int?, summary: SpotterEvent)]
    var badLines: Int
  }

  /// One person's count: their engine and frame pipeline, and where a goal ended their set.
  private final class PersonCount {
    let id: Int
    let counter: RepCounter
    var pipeline = FramePipeline()
    /// When a goal was reached (nil while the set goes on): later ticks are not counted.
    var goalReached: Double?
    /// The reps' ranges of the definition's `range_joint`, for the summary.
    var ranges: AngleRanges?

    init(id: Int, counter: RepCounter) {
      self.id = id
      self.counter = counter
      ranges = counter.definition.rangeJoint.map {
        AngleRanges(label: counter.definition.label, joint: $0)
      }
    }

    /// Reports the counter's event, after taking a rep's angles for the summary.
    func take(_ event: RepEvent, exercise: String, report: (SpotterEvent) -> Void) {
      if case .rep(let rep) = event, let angles = rep.angles { ranges?.add(angles) }
      SpotterEvent.events(of: event, exercise: exercise, backfilled: false, emit: report)
    }
  }

  /// Runs `source` through one rep engine a person, each event to `emit` with its person
  /// (`afterFrame` after each frame's). With `people` 1, everyone in view is one stream (the
  /// most prominent person followed), as the runtime does. The stream is one set from its
  /// first frame; the first of `goals` reached (reps, or seconds since that frame) ends it
  /// with a `goal_reached` event, as a goal ends a set in a session, and later frames are not
  /// counted. A `recorder` (one person only) also hears the ticks, the engine's samples and
  /// the events, with the stream as one set from the first tick to the last counted.
  static func count(
    _ source: any PoseSource, definition: ExerciseDefinition, people: Int = 1,
    goals: [Goal] = [], recorder: ReportRecorder?,
    emit: (SpotterEvent, Int?) -> Void = { _, _ in }, afterFrame: () throws -> Void = {}
  ) throws -> Counted {
    precondition(recorder == nil || people == 1, "a report is of one person")
    let name = definition.name
    var tracker = PeopleTracker(capacity: people)
    var counters: [PersonCount] = []
    var frame = PeopleFrame()
    var single = PeopleFrame()
    var (first, last): (Double?, Double) = (nil, 0)
    var lastTick: Double?
    var badLines = 0
    func report(_ event: SpotterEvent, person: Int?) {
      recorder?.take(event)
      emit(event, person)
    }
    /// Ends the person's set at the first goal reached.
    func checkGoal(_ entry: PersonCount, at t: Double) {
      let seconds = t - (first ?? t)
      guard
        let goal = goals.first(where: { $0.isReached(reps: entry.counter.count, seconds: seconds) })
      else { return }
      entry.goalReached = t
      report(
        .goalReached(t: t, exercise: name, goal: goal.description),
        person: people > 1 ? entry.id : nil)
    }
    func push(_ id: Int, _ frame: PeopleFrame) {
      if !counters.contains(where: { $0.id == id }) {
        let counter = RepCounter(definition)
        if let recorder { counter.engine.onSample = { recorder.take($0, exercise: name) } }
        counters.append(PersonCount(id: id, counter: counter))
      }
      let entry = counters.first { $0.id == id }!
      let person = people > 1 ? id : nil
      entry.pipeline.push(frame) { pose, t in
        guard entry.goalReached == nil else { return }
        if let recorder {
          if lastTick == nil {
            recorder.take(.exerciseStarted(t: t, exercise: name, confidence: 1))
          }
          recorder.take(pose, t: t)
        }
        lastTick = t
        entry.counter.process(pose, t: t) { event in
          entry.take(event, exercise: name) { report($0, person: person) }
        }
        checkGoal(entry, at: t)
      }
      entry.counter.positionsAreLost = entry.pipeline.correctsBoxedFrames
    }
    loop: while true {
      switch try source.next(into: &frame) {
      case .end: break loop
      case .skipped(let error):
        badLines += 1
        report(.error(t: nil, line: error.line, message: error.description), person: nil)
      case .frame:
        first = first ?? frame.t
        last = frame.t
        if people == 1 {
          push(1, frame)
        } else {
          var seen: [Int] = []
          tracker.update(
            frame.people, t: frame.t,
            assign: { id, pose in
              seen.append(id)
              single.t = frame.t
              single.box = frame.box
              single.people = [pose]
              push(id, single)
            }, ended: { _ in })
          for entry in counters where !seen.contains(entry.id) {
            single.t = frame.t
            single.box = frame.box
            single.people = []
            push(entry.id, single)
          }
        }
        try afterFrame()
      }
    }
    // The stream ends the set of those whose goal did not: a rep on its way back up, or cut
    // short as deep as the person's reps, counts.
    for entry in counters where entry.goalReached == nil {
      entry.counter.finish(at: last) { event in
        entry.take(event, exercise: name) { report($0, person: people > 1 ? entry.id : nil) }
      }
      checkGoal(entry, at: last)  // the last rep may have reached it
    }
    if counters.isEmpty && people == 1 {
      counters.append(PersonCount(id: 1, counter: RepCounter(definition)))
    }
    let summaries = counters.map { entry in
      let end = entry.goalReached ?? last
      var total = ExerciseTotal(
        name: name, reps: entry.counter.count, activeSeconds: end - (first ?? end),
        goalsReached: entry.goalReached == nil ? 0 : 1)
      total.angles = entry.ranges?.summary
      return (
        person: people > 1 ? entry.id : nil,
        summary: SpotterEvent.summary(
          t: last, exercises: [total], counters: StreamCounters(badLines: badLines))
      )
    }
    if let recorder, let lastTick, let summary = summaries.first?.summary {
      recorder.take(.exerciseEnded(t: lastTick, exercise: name, reps: counters[0].counter.count))
      recorder.take(summary)
    }
    return Counted(summaries: summaries, badLines: badLines)
  }
}
