import ArgumentParsing
import Foundation
import History
import MotionSynth
import Poses
import Reporting
import Speech
import Spotter

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter demo`: a synthetic workout through the whole runtime, with the truth beside it.
enum DemoCommand {
  static let command = Command(
    name: "demo",
    summary:
      "Run a synthetic workout through the runtime: live status, then counts against the truth.",
    options: RuntimeOptions.options + [
      .flag("realtime", "Play the workout at its own pace instead of as fast as possible."),
      .value("seed", "N", "Which synthetic person, camera and tempo.", default: "1"),
    ] + CameraOption.options(default: "front") + [
      .value(
        "history", "FILE|URL",
        "Workout history to store the session in (SQLite file or "
          + "postgresql:// URL).",
        default: HistoryLocation.standardDescription),
      .flag("no-history", "Do not write the workout history."),
      .value(
        "report", "FILE", "Where to write the workout's report page (see 'spotter report').",
        default: "$TMPDIR/spotter-demo.html"),
      .flag("no-report", "Do not write the report page."),
    ] + SpeakOptions.options,
    discussion: """
      The workout: squats, a rest, jumping jacks, walking about, push-ups, then a switch to
      bicep curls, done by a synthetic person seen by a virtual camera with detector noise.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    var runtime = try RuntimeOptions.runtime(arguments)
    let reports = !arguments.flag("no-report")
    if reports { runtime = runtime.reportingPredictions }
    let seed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    var options = RecordingOptions()
    options.camera = try CameraOption.parse(arguments, command: command)
    let speaker = try SpeakOptions.speaker(arguments, command: command)
    let recording = Recorder.record(.demo, options: options, seed: seed)
    let output = TextOutput.standardOutput()
    output.writeLine(
      "Spotter demo: \(WorkoutPlan.demo.items.count) activities, "
        + "\(String(format: "%.0f", recording.frames.last?.t ?? 0)) s of poses from a synthetic "
        + "person (seed \(seed), \(arguments.string("camera")!) camera)."
    )
    let session = runtime.makeSession()
    var history = SessionRecorder(source: "spotter demo (seed \(seed))")
    let recorder =
      reports
      ? ReportRecorder(source: "spotter demo (seed \(seed))", date: Date(), runtime: runtime) : nil
    if let recorder { ReportCommand.listen(to: session, recorder: recorder) }
    let summary = try play(
      recording, through: session, output: output, realtime: arguments.flag("realtime"),
      speaker: speaker, recorder: recorder, observe: { history.take($0) })
    if let speaker { output.writeLine(try SpeakOptions.finish(speaker)) }
    output.writeLine(scorecard(recording, summary))
    if !arguments.flag("no-history") {
      let store = try HistoryCommand.open(arguments.values["history"])
      let stored = try store.append(history.record)
      output.writeLine("Session stored in \(store.location) (\(stored.uid)).")
    }
    if let recorder {
      let path = URL(
        fileURLWithPath: arguments.values["report"] ?? NSTemporaryDirectory() + "spotter-demo.html"
      ).path
      let written = try ReportCommand.write(recorder.report(), to: path, json: false)
      output.writeLine("Report: \(written.joined(separator: ", ")); open it in a browser.")
    }
    try output.flush()
    return 0
  }

  /// Streams the recording through the session: the timeline as it happens, and on a terminal
  /// a status line (exercise, reps, last cue) that the timeline's lines clear. Returns the
  /// summary. A `recorder` hears every event, for the report; `observe`, every event.
  static func play(
    _ recording: Recording, through session: Session, output: TextOutput, realtime: Bool,
    speaker: (any CueSpeaker)? = nil, recorder: ReportRecorder? = nil,
    observe: (SpotterEvent) -> Void = { _ in }
  ) throws -> [ExerciseTotal] {
    let live = Terminal.isTerminal(1)
    let printer = EventPrinter(output: output, runtime: session.runtime)
    var status = StatusLine(output: output, live: live)
    printer.beforeLine = { status.clear() }
    var summary: [ExerciseTotal] = []
    let emit: (SpotterEvent) -> Void = { event in
      recorder?.take(event)
      speaker?.hear(event)
      observe(event)
      switch event {
      case .rep where live, .presence, .error: break  // the status line shows reps
      case .cue(_, _, let message): status.cue = message
      case .summary(_, let exercises, _): summary = exercises
      default: printer.print(event)
      }
    }
    var frame = PeopleFrame()
    frame.box = recording.header.space.frameBox
    let start = Date()
    for (index, sample) in recording.frames.enumerated() {
      if realtime {
        let wait = sample.t - Date().timeIntervalSince(start)
        if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
      }
      speaker?.advance(to: sample.t)
      frame.t = sample.t
      frame.line = index + 1
      frame.people.removeAll(keepingCapacity: true)
      if sample.pose.hasPerson { frame.people.append(sample.pose) }
      session.push(frame, emit: emit)
      if live && (realtime || index % 15 == 0) {
        status.show(t: sample.t, exercise: session.currentExercise, reps: session.currentReps)
        try output.flush()
      }
    }
    status.clear()
    session.finish(emit: emit)
    return summary
  }

  /// The demo's table: each set's true reps beside the reps counted, and exercises counted that
  /// the workout did not have.
  static func scorecard(_ recording: Recording, _ summary: [ExerciseTotal]) -> String {
    var lines = ["", "exercise        truth  counted"]
    var right = 0
    let truth = recording.segments.filter { $0.label != "other" }
    for segment in truth {
      let counted = summary.first { $0.name == segment.label }?.reps ?? 0
      if counted == segment.reps { right += 1 }
      lines.append(
        segment.label.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%5d  %7d", segment.reps ?? 0, counted)
          + (counted == segment.reps ? "" : "  ✗"))
    }
    for extra in summary where !truth.contains(where: { $0.label == extra.name }) {
      lines.append(
        extra.name.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%5d  %7d  ✗ (not in the workout)", 0, extra.reps))
    }
    lines.append("\(right) of \(truth.count) exercises counted exactly.")
    return lines.joined(separator: "\n")
  }
}

/// The demo's live status line on a terminal: redrawn in place, cleared before other output.
struct StatusLine {
  let output: TextOutput
  let live: Bool
  var cue = ""
  private var shown = ""

  init(output: TextOutput, live: Bool) {
    self.output = output
    self.live = live
  }

  mutating func show(t: Double, exercise: String?, reps: Int) {
    let line =
      String(format: "\r\u{1B}[K%6.1f s  %@  reps %d", t, exercise ?? "—", reps)
      + (cue.isEmpty ? "" : "  cue: \(cue)")
    guard line != shown else { return }
    output.write(line)
    shown = line
  }

  mutating func clear() {
    guard live, !shown.isEmpty else { return }
    output.write("\r\u{1B}[K")
    shown = ""
  }
}
