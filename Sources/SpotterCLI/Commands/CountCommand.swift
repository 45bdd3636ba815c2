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
        "json",
        "Print NDJSON events (exercise_started, rep, rep_rejected, cue, goal_reached, "
          + "exercise_ended, error, summary) instead of text."),
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
    let people = try arguments.int("people", range: PeopleLimit.range)!
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

  /// `source` counted as `count` runs it, through a runtime session for the chosen exercise
  /// (one a person with `people` over 1): reps and cues printed as they come (NDJSON with
  /// `json`, every event; else text, and a total a person from their summary), and with
  /// `reportFile` the page written at the end, once `finishReport` has added to it what the
  /// caller has (the video's frames, from the report and its recorder's poses). `taps` hear
  /// the events and add to their lines and summary.
  static func countAndPrint(
    _ source: any PoseSource, definition: ExerciseDefinition, people: Int = 1,
    goals: [Goal] = [], json: Bool, reportFile: String?, output: TextOutput,
    taps: EventTaps = EventTaps(),
    finishReport: (SessionReport, ReportRecorder) throws -> SessionReport = { report, _ in report }
  ) throws {
    let printer = EventPrinter(output: output, definition: { _ in definition })
    func report(_ event: SpotterEvent, person: Int?) {
      taps.observe(person, event)
      if json { return output.writeLine(taps.jsonLine(event, person: person)) }
      switch event {
      case .error(_, let line, let message):
        Terminal.error("warning: line \(line.map(String.init) ?? "?"): \(message)")
      case .summary(_, let totals, let counters):
        guard let total = totals.first else { return }
        output.writeLine(
          (person.map { "[person \($0)] " } ?? "")
            + String(format: "%@: %d reps in %.1f s", total.name, total.reps, total.activeSeconds)
            + (total.goalsReached > 0 ? ", goal reached" : "")
            + (counters.badLines > 0 ? " (\(counters.badLines) bad lines skipped)" : ""))
      case .exerciseStarted, .exerciseEnded: break  // the stream is the set
      default: printer.print(event, person: person)
      }
    }
    let recorder = reportFile.map { _ in ReportRecorder(for: definition, source: source.name) }
    try count(
      source, definition: definition, people: people, goals: goals, recorder: recorder,
      taps: taps
    ) {
      event, person in
      report(event, person: person)
    } afterFrame: {
      try output.flush()
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

  /// Runs `source` through a session of the runtime for `definition` (one a person with
  /// `people` over 1, each event with their id; with 1, everyone in view is one stream, the
  /// most prominent person followed): the stream is one set from its first frame, and the
  /// first of `goals` reached ends it. A `recorder` (one person only) hears the ticks, the
  /// engine's samples and the events; `taps` give the summary its counters. Returns the bad
  /// lines skipped.
  @discardableResult
  static func count(
    _ source: any PoseSource, definition: ExerciseDefinition, people: Int = 1,
    goals: [Goal] = [], recorder: ReportRecorder?, taps: EventTaps = EventTaps(),
    emit: (SpotterEvent, Int?) -> Void = { _, _ in }, afterFrame: () throws -> Void = {}
  ) throws -> Int {
    precondition(recorder == nil || people == 1, "a report is of one person")
    var options = SessionOptions()
    options.goals = goals
    let runtime = Runtime(
      classifier: nil, catalogue: ExerciseCatalogue(definitions: [definition]), options: options)
    let session = runtime.makeSession(counting: definition, people: people)
    if let recorder { ReportCommand.listen(to: session, recorder: recorder) }
    try taps.run(
      source, through: session,
      emit: { person, event in
        recorder?.take(event)
        emit(event, person)
      }, afterFrame: afterFrame)
    return session.badLines
  }
}
