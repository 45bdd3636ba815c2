#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What was wrong with a frame line, and the byte column where it was found.
struct FrameLineError: Error {
  var column: Int
  var message: String
}

/// Parses one frame line of a pose file, `{"t":0.033,"pose":[[x,y,c],...]}` or
/// `{"t":0.033,"people":[[[x,y,c],...],...]}`, straight from its bytes.
///
/// A hand-written scanner rather than a general JSON parser: it builds no object tree, writes
/// the joints into a caller's reusable buffer and allocates nothing on a good line, which keeps
/// decoding off the profile of the per-frame path. Unknown keys are skipped whatever their
/// value. Joints are `null` (missing), `[x, y]` (confidence 1) or `[x, y, c]`; coordinates must
/// be finite and confidence non-negative.
struct FrameLineParser {
  /// The layout's joint names, for messages, and J.
  let jointNames: [String]

  /// The parsed frame: its time, if the line had one, and how many people it holds. People's
  /// joints are in `joints` as (x, y, c) triples, J per person (`JointValues`).
  struct Result {
    var t: Double?
    var people: Int
  }

  func parse(_ line: UnsafeBufferPointer<UInt8>, joints: inout JointValues)
    throws(FrameLineError)
    -> Result
  {
    var scanner = ByteScanner(bytes: line)
    var result = Result(t: nil, people: 0)
    var sawPose = false
    var sawPeople = false
    try scanner.expect(UInt8(ascii: "{"), "a frame object starting with '{'")
    if !scanner.consumeEmpty(UInt8(ascii: "}")) {
      repeat {
        scanner.skipSpace()
        let key = try scanner.key()
        scanner.skipSpace()
        try scanner.expect(UInt8(ascii: ":"), "':' after a key")
        scanner.skipSpace()
        if key == .t {
          if scanner.consume(literal: "null") {
            result.t = nil
          } else {
            let column = scanner.position + 1
            let t = try scanner.number(named: "\"t\"")
            guard t.isFinite else {
              throw FrameLineError(
                column: column, message: "\"t\" is \(t); it must be a finite number of seconds")
            }
            result.t = t
          }
        } else if key == .pose {
          sawPose = true
          if !scanner.consume(literal: "null") {
            joints.removeAll()
            try person(&scanner, index: nil, into: &joints)
            result.people = 1
          }
        } else if key == .people {
          sawPeople = true
          joints.removeAll()
          result.people = try people(&scanner, into: &joints)
        } else {
          try scanner.skipValue(depth: 0)
        }
      } while try scanner.nextElement(UInt8(ascii: "}"), "',' or '}' in the frame object")
    }
    scanner.skipSpace()
    guard scanner.isAtEnd else {
      throw FrameLineError(
        column: scanner.position + 1, message: "unexpected text after the frame object")
    }
    if sawPose && sawPeople {
      throw FrameLineError(column: 1, message: "frame has both \"pose\" and \"people\"; give one")
    }
    if !sawPose && !sawPeople {
      throw FrameLineError(column: 1, message: "frame has neither \"pose\" nor \"people\"")
    }
    return result
  }

  private func people(_ scanner: inout ByteScanner, into joints: inout JointValues)
    throws(FrameLineError)
    -> Int
  {
    if scanner.consume(literal: "null") { return 0 }
    try scanner.expect(UInt8(ascii: "["), "\"people\" to be an array of poses")
    if scanner.consumeEmpty(UInt8(ascii: "]")) { return 0 }
    var count = 0
    repeat {
      scanner.skipSpace()
      try person(&scanner, index: count, into: &joints)
      count += 1
    } while try scanner.nextElement(UInt8(ascii: "]"), "',' or ']' in \"people\"")
    return count
  }

  /// One person: an array of exactly J joints, appended to `joints` as J (x, y, c) triples.
  private func person(
    _ scanner: inout ByteScanner, index: Int?, into joints: inout JointValues
  )
    throws(FrameLineError)
  {
    let jointCount = jointNames.count
    var who: String { index.map { "person \($0)" } ?? "pose" }
    let arrayColumn = scanner.position + 1
    try scanner.expect(UInt8(ascii: "["), "\(who) to be an array of joints")
    var count = 0
    if !scanner.consumeEmpty(UInt8(ascii: "]")) {
      repeat {
        scanner.skipSpace()
        if count < jointCount {
          try joint(&scanner, index: count, into: &joints)
        } else {
          try scanner.skipValue(depth: 0)
        }
        count += 1
      } while try scanner.nextElement(UInt8(ascii: "]"), "',' or ']' in the joints of \(who)")
    }
    guard count == jointCount else {
      throw FrameLineError(
        column: arrayColumn, message: "\(who) has \(count) joints; the layout has \(jointCount)")
    }
  }

