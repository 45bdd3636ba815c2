import ArgumentParsing
import Foundation
import Poses
import Reporting
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
      ReportCommand.option,
    ],
    discussion: "Events are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    var runtime = try RuntimeOptions.runtime(arguments)
    let path = arguments.positional(0)!
    var source = try PoseFiles.open(
      path, options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let reportFile = arguments.values["report"]
    // The page's classifier band needs every prediction; they are printed only if asked for.
    let printsPredictions = runtime.options.reportPredictions
    var recorder: ReportRecorder?
    if reportFile != nil {
      runtime = runtime.reportingPredictions
      recorder = ReportRecorder(source: source.name, date: Date(), runtime: runtime)
      source = RecordedSource(source, recorder: recorder!)
    }
    let session = runtime.makeSession()
    if let recorder { ReportCommand.listen(to: session, recorder: recorder) }
    let output = TextOutput.standardOutput()
    let json = arguments.flag("json")
    let timeline = EventPrinter(output: output)
    let emit: (SpotterEvent) -> Void = { event in
      recorder?.take(event)
      if case .prediction = event, !printsPredictions { return }
      if json { output.writeLine(event.jsonLine) } else { timeline.print(event) }
    }
    try session.run(source, emit: emit) { try output.flush() }
    if let recorder, let reportFile {
      let written = try ReportCommand.write(recorder.report(), to: reportFile, json: false)
      if !json { output.writeLine("Report: \(written.joined(separator: ", "))") }
    }
    try output.flush()
    return 0
  }
}
