/// Text of an HTML page with inline SVG, written so that it is also well-formed XML: every
/// element closed (`<br/>`), every attribute quoted, text and attribute values escaped. A page
/// that parses as XML has no unclosed or misnested element for a browser to guess about, and the
/// tests can check it with any XML parser.
///
/// Numbers are written by hand to a fixed number of decimals: a 10-minute session's page holds
/// some hundred thousand of them, and `String(format:)` would be most of the time it takes.
struct Markup {
  private(set) var text = ""

  init(capacity: Int = 1 << 16) { text.reserveCapacity(capacity) }

  /// Appends markup as it is (a tag, an entity, CSS).
  mutating func raw(_ markup: String) { text += markup }

  /// Appends text, escaped for element content and attribute values alike.
  mutating func escaped(_ plain: String) { text += Self.escape(plain) }

  /// `<tag a="v">`; attribute values are escaped.
  mutating func open(_ tag: String, _ attributes: [(String, String)] = []) {
    text += "<" + tag
    for (name, value) in attributes { text += " " + name + "=\"" + Self.escape(value) + "\"" }
    text += ">"
  }

  mutating func close(_ tag: String) { text += "</" + tag + ">" }

  /// `<tag a="v"/>`: an element with nothing inside.
  mutating func empty(_ tag: String, _ attributes: [(String, String)] = []) {
    text += "<" + tag
    for (name, value) in attributes { text += " " + name + "=\"" + Self.escape(value) + "\"" }
    text += "/>"
  }

  /// `<tag a="v">text</tag>`, the text escaped.
  mutating func element(_ tag: String, _ attributes: [(String, String)] = [], _ content: String) {
    open(tag, attributes)
    escaped(content)
    close(tag)
  }

  mutating func number(_ value: Double, decimals: Int = 1) {
    text += Self.number(value, decimals: decimals)
  }

  static func escape(_ plain: String) -> String {
    var needs = false
    for byte in plain.utf8
    where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
      || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    {
      needs = true
      break
    }
    guard needs else { return plain }
    var result = ""
    result.reserveCapacity(plain.utf8.count + 16)
    for character in plain.unicodeScalars {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.unicodeScalars.append(character)
      }
    }
    return result
  }

  /// `value` to `decimals` places (0–6), never `-0`; without trailing zeros past the point
  /// unless `fixed` (a table's column reads better with every row to the same places).
  static func number(_ value: Double, decimals: Int = 1, fixed: Bool = false) -> String {
    precondition((0...6).contains(decimals), "decimals \(decimals) outside 0...6")
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return String(Int(value.rounded())) }
    var units = Int(scaled)
    guard units != 0 else { return "0" }
    var digits = decimals
    while !fixed, digits > 0, units % 10 == 0 {
      units /= 10
      digits -= 1
    }
    var divisor = 1
    for _ in 0..<digits { divisor *= 10 }
    var result = value < 0 ? "-" : ""
    result += String(units / divisor)
    if digits > 0 {
      let fraction = String(units % divisor)
      result += "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    return result
  }

  /// Stream seconds as `m:ss` (or `m:ss.s` with `tenths`): what a person reads on a clock.
  static func clock(_ seconds: Double, tenths: Bool = false) -> String {
    let total = max(0, seconds)
    let step = tenths ? 10.0 : 1.0
    let units = Int((total * step).rounded())
    let whole = units / Int(step)
    let minutes = whole / 60
    let rest = whole % 60
    var text = "\(minutes):" + (rest < 10 ? "0" : "") + "\(rest)"
    if tenths { text += ".\(units % 10)" }
    return text
  }
}
