import Foundation
import MotionSynth
import Poses
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
      CameraOption.option(default: "front"),
      .value(
        "history", "FILE", "Workout history to append the summary to.",
        default: "$XDG_DATA_HOME/spotter/history.jsonl"),
      .flag("no-history", "Do not write the workout history."),
    ],
    discussion: """
      The workout: squats, a rest, jumping jacks, walking about, push-ups, then a switch to
      bicep curls, done by a synthetic person seen by a virtual camera with detector noise.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let runtime = try RuntimeOptions.runtime(arguments)
    let seed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    var options = RecordingOptions()
    options.camera = try CameraOption.parse(arguments, command: command)
    let plan = WorkoutPlan.demo
    let recording = Recorder.record(plan, options: options, seed: seed)
    let session = runtime.makeSession()
    let live = Terminal.isTerminal(1)
    let realtime = arguments.flag("realtime")
    print(
      "Spotter demo: \(plan.items.count) activities, \(String(format: "%.0f", recording.frames.last?.t ?? 0)) s of poses from a synthetic person (seed \(seed), \(arguments.string("camera")!) camera)."
    )
    var lastCue = ""
    var status = ""
    let emit: (SpotterEvent) -> Void = { event in
      switch event {
      case .exerciseStarted(let t, let exercise, let confidence):
        if live { Swift.print("\r\u{1B}[K", terminator: "") }
        Swift.print(
          String(format: "%6.1f s  %@ started (%.0f%% sure)", t, exercise, confidence * 100))
      case .exerciseEnded(let t, let exercise, let reps):
        if live { Swift.print("\r\u{1B}[K", terminator: "") }
        Swift.print(String(format: "%6.1f s  %@ ended: %d reps", t, exercise, reps))
      case .rep(let t, let exercise, let rep, let backfilled):
        if !live {
          Swift.print(
            String(
              format: "%6.1f s    %@ rep %d%@", t, exercise, rep.count,
              backfilled ? " (counted on recognition)" : ""))
        }
      case .cue(_, _, let message): lastCue = message
      default: break
      }
    }
    var frame = PeopleFrame()
    let start = Date()
    for (index, sample) in recording.frames.enumerated() {
      if realtime {
        let wait = sample.t - Date().timeIntervalSince(start)
        if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
      }
      frame.t = sample.t
      frame.line = index + 1
      frame.people.removeAll(keepingCapacity: true)
      if sample.pose.hasPerson { frame.people.append(sample.pose) }
      session.push(frame, emit: emit)
      if live && (realtime || index % 15 == 0) {
        let exercise = session.currentExercise ?? "—"
        let line =
          String(format: "\r\u{1B}[K%6.1f s  %@  reps %d", sample.t, exercise, session.currentReps)
          + (lastCue.isEmpty ? "" : "  cue: \(lastCue)")
        if line != status {
          Swift.print(line, terminator: "")
          fflush(nil)
          status = line
        }
      }
    }
    if live { Swift.print("\r\u{1B}[K", terminator: "") }
    var summary: [(name: String, reps: Int, activeSeconds: Double)] = []
    session.finish { event in
      emit(event)
      if case .summary(_, let exercises, _) = event { summary = exercises }
    }
    Swift.print("")
    Swift.print("exercise        truth  counted")
    var right = 0
    let truth = recording.segments.filter { $0.label != "other" }
    for segment in truth {
      let counted = summary.first { $0.name == segment.label }?.reps ?? 0
      if counted == segment.reps { right += 1 }
      Swift.print(
        segment.label.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%5d  %7d", segment.reps ?? 0, counted)
          + (counted == segment.reps ? "" : "  ✗"))
    }
    for extra in summary where !truth.contains(where: { $0.label == extra.name }) {
      Swift.print(
        extra.name.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%5d  %7d  ✗ (not in the workout)", 0, extra.reps))
    }
    Swift.print("\(right) of \(truth.count) exercises counted exactly.")
    if !arguments.flag("no-history") {
      let path = arguments.values["history"] ?? WorkoutHistory.defaultPath
      try WorkoutHistory.append(
        WorkoutHistory.record(
          date: Date(), source: "spotter demo (seed \(seed))", summary: summary), to: path)
      Swift.print("Summary appended to \(path).")
    }
    return 0
  }
}
