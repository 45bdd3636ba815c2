import Poses
import RepCounting
import Reporting
import Spotter

/// Events as a readable timeline, one line each: what `classify`, `count` and `demo` print
/// when not asked for `--json`.
///
/// ```
///    12.3 s  squat started (92% sure)
///    13.1 s    rep 1  1.2 s, range 0.45 body sizes
///    13.1 s    cue: Go deeper: hips down to knee height.
///    30.0 s  squat ended: 10 reps
/// ```
///
/// A rep's range is given in its units (`RangeOfMotionText`), from the definition that counts
/// the exercise: degrees for a push-up's elbow angle, body sizes for a squat's hip height.
final class EventPrinter {
  let output: TextOutput
  /// The definition each exercise is counted by, for the units of its ranges.
  let definition: (String) -> ExerciseDefinition?
  /// Called before each line (the demo clears its live status line).
  var beforeLine: () -> Void = {}

  init(output: TextOutput, definition: @escaping (String) -> ExerciseDefinition?) {
    self.output = output
    self.definition = definition
  }

  /// A printer for the runtime's sessions: each exercise's definition from its catalogue.
  convenience init(output: TextOutput, runtime: Runtime) {
    let catalogue = runtime.catalogue
    self.init(output: output, definition: { catalogue.definition(forLabel: $0) })
  }

  func print(_ event: SpotterEvent, person: Int? = nil) {
    guard let text = line(event) else { return }
    beforeLine()
    guard let person else { return output.writeLine(text) }
    // Each line of the person's event, marked as theirs.
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      output.writeLine(line.isEmpty ? "" : "[person \(person)] " + line)
    }
  }

  /// The timeline's line for an event (nil for those it does not show: predictions).
  func line(_ event: SpotterEvent) -> String? {
    switch event {
    case .exerciseStarted(let t, let exercise, let confidence):
      String(format: "%7.1f s  %@ started (%.0f%% sure)", t, exercise, confidence * 100)
    case .rep(let t, let exercise, let rep, let backfilled):
      String(format: "%7.1f s    rep %d  %.1f s, range ", t, rep.count, rep.duration)
        + range(rep.rangeOfMotion, of: exercise) + (rep.partial ? ", partial" : "")
        + (backfilled ? "  (counted on recognition)" : "")
    case .repRejected(let t, let exercise, let rejection):
      String(
        format: "%7.1f s    not counted: %@, range ", t,
        rejection.reason.rawValue.replacingOccurrences(of: "_", with: " "))
        + range(rejection.rangeOfMotion, of: exercise)
        + (rejection.detail.map { " (\($0))" } ?? "")
    case .cue(let t, _, let message):
      String(format: "%7.1f s    cue: %@", t, message)
    case .goalReached(let t, let exercise, let goal):
      String(format: "%7.1f s  %@: goal %@ reached", t, exercise, goal)
    case .exerciseEnded(let t, let exercise, let reps):
      String(format: "%7.1f s  %@ ended: %d reps", t, exercise, reps)
    case .presence(let t, let present):
      String(format: "%7.1f s  %@", t, present ? "person in view" : "nobody in view")
    case .error(_, let line, let message):
      "  bad line \(line.map(String.init) ?? "?"): \(message)"
    case .summary(let t, let exercises, _):
      Self.summary(t: t, exercises)
    case .prediction: nil
    }
  }

  /// A range of motion of `exercise`, with its units when its definition says them.
  private func range(_ value: Double, of exercise: String) -> String {
    let units = definition(exercise).flatMap(RangeOfMotionText.units(of:))
    return RangeOfMotionText.amount(value, units: units ?? "", named: true)
  }

  /// `Summary (…s):` and a row per exercise.
  static func summary(t: Double, _ exercises: [ExerciseTotal]) -> String {
    var lines = ["", String(format: "Summary (%.1f s):", t)]
    if exercises.isEmpty { lines.append("  no exercise recognised") }
    for entry in exercises {
      lines.append(
        "  " + entry.name.padding(toLength: 16, withPad: " ", startingAt: 0)
          + String(format: "%4d reps  %6.1f s", entry.reps, entry.activeSeconds)
          + (entry.goalsReached > 0 ? "  goal reached \(entry.goalsReached)×" : ""))
    }
    return lines.joined(separator: "\n")
  }
}
