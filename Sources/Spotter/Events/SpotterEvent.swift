import Foundation
import RepCounting

/// What Spotter reports about a stream (DESIGN §10), one JSON object per line. Field names are
/// stable: other programs parse them.
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
  case cue(t: Double, exercise: String, message: String)
  case exerciseEnded(t: Double, exercise: String, reps: Int)
  /// Per exercise: reps and seconds active.
  case summary(
    t: Double, exercises: [(name: String, reps: Int, activeSeconds: Double)],
    extra: [String: Double])
  /// A bad input line, reported and skipped.
  case error(t: Double?, line: Int?, message: String)

  public var type: String {
    switch self {
    case .prediction: "prediction"
    case .presence: "presence"
    case .exerciseStarted: "exercise_started"
    case .rep: "rep"
    case .cue: "cue"
    case .exerciseEnded: "exercise_ended"
    case .summary: "summary"
    case .error: "error"
    }
  }

  /// The event as one line of JSON (no newline).
  public var jsonLine: String {
    var fields: [String] = []
    func add(_ key: String, _ value: String) { fields.append("\"\(key)\":\(value)") }
    func number(_ value: Double) -> String {
      guard value.isFinite else { return "null" }
      return value == value.rounded() && abs(value) < 1e12
        ? String(Int(value)) : String(format: "%.4g", value)
    }
    func time(_ t: Double) -> String { String(format: "%.3f", t) }
    switch self {
    case .prediction(let t, let label, let confidence, let low, let probabilities):
      add("t", time(t))
      add("type", Self.quote(type))
      add("label", Self.quote(label))
      add("confidence", number(confidence))
      if low { add("low_confidence", "true") }
      if !probabilities.isEmpty {
        add(
          "probabilities",
          "{" + probabilities.map { "\(Self.quote($0.0)):\(number($0.1))" }.joined(separator: ",")
            + "}")
      }
    case .presence(let t, let present):
      add("t", time(t))
      add("type", Self.quote(type))
      add("present", present ? "true" : "false")
    case .exerciseStarted(let t, let exercise, let confidence):
      add("t", time(t))
      add("type", Self.quote(type))
      add("exercise", Self.quote(exercise))
      add("confidence", number(confidence))
    case .rep(let t, let exercise, let rep, let backfilled):
      add("t", time(t))
      add("type", Self.quote(type))
      add("exercise", Self.quote(exercise))
      add("count", String(rep.count))
      add("duration", number(rep.duration))
      add("range_of_motion", number(rep.rangeOfMotion))
      add("time_down", number(rep.timeDown))
      add("time_up", number(rep.timeUp))
      add("backfilled", backfilled ? "true" : "false")
    case .cue(let t, let exercise, let message):
      add("t", time(t))
      add("type", Self.quote(type))
      add("exercise", Self.quote(exercise))
      add("message", Self.quote(message))
    case .exerciseEnded(let t, let exercise, let reps):
      add("t", time(t))
      add("type", Self.quote(type))
      add("exercise", Self.quote(exercise))
      add("reps", String(reps))
    case .summary(let t, let exercises, let extra):
      add("t", time(t))
      add("type", Self.quote(type))
      let body = exercises.map {
        "\(Self.quote($0.name)):{\"reps\":\($0.reps),\"active_seconds\":\(number($0.activeSeconds))}"
      }
      add("exercises", "{" + body.joined(separator: ",") + "}")
      for key in extra.keys.sorted() { add(key, number(extra[key]!)) }
    case .error(let t, let line, let message):
      if let t { add("t", time(t)) }
      add("type", Self.quote(type))
      if let line { add("line", String(line)) }
      add("message", Self.quote(message))
    }
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// A JSON string literal.
  static func quote(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  public static func == (lhs: SpotterEvent, rhs: SpotterEvent) -> Bool {
    lhs.jsonLine == rhs.jsonLine
  }
}