  private func joint(_ scanner: inout ByteScanner, index: Int, into joints: inout JointValues)
    throws(FrameLineError)
  {
    if scanner.consume(literal: "null") {
      joints.append(0, 0, 0)
      return
    }
    func name() -> String { "joint \(index) (\(jointNames[index]))" }
    try scanner.expect(UInt8(ascii: "["), "\(name()) to be null, [x, y] or [x, y, c]")
    var values: (Double, Double, Double) = (0, 0, 1)
    var count = 0
    scanner.skipSpace()
    repeat {
      scanner.skipSpace()
      let column = scanner.position + 1
      // A function of the count, not a closure over it: a captured variable is checked for
      // exclusive access on every number.
      func what(_ count: Int) -> String {
        (count < 3 ? ["x", "y", "confidence"][count] : "value") + " of \(name())"
      }
      let value = try scanner.number(named: what(count))
      guard value.isFinite else {
        throw FrameLineError(
          column: column, message: "\(what(count)) is \(value); coordinates must be finite numbers")
      }
      switch count {
      case 0: values.0 = value
      case 1: values.1 = value
      case 2:
        guard value >= 0 else {
          throw FrameLineError(
            column: column, message: "\(what(count)) is \(value); confidence must be 0 or more")
        }
        values.2 = value
      default: break
      }
      count += 1
    } while try scanner.nextElement(UInt8(ascii: "]"), "',' or ']' in \(name())")
    guard count == 2 || count == 3 else {
      throw FrameLineError(
        column: scanner.position,
        message: "\(name()) has \(count) numbers; expected [x, y] or [x, y, c]")
    }
    joints.append(Float(values.0), Float(values.1), Float(values.2))
  }
}

/// The joints of a parsed line, (x, y, c) triples, J per person, in one buffer that is reused
/// from line to line and grows only for a line with more people than any before it: a value
/// is written with one bounds test, not an array append's uniqueness and capacity checks.
///
/// Owned by one decoder (`PoseLineDecoder`), which releases the buffer with `deallocate()`.
struct JointValues {
  private(set) var base: UnsafeMutablePointer<Float>
  private(set) var capacity: Int
  /// Floats written since `removeAll()`.
  private(set) var count = 0

  init(capacity: Int) {
    self.capacity = max(capacity, 3)
    base = .allocate(capacity: self.capacity)
  }

  mutating func removeAll() { count = 0 }

  /// Appends one joint.
  @inline(__always)
  mutating func append(_ x: Float, _ y: Float, _ c: Float) {
    if count + 3 > capacity { grow() }
    base[count] = x
    base[count + 1] = y
    base[count + 2] = c
    count += 3
  }

  private mutating func grow() {
    let larger = UnsafeMutablePointer<Float>.allocate(capacity: capacity * 2)
    larger.update(from: base, count: count)
    base.deallocate()
    base = larger
    capacity *= 2
  }

  /// The values written, valid until the next append.
  var values: UnsafeBufferPointer<Float> { UnsafeBufferPointer(start: base, count: count) }

  func deallocate() { base.deallocate() }
}

/// The keys a frame line knows.
enum FrameKey { case t, pose, people, other }

/// A cursor over a line's bytes with the few JSON pieces a frame line needs.
struct ByteScanner {
  let bytes: UnsafeBufferPointer<UInt8>
  var position = 0
  /// `powersOfTen`, held: a global's lazy initialiser is checked on each access, a stored
  /// property once per line.
  private let powers = ByteScanner.powersOfTen

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  var isAtEnd: Bool { position >= bytes.count }
  var peek: UInt8 { position < bytes.count ? bytes[position] : 0 }

