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
    var bytes: [UInt8] = []
    appendJSON(person: person, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the event's line of JSON (no newline) to `bytes`: what `jsonLine` is, without
  /// making a string (the daemon writes events straight into a connection's output).
  public func appendJSON(person: Int? = nil, to bytes: inout [UInt8]) {
    func field<Value>(
      _ key: StaticString, _ value: Value, _ write: (Value, inout [UInt8]) -> Void
    ) {
      JSONText.appendKey(key, to: &bytes)
      write(value, &bytes)
    }
    func string(_ key: StaticString, _ value: String) { field(key, value, JSONText.appendQuoted) }
    func number(_ key: StaticString, _ value: Double) { field(key, value, JSONText.appendNumber) }
    func time(_ key: StaticString, _ value: Double) { field(key, value, JSONText.appendTime) }
    func integer(_ key: StaticString, _ value: Int) {
      field(key, value, DecimalText.appendInteger)
    }
    func bool(_ key: StaticString, _ value: Bool) {
      field(key, value ? "true" : "false", JSONText.appendRaw)
    }
    bytes.append(UInt8(ascii: "{"))
    if let t { time("t", t) }
    string("type", type)
    if let person { integer("person", person) }
    switch self {
    case .prediction(_, let label, let confidence, let low, let probabilities):
      string("label", label)
      number("confidence", confidence)
      if low { bool("low_confidence", true) }
      if !probabilities.isEmpty {
        JSONText.appendKey("probabilities", to: &bytes)
        bytes.append(UInt8(ascii: "{"))
        for (index, (label, probability)) in probabilities.enumerated() {
          if index > 0 { bytes.append(UInt8(ascii: ",")) }
          JSONText.appendQuoted(label, to: &bytes)
          bytes.append(UInt8(ascii: ":"))
          JSONText.appendNumber(probability, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
      }
    case .presence(_, let present): bool("present", present)
    case .exerciseStarted(_, let exercise, let confidence):
      string("exercise", exercise)
      number("confidence", confidence)
    case .rep(_, let exercise, let rep, let backfilled):
      string("exercise", exercise)
      integer("count", rep.count)
      number("duration", rep.duration)
      number("range_of_motion", rep.rangeOfMotion)
      number("time_down", rep.timeDown)
      number("time_up", rep.timeUp)
      bool("backfilled", backfilled)
      bool("partial", rep.partial)
      if let side = rep.side { string("side", side) }
      if let angles = rep.angles {
        JSONText.appendKey("angles", to: &bytes)
        JSONText.appendAngles(angles, to: &bytes)
      }
    case .repRejected(_, let exercise, let rejection):
      string("exercise", exercise)
      string("reason", rejection.reason.rawValue)
      if let detail = rejection.detail { string("detail", detail) }
      time("start", rejection.start)
      number("range_of_motion", rejection.rangeOfMotion)
    case .cue(_, let exercise, let message):
      string("exercise", exercise)
      string("message", message)
    case .goalReached(_, let exercise, let goal):
      string("exercise", exercise)
      string("goal", goal)
    case .exerciseEnded(_, let exercise, let reps):
      string("exercise", exercise)
      integer("reps", reps)
    case .summary(_, let exercises, let counters):
      JSONText.appendKey("exercises", to: &bytes)
      JSONText.appendExercises(exercises, to: &bytes)
      integer("bad_lines", counters.badLines)
      if let dropped = counters.droppedEvents { integer("dropped_events", dropped) }
      if let dropped = counters.droppedFrames { integer("dropped_frames", dropped) }
    case .error(_, let line, let message):
      if let line { integer("line", line) }
      string("message", message)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  public static func == (lhs: SpotterEvent, rhs: SpotterEvent) -> Bool {
    lhs.jsonLine == rhs.jsonLine
  }
}
