import Foundation

/// The few pieces of JSON text Spotter writes by hand, in one place so every writer (events,
/// the history, the daemon's counters) spells numbers and strings alike. By hand, not through
/// `JSONEncoder`: an event line is written for every rep of every stream, and its keys keep a
/// fixed order that people reading a stream can rely on.
public enum JSONText {
  /// A JSON string literal.
  public static func quote(_ text: String) -> String {
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

  /// A number: whole numbers without a fraction, others to 4 significant digits; `null` when
  /// not finite.
  public static func number(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    return value == value.rounded() && abs(value) < 1e12
      ? String(Int(value)) : String(format: "%.4g", value)
  }

  /// A stream time in seconds, to the millisecond.
  public static func time(_ t: Double) -> String { String(format: "%.3f", t) }

  /// `{"squat":{"reps":10,"active_seconds":31.2},…}`: a summary's exercises, in their order
  /// (with `goals_reached` when a set reached its goal).
  public static func exercises(_ totals: [ExerciseTotal]) -> String {
    let body = totals.map { total in
      var fields = "\"reps\":\(total.reps),\"active_seconds\":\(number(total.activeSeconds))"
      if total.goalsReached > 0 { fields += ",\"goals_reached\":\(total.goalsReached)" }
      return "\(quote(total.name)):{\(fields)}"
    }
    return "{" + body.joined(separator: ",") + "}"
  }
}