  mutating func skipSpace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }

  func found() -> String {
    if isAtEnd { return "the end of the line" }
    let byte = bytes[position]
    if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16))"
  }

  mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(FrameLineError) {
    guard peek == byte, !isAtEnd else {
      throw FrameLineError(column: position + 1, message: "expected \(what()), found \(found())")
    }
    position += 1
  }

  /// Skips space, then the `close` of an empty array or object: true when it was there.
  @inline(__always)
  mutating func consumeEmpty(_ close: UInt8) -> Bool {
    skipSpace()
    guard peek == close else { return false }
    position += 1
    return true
  }

  /// After an element of an array or object: skips space, then a ',' (true: another element
  /// follows) or `close` (false: that was the last). Anything else is an error: "expected
  /// `what`, found …".
  @inline(__always)
  mutating func nextElement(_ close: UInt8, _ what: @autoclosure () -> String)
    throws(FrameLineError) -> Bool
  {
    skipSpace()
    if peek == UInt8(ascii: ",") {
      position += 1
      return true
    }
    try expect(close, what())
    return false
  }

  mutating func consume(literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard position + count <= bytes.count else { return false }
    let text = literal.utf8Start
    for offset in 0..<count where bytes[position + offset] != text[offset] { return false }
    position += count
    return true
  }

  /// A key string, recognised without building it.
  mutating func key() throws(FrameLineError) -> FrameKey {
    let start = position + 1
    try skipString()
    let length = position - start - 1
    func matches(_ name: StaticString) -> Bool {
      guard length == name.utf8CodeUnitCount else { return false }
      return memcmp(bytes.baseAddress! + start, name.utf8Start, length) == 0
    }
    if matches("t") { return .t }
    if matches("pose") { return .pose }
    if matches("people") { return .people }
    return .other
  }

  mutating func skipString() throws(FrameLineError) {
    let column = position + 1
    try expect(UInt8(ascii: "\""), "a string")
    while position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: "\\"): position += 2
      case UInt8(ascii: "\""):
        position += 1
        return
      default: position += 1
      }
    }
    throw FrameLineError(column: column, message: "string is not closed before the end of the line")
  }

  /// Skips any JSON value, nested at most 64 deep.
  mutating func skipValue(depth: Int) throws(FrameLineError) {
    guard depth < 64 else {
      throw FrameLineError(column: position + 1, message: "value is nested more than 64 deep")
    }
    skipSpace()
    switch peek {
    case UInt8(ascii: "\""): try skipString()
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      let close = peek == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
      let isObject = close == UInt8(ascii: "}")
      position += 1
      if consumeEmpty(close) { return }
      repeat {
        skipSpace()
        if isObject {
          try skipString()
          skipSpace()
          try expect(UInt8(ascii: ":"), "':' after a key")
        }
        try skipValue(depth: depth + 1)
      } while try nextElement(close, "',' or '\(Character(Unicode.Scalar(close)))'")
    default:
      if consume(literal: "null") || consume(literal: "true") || consume(literal: "false") {
        return
      }
      _ = try number()
    }
  }

  /// A number for the named thing; errors say which thing.
  mutating func number(named what: @autoclosure () -> String) throws(FrameLineError) -> Double {
    do {
      return try number()
    } catch {
      throw FrameLineError(column: error.column, message: "\(what()): \(error.message)")
    }
  }

  /// A JSON number, as a Double. `NaN` and `Infinity` (which JSON does not allow, but some
  /// writers emit) are returned as such so the caller can name them; anything else that is not
  /// a number is an error.
  mutating func number() throws(FrameLineError) -> Double {
    let start = position
    // A digit first (most numbers) cannot start NaN or Infinity.
    if peek &- 0x30 >= 10 {
      if consume(literal: "NaN") || consume(literal: "nan") { return .nan }
      if consume(literal: "Infinity") || consume(literal: "inf") { return .infinity }
      if consume(literal: "-Infinity") || consume(literal: "-inf") { return -.infinity }
    }
    var negative = false
    if peek == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
    var sawDigit = false
    while position < bytes.count, case let digit = bytes[position] &- 0x30, digit < 10 {
      sawDigit = true
      if digits < 19 {
        mantissa = mantissa &* 10 &+ UInt64(digit)
        if mantissa != 0 { digits += 1 }
      } else {
        exponent += 1
      }
      position += 1
    }
    if peek == UInt8(ascii: ".") {
      position += 1
      while position < bytes.count, case let digit = bytes[position] &- 0x30, digit < 10 {
        sawDigit = true
        if digits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(digit)
          if mantissa != 0 { digits += 1 }
          exponent -= 1
        }
        position += 1
      }
    }
    guard sawDigit else {
      position = start
      let thing = peek == UInt8(ascii: "n") ? "null" : found()
      throw FrameLineError(column: start + 1, message: "expected a number, found \(thing)")
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      position += 1
      var exponentNegative = false
      if peek == UInt8(ascii: "-") || peek == UInt8(ascii: "+") {
        exponentNegative = peek == UInt8(ascii: "-")
        position += 1
      }
      var written = 0
      var sawExponentDigit = false
      while position < bytes.count, case let digit = bytes[position] &- 0x30, digit < 10 {
        sawExponentDigit = true
        if written < 100_000 { written = written * 10 + Int(digit) }
        position += 1
      }
      guard sawExponentDigit else {
        throw FrameLineError(column: position + 1, message: "number has an empty exponent")
      }
      exponent += exponentNegative ? -written : written
    }
    // Clinger's fast path: exact when the mantissa fits in 53 bits and 10^|e| is exact.
    if mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
      let value =
        exponent < 0
        ? Double(mantissa) / powers[-exponent]
        : Double(mantissa) * powers[exponent]
      return negative ? -value : value
    }
    return slowNumber(from: start)
  }

  /// Rare long or extreme numbers: the C library's strtod on a stack copy.
  private func slowNumber(from start: Int) -> Double {
    let length = position - start
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text in
      for offset in 0..<length { text[offset] = CChar(bitPattern: bytes[start + offset]) }
      text[length] = 0
      return strtod(text.baseAddress!, nil)
    }
  }

  private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }
}
