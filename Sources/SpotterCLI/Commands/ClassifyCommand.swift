import ArgumentParsing
import Foundation
import Poses
import Reporting
import Speech
import Spotter

/// `spotter classify FILE|-`: which exercise, when, how many reps, with what cues.
enum ClassifyCommand {
  static let command = Command(
    name: "classify",
    summary: "Find the exercises in a pose stream, count their reps and give cues.",
    arguments: [
      Argument(name: "FILE", help: "A pose file, CSV, OpenPose folder, or - for stdin (read live).")
    ],
    options: RuntimeOptions.options + [
      .flag("json", "Print NDJSON events (README, 'Events') instead of a timeline."),
      RuntimeOptions.predictions,
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
      .value(
        "people", "N",
        "Follow up to N people, each with their own exercises and counts (events carry person).",
        default: "1"),
      ReportCommand.option,
    ] + SpeakOptions.options + ViewOption.options,
    discussion: """
      Events are printed as they happen, so a live pipe shows them at once; --view serves a page
      of the session that a person reads from across the room while it runs.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    let people = try arguments.int("people", range: PeopleLimit.range)!
    let reportFile = arguments.values["report"]
    if let reportFile { try ReportCommand.checkWritable(reportFile) }
    if people > 1
      && (arguments.flag("speak") || arguments.string("speak-to") != nil || reportFile != nil
        || arguments.string("view") != nil)
    {
      throw CLIError.usage(
        "--speak, --speak-to, --report and --view are for one person", command: command)
    }
    let speaker = try SpeakOptions.speaker(arguments, command: command)
    let output = TextOutput.standardOutput()
    let json = arguments.flag("json")
    // The page is up before the first line: a pipe may wait long for it.
    let path = arguments.positional(0)!
    let view = try ViewOption.start(
      arguments,
      source: path == "-" ? "standard input" : URL(fileURLWithPath: path).lastPathComponent,
      pictured: false, imageSize: nil)
    // Ctrl-C ends a piped stream shown on a page as its end would: the page says so.
    if view != nil && path == "-" { InterruptCleanup.endInputGently() }
    defer { InterruptCleanup.forgetGentleStop() }
    do {
      let source = try PoseFiles.open(
        path,
        options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
      try classify(
        view.map { ViewOption.showing(source, on: $0.board) } ?? source, runtime: runtime,
        people: people, json: json, reportFile: reportFile, speaker: speaker, output: output,
        taps: EventTaps(observe: { _, event in view?.board.take(event) }))
    } catch {
      ViewOption.finish(view, failure: error)
      throw error
    }
    ViewOption.finish(view)
    return 0
  }

  /// A stream through a session, as `classify` runs it: the events printed as they come (NDJSON
  /// with `json`, else the timeline; each with its person's id when `people` is over 1) and
  /// said by `speaker`; with `reportFile` (one person), the page written at the end, once
  /// `finishReport` has added to it what the caller has (the video's frames, from the report
  /// and its recorder's poses). `taps` hear the events and add to their lines and summary.
  static func classify(
    _ source: any PoseSource, runtime: Runtime, people: Int = 1, json: Bool, reportFile: String?,
    speaker: (any CueSpeaker)? = nil, output: TextOutput, taps: EventTaps = EventTaps(),
    finishReport: (SessionReport, ReportRecorder) throws -> SessionReport = { report, _ in report }
  ) throws {
    var runtime = runtime
    let timeline = EventPrinter(output: output, runtime: runtime)
    // The page's classifier band needs every prediction; they are printed only if asked for.
    let printsPredictions = runtime.options.reportPredictions
    var recorder: ReportRecorder?
    if reportFile != nil {
      runtime = runtime.reportingPredictions
      recorder = ReportRecorder(source: source.name, date: Date(), runtime: runtime)
    }
    let session = runtime.makeSession(people: people)
    if let recorder { ReportCommand.listen(to: session, recorder: recorder) }
    let emit: (Int?, SpotterEvent) -> Void = { person, event in
      recorder?.take(event)
      speaker?.hear(event)
      taps.observe(person, event)
      if case .prediction = event, !printsPredictions { return }
      if json {
        output.writeLine(taps.jsonLine(event, person: person))
      } else {
        timeline.print(event, person: person)
      }
    }
    try taps.run(
      speaker.map { SpeakOptions.SpeakerClockedSource(source, speaker: $0) } ?? source,
      through: session, emit: emit
    ) {
      try output.flush()
    }
    if let recorder, let reportFile {
      let report = try finishReport(recorder.report(), recorder)
      let written = try ReportCommand.write(report, to: reportFile, json: false)
      if !json { output.writeLine("Report: \(written.joined(separator: ", "))") }
    }
    try output.flush()
    if let speaker { Terminal.error(try SpeakOptions.finish(speaker)) }
  }
}
