import Foundation
import RepCounting

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

  /// `{"joint":"knee","left":{"best":95.1,"median":88.2},"right":{…},"difference":3.4}`
  public static func summary(_ angles: AngleSummary) -> String {
    func side(_ side: AngleSummary.Side) -> String {
      "{\"best\":\(number(side.best)),\"median\":\(number(side.median))}"
    }
    var fields = ["\"joint\":\(quote(angles.joint))"]
    if let left = angles.left { fields.append("\"left\":" + side(left)) }
    if let right = angles.right { fields.append("\"right\":" + side(right)) }
    if let difference = angles.difference { fields.append("\"difference\":\(number(difference))") }
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// `{"joint":"knee","left":{"top":172,"bottom":88},"right":{…}}`: a rep's angles.
  public static func angles(_ angles: JointAngles) -> String {
    func side(_ side: SideAngles) -> String {
      "{\"top\":\(number(side.top)),\"bottom\":\(number(side.bottom))}"
    }
    var fields = ["\"joint\":\(quote(angles.joint.rawValue))"]
    if let left = angles.left { fields.append("\"left\":" + side(left)) }
    if let right = angles.right { fields.append("\"right\":" + side(right)) }
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// A stream time in seconds, to the millisecond.
  public static func time(_ t: Double) -> String { String(format: "%.3f", t) }

  /// `{"squat":{"reps":10,"active_seconds":31.2},…}`: a summary's exercises, in their order
  /// (with `goals_reached` when a set reached its goal).
  public static func exercises(_ totals: [ExerciseTotal]) -> String {
    let body = totals.map { total in
      var fields = "\"reps\":\(total.reps),\"active_seconds\":\(number(total.activeSeconds))"
      if total.goalsReached > 0 { fields += ",\"goals_reached\":\(total.goalsReached)" }
      if let angles = total.angles { fields += ",\"range_of_motion\":" + summary(angles) }
      return "\(quote(total.name)):{\(fields)}"
    }
    return "{" + body.joined(separator: ",") + "}"
  }
}
