import RepCounting

/// The few pieces of JSON text Spotter writes by hand, in one place so every writer (events,
/// the history, the daemon's counters) spells numbers and strings alike. By hand, not through
/// `JSONEncoder`: an event line is written for every rep of every stream, and its keys keep a
/// fixed order that people reading a stream can rely on.
///
/// Each piece is appended to UTF-8 bytes (`append…`), which is how events are written: the
/// daemon writes them straight into a connection's output. The `String` forms are for the
/// rest.
public enum JSONText {
  /// A JSON string literal.
  public static func quote(_ text: String) -> String { string { appendQuoted(text, to: &$0) } }

  /// A number: whole numbers without a fraction, others to 4 significant digits (C's `%.4g`);
  /// `null` when not finite.
  public static func number(_ value: Double) -> String { string { appendNumber(value, to: &$0) } }

  /// A stream time in seconds, to the millisecond (C's `%.3f`).
  public static func time(_ t: Double) -> String { string { appendTime(t, to: &$0) } }

  /// `{"joint":"knee","left":{"best":95.1,"median":88.2},"right":{…},"difference":3.4}`
  public static func summary(_ angles: AngleSummary) -> String {
    string { appendSummary(angles, to: &$0) }
  }

  /// `{"joint":"knee","left":{"top":172,"bottom":88},"right":{…}}`: a rep's angles.
  public static func angles(_ angles: JointAngles) -> String {
    string { appendAngles(angles, to: &$0) }
  }

  /// `{"squat":{"reps":10,"active_seconds":31.2},…}`: a summary's exercises, in their order
  /// (with `goals_reached` when a set reached its goal).
  public static func exercises(_ totals: [ExerciseTotal]) -> String {
    string { appendExercises(totals, to: &$0) }
  }

  private static func string(_ write: (inout [UInt8]) -> Void) -> String {
    var bytes: [UInt8] = []
    write(&bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  // MARK: as bytes

  public static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    // Labels and names need no escape: their bytes go in at once, not one checked append each.
    if !text.utf8.contains(where: {
      $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
    }) {
      bytes.append(contentsOf: text.utf8)
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: Array("\\u00".utf8))
        bytes.append(hex[Int(byte >> 4)])
        bytes.append(hex[Int(byte & 15)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
    guard value.isFinite else {
      appendRaw("null", to: &bytes)
      return
    }
    if value == value.rounded() && abs(value) < 1e12 {
      DecimalText.appendInteger(Int(value), to: &bytes)
    } else {
      DecimalText.appendGeneral4(value, to: &bytes)
    }
  }

  public static func appendTime(_ t: Double, to bytes: inout [UInt8]) {
    DecimalText.appendFixed3(t, to: &bytes)
  }

  /// Text as it is: keys, literals and punctuation.
  public static func appendRaw(_ text: StaticString, to bytes: inout [UInt8]) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// `"key":`, after a comma unless it opens its object.
  public static func appendKey(_ key: StaticString, to bytes: inout [UInt8]) {
    if let last = bytes.last, last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
    bytes.append(UInt8(ascii: "\""))
    appendRaw(key, to: &bytes)
    bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
  }

  static func appendSummary(_ angles: AngleSummary, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "{"))
    appendKey("joint", to: &bytes)
    appendQuoted(angles.joint, to: &bytes)
    if let side = angles.left {
      appendPair("left", ("best", side.best), ("median", side.median), to: &bytes)
    }
    if let side = angles.right {
      appendPair("right", ("best", side.best), ("median", side.median), to: &bytes)
    }
    if let difference = angles.difference {
      appendKey("difference", to: &bytes)
      appendNumber(difference, to: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  static func appendAngles(_ angles: JointAngles, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "{"))
    appendKey("joint", to: &bytes)
    appendQuoted(angles.joint.rawValue, to: &bytes)
    if let side = angles.left {
      appendPair("left", ("top", side.top), ("bottom", side.bottom), to: &bytes)
    }
    if let side = angles.right {
      appendPair("right", ("top", side.top), ("bottom", side.bottom), to: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// `"key":{"first":1,"second":2}`: one side's two angles.
  private static func appendPair(
    _ key: StaticString, _ first: (StaticString, Double), _ second: (StaticString, Double),
    to bytes: inout [UInt8]
  ) {
    appendKey(key, to: &bytes)
    bytes.append(UInt8(ascii: "{"))
    for (name, value) in [first, second] {
      appendKey(name, to: &bytes)
      appendNumber(value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  static func appendExercises(_ totals: [ExerciseTotal], to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "{"))
    for (index, total) in totals.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      appendQuoted(total.name, to: &bytes)
      bytes.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: "{")])
      appendKey("reps", to: &bytes)
      DecimalText.appendInteger(total.reps, to: &bytes)
      appendKey("active_seconds", to: &bytes)
      appendNumber(total.activeSeconds, to: &bytes)
      if total.goalsReached > 0 {
        appendKey("goals_reached", to: &bytes)
        DecimalText.appendInteger(total.goalsReached, to: &bytes)
      }
      if let angles = total.angles {
        appendKey("range_of_motion", to: &bytes)
        appendSummary(angles, to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    }
    bytes.append(UInt8(ascii: "}"))
  }
}
