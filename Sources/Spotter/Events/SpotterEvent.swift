import Foundation
import RepCounting

/// What Spotter reports about a stream (README, "Events"), one JSON object per line. Field names
/// are stable: other programs parse them.
public enum SpotterEvent: Sendable, Equatable {
  /// The classifier's view of the last window.
  case prediction(
    t: Double, label: String, confidence: Double, lowConfidence: Bool,
    probabilities: [(String, Double)])
  /// Whether enough of the window shows a person to classify it.
  case presence(t: Double, present: Bool)
  case exerciseStarted(t: Double, exercise: String, confidence: Double)
  /// A counted rep; `backfilled` when it was counted from history when the exercise was
  /// recognised, after it happened.
  case rep(t: Double, exercise: String, rep: Rep, backfilled: Bool)
  /// A movement the engine saw and did not count, and why.
  case repRejected(t: Double, exercise: String, rejection: Rejection)
  case cue(t: Double, exercise: String, message: String)
  /// A set reached its goal (and ends there).
  case goalReached(t: Double, exercise: String, goal: String)
  case exerciseEnded(t: Double, exercise: String, reps: Int)
  /// Per exercise: reps and seconds active; and what the stream skipped or lost.
  case summary(t: Double, exercises: [ExerciseTotal], counters: StreamCounters)
  /// A bad input line, reported and skipped.
  case error(t: Double?, line: Int?, message: String)

  /// The event's stream time; a bad line may have none.
  public var t: Double? {
    switch self {
    case .prediction(let t, _, _, _, _), .presence(let t, _), .exerciseStarted(let t, _, _),
      .rep(let t, _, _, _), .repRejected(let t, _, _), .cue(let t, _, _),
      .goalReached(let t, _, _), .exerciseEnded(let t, _, _), .summary(let t, _, _):
      t
    case .error(let t, _, _): t
    }
  }

  /// The events a rep engine's event makes for `exercise`: a rep (then its form cue, if it has
  /// one), or a cue.
  public static func events(
    of event: RepEvent, exercise: String, backfilled: Bool, emit: (SpotterEvent) -> Void
  ) {
    switch event {
    case .rep(let rep):
      emit(.rep(t: rep.end, exercise: exercise, rep: rep, backfilled: backfilled))
      if let cue = rep.cue { emit(.cue(t: rep.end, exercise: exercise, message: cue)) }
    case .rejected(let rejection):
      emit(.repRejected(t: rejection.end, exercise: exercise, rejection: rejection))
      if let cue = rejection.cue { emit(.cue(t: rejection.end, exercise: exercise, message: cue)) }
    case .cue(let message, let t):
      emit(.cue(t: t, exercise: exercise, message: message))
    }
  }

  public var type: String {
    switch self {
    case .prediction: "prediction"
    case .presence: "presence"
    case .exerciseStarted: "exercise_started"
    case .rep: "rep"
    case .repRejected: "rep_rejected"
    case .cue: "cue"
    case .goalReached: "goal_reached"
    case .exerciseEnded: "exercise_ended"
    case .summary: "summary"
    case .error: "error"
    }
  }

  /// The event as one line of JSON (no newline).
  public var jsonLine: String { jsonLine(person: nil) }

  /// The event as one line of JSON, saying whose it is (`"person":2` after its type) in a
  /// stream with several people.
  public func jsonLine(person: Int?) -> String {
    var fields: [String] = []
    func add(_ key: String, _ value: String) { fields.append("\"\(key)\":\(value)") }
    let number = JSONText.number
    let time = JSONText.time
    switch self {
    case .prediction(let t, let label, let confidence, let low, let probabilities):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("label", JSONText.quote(label))
      add("confidence", number(confidence))
      if low { add("low_confidence", "true") }
      if !probabilities.isEmpty {
        add(
          "probabilities",
          "{"
            + probabilities.map { "\(JSONText.quote($0.0)):\(number($0.1))" }.joined(separator: ",")
            + "}")
      }
    case .presence(let t, let present):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("present", present ? "true" : "false")
    case .exerciseStarted(let t, let exercise, let confidence):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercise", JSONText.quote(exercise))
      add("confidence", number(confidence))
    case .rep(let t, let exercise, let rep, let backfilled):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercise", JSONText.quote(exercise))
      add("count", String(rep.count))
      add("duration", number(rep.duration))
      add("range_of_motion", number(rep.rangeOfMotion))
      add("time_down", number(rep.timeDown))
      add("time_up", number(rep.timeUp))
      add("backfilled", backfilled ? "true" : "false")
      add("partial", rep.partial ? "true" : "false")
      if let side = rep.side { add("side", JSONText.quote(side)) }
      if let angles = rep.angles { add("angles", JSONText.angles(angles)) }
    case .repRejected(let t, let exercise, let rejection):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercise", JSONText.quote(exercise))
      add("reason", JSONText.quote(rejection.reason.rawValue))
      if let detail = rejection.detail { add("detail", JSONText.quote(detail)) }
      add("start", time(rejection.start))
      add("range_of_motion", number(rejection.rangeOfMotion))
    case .cue(let t, let exercise, let message):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercise", JSONText.quote(exercise))
      add("message", JSONText.quote(message))
    case .goalReached(let t, let exercise, let goal):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercise", JSONText.quote(exercise))
      add("goal", JSONText.quote(goal))
    case .exerciseEnded(let t, let exercise, let reps):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercise", JSONText.quote(exercise))
      add("reps", String(reps))
    case .summary(let t, let exercises, let counters):
      add("t", time(t))
      add("type", JSONText.quote(type))
      add("exercises", JSONText.exercises(exercises))
      add("bad_lines", String(counters.badLines))
      if let dropped = counters.droppedEvents { add("dropped_events", String(dropped)) }
      if let dropped = counters.droppedFrames { add("dropped_frames", String(dropped)) }
    case .error(let t, let line, let message):
      if let t { add("t", time(t)) }
      add("type", JSONText.quote(type))
      if let line { add("line", String(line)) }
      add("message", JSONText.quote(message))
    }
    if let person, let type = fields.firstIndex(where: { $0.hasPrefix("\"type\"") }) {
      fields.insert("\"person\":\(person)", at: type + 1)
    }
    return "{" + fields.joined(separator: ",") + "}"
  }

  public static func == (lhs: SpotterEvent, rhs: SpotterEvent) -> Bool {
    lhs.jsonLine == rhs.jsonLine
  }
}
