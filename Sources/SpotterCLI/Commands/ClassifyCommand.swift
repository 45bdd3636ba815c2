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
      .value(
        "people", "N",
        "Follow up to N people, each with their own exercises and counts (events carry person).",
        default: "1"),
    ] + SpeakOptions.options,
    discussion: "Events are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let people = try arguments.int("people", range: 1...64)!
    if people > 1 && (arguments.flag("speak") || arguments.string("speak-to") != nil) {
      throw CLIError.usage("--speak and --speak-to are for one person", command: command)
    }
    let speaker = try SpeakOptions.speaker(arguments, command: command)
    let output = TextOutput.standardOutput()
    let json = arguments.flag("json")
    let timeline = EventPrinter(output: output)
    guard people > 1 else {
      let emit: (SpotterEvent) -> Void = { event in
        if json { output.writeLine(event.jsonLine) } else { timeline.print(event) }
        speaker?.hear(event)
      }
      try runtime.makeSession().run(
        speaker.map { SpeakOptions.FrameTimes(source, speaker: $0) } ?? source, emit: emit
      ) {
        try output.flush()
      }
      try output.flush()
      if let speaker { Terminal.error(try SpeakOptions.finish(speaker)) }
      return 0
    }
    let session = runtime.makePeopleSession(people: people)
    let emit: (Int, SpotterEvent) -> Void = { person, event in
      if json {
        output.writeLine(event.jsonLine(person: person))
      } else {
        timeline.print(event, person: person)
      }
    }
    var frame = PeopleFrame()
    loop: while true {
      switch try source.next(into: &frame) {
      case .end: break loop
      case .skipped(let error):
        let event = SpotterEvent.error(t: nil, line: error.line, message: error.description)
        if json { output.writeLine(event.jsonLine) } else { timeline.print(event) }
      case .frame:
        session.push(frame, emit: emit)
        try output.flush()
      }
    }
    session.finish(emit: emit)
    try output.flush()
    return 0
  }
}
