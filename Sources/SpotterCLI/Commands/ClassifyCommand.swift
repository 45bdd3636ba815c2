import ArgumentParsing
import Foundation
import Poses
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
    ] + SpeakOptions.options,
    discussion: "Events are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let speaker = try SpeakOptions.speaker(arguments, command: command)
    let session = runtime.makeSession()
    let output = TextOutput.standardOutput()
    let json = arguments.flag("json")
    let timeline = EventPrinter(output: output)
    let emit: (SpotterEvent) -> Void = { event in
      if json { output.writeLine(event.jsonLine) } else { timeline.print(event) }
      speaker?.hear(event)
    }
    try session.run(
      speaker.map { SpeakOptions.FrameTimes(source, speaker: $0) } ?? source, emit: emit
    ) {
      try output.flush()
    }
    try output.flush()
    if let speaker { Terminal.error(try SpeakOptions.finish(speaker)) }
    return 0
  }
}
