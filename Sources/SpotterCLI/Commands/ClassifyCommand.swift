import Foundation
import Poses
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
      .flag("json", "Print NDJSON events (DESIGN §10) instead of a timeline."),
      RuntimeOptions.predictions,
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30"),
    ],
    discussion: "Events are printed as they happen, so a live pipe shows them at once.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    let source = try PoseFiles.open(
      arguments.positional(0)!,
      options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let session = runtime.makeSession()
    let output = TextOutput.standardOutput()
    let json = arguments.flag("json")
    let timeline = TimelinePrinter(output: output)
    let emit: (SpotterEvent) -> Void = { event in
      if json { output.writeLine(event.jsonLine) } else { timeline.print(event) }
    }
    try session.run(source, emit: emit) { try output.flush() }
    try output.flush()
    return 0
  }
}

/// The readable timeline: exercises as they start and end, reps and cues as they happen, a
/// summary table at the end.
final class TimelinePrinter {
  let output: TextOutput

  init(output: TextOutput) { self.output = output }

  func print(_ event: SpotterEvent) {
    switch event {
    case .exerciseStarted(let t, let exercise, let confidence):
      output.writeLine(
        String(format: "%7.1f s  %@ started (%.0f%% sure)", t, exercise, confidence * 100))
    case .rep(let t, _, let rep, let backfilled):
      output.writeLine(
        String(
          format: "%7.1f s    rep %d  %.1f s, range %.2f", t, rep.count, rep.duration,
          rep.rangeOfMotion) + (backfilled ? "  (counted on recognition)" : ""))
    case .cue(let t, _, let message):
      output.writeLine(String(format: "%7.1f s    cue: %@", t, message))
    case .exerciseEnded(let t, let exercise, let reps):
      output.writeLine(String(format: "%7.1f s  %@ ended: %d reps", t, exercise, reps))
    case .presence(let t, let present):
      output.writeLine(
        String(format: "%7.1f s  %@", t, present ? "person in view" : "nobody in view"))
    case .error(_, let line, let message):
      output.writeLine("  bad line \(line.map(String.init) ?? "?"): \(message)")
    case .summary(let t, let exercises, _):
      output.writeLine("")
      output.writeLine(String(format: "Summary (%.1f s):", t))
      if exercises.isEmpty { output.writeLine("  no exercise recognised") }
      for entry in exercises {
        output.writeLine(
          "  " + entry.name.padding(toLength: 16, withPad: " ", startingAt: 0)
            + String(format: "%4d reps  %6.1f s", entry.reps, entry.activeSeconds))
      }
    case .prediction: break
    }
  }
}
