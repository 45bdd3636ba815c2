import Foundation

/// Decimal text of a `Double` as C's `printf` writes it with `%.3f` and `%.4g`, appended to a
/// byte buffer: the same characters, without `String(format:)`'s formatter machinery and its
/// allocations. Event lines are written for every prediction of every stream the daemon
/// serves, and a prediction carries a dozen numbers: through Foundation's formatter the
/// numbers were most of the cost of an event.
///
/// Rounding is exact, to nearest with ties to even, as glibc does: a scaled value's two
/// nearest integers are told apart by comparing the value with their midpoint exactly (the
/// product's rounding error recovered with a fused multiply-add), never by a rounded product.
/// Below 1e-19 (where 10^k is no longer exact in a Double) `%.4g` scales the value's integer
/// significand by 5^k in 128 bits instead, exact too: a confident network gives the other
/// labels probabilities like 1e-30, a dozen in every prediction event. What fits neither way
/// (beyond 1e25, below about 1e-29 unless the significand is short, as a Float's is, and times
/// past 1e12 s) is written by the C library's `vsnprintf` into a stack buffer.
enum DecimalText {
  /// `%.3f`: `1.500`, `-0.000`, `12.062`.
  static func appendFixed3(_ value: Double, to bytes: inout [UInt8]) {
    guard value.isFinite, value.magnitude < 1e12 else {
      appendPrintf("%.3f", value, to: &bytes)
      return
    }
    if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
    let scaled = roundedScaled(value.magnitude, exponent: 3)
    appendInteger(scaled / 1000, to: &bytes)
    bytes.append(UInt8(ascii: "."))
    appendDigits(scaled % 1000, count: 3, to: &bytes)
  }

  /// `%.4g`: four significant digits, trailing zeros dropped, `1.235e-05` style outside
  /// 1e-4 ..< 1e4.
  static func appendGeneral4(_ value: Double, to bytes: inout [UInt8]) {
    let magnitude = value.magnitude
    guard value.isFinite, magnitude != 0, magnitude < 1e25,
      let (digits, exponent) = fourDigits(magnitude)
    else {
      appendPrintf("%.4g", value, to: &bytes)
      return
    }
    if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
    if exponent >= -4 && exponent < 4 {
      // Style f with 3 − X decimals, trailing zeros (and a bare point) dropped.
      var decimals = 3 - exponent
      var digits = digits
      while decimals > 0 && digits % 10 == 0 {
        digits /= 10
        decimals -= 1
      }
      var unit = 1
      for _ in 0..<decimals { unit *= 10 }
      appendInteger(digits / unit, to: &bytes)
      if decimals > 0 {
        bytes.append(UInt8(ascii: "."))
        appendDigits(digits % unit, count: decimals, to: &bytes)
      }
    } else {
      // Style e: d.ddd, trailing zeros dropped, then e±XX.
      var fraction = digits % 1000
      var count = 3
      while count > 0 && fraction % 10 == 0 {
        fraction /= 10
        count -= 1
      }
      appendInteger(digits / 1000, to: &bytes)
      if count > 0 {
        bytes.append(UInt8(ascii: "."))
        appendDigits(fraction, count: count, to: &bytes)
      }
      bytes.append(UInt8(ascii: "e"))
      bytes.append(exponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
      appendDigits(exponent.magnitude, count: exponent.magnitude < 100 ? 2 : 3, to: &bytes)
    }
  }

  /// `magnitude` (positive, below 1e25) rounded to four significant digits, 1000 ≤ digits ≤
  /// 9999, with X, its decimal exponent; nil where it cannot be scaled exactly.
  private static func fourDigits(_ magnitude: Double) -> (digits: Int, exponent: Int)? {
    var exponent = Int(log10(magnitude).rounded(.down))
    guard var digits = scaledExactly(magnitude, exponent: 3 - exponent) else { return nil }
    // log10 may be a hair off at a power of ten, and rounding may carry to a fifth digit.
    if digits >= 10_000 || digits < 1000 {
      exponent += digits >= 10_000 ? 1 : -1
      guard let again = scaledExactly(magnitude, exponent: 3 - exponent) else { return nil }
      digits = again
    }
    return (digits, exponent)
  }

  /// `roundedScaled` for any `exponent` from −22 up: past 22 through the value's integer
  /// significand, `value · 10^k = m · 5^k · 2^(e + k)`, with `m · 5^k` exact in 128 bits, then
  /// shifted right with ties to even. Nil when the product needs more than 128 bits (a
  /// Double's 53-bit significand fits down to about 1e-29, a Float's 24 bits to about 1e-41)
  /// or the result is not a small integer.
  static func scaledExactly(_ value: Double, exponent k: Int) -> Int? {
    if k <= 22 { return roundedScaled(value, exponent: k) }
    guard k < powersOfFive.count, value > 0, value.isFinite else { return nil }
    var m = value.significandBitPattern | (value.isNormal ? 1 << 52 : 0)
    var e = value.isNormal ? Int(value.exponent) - 52 : -1074
    let zeros = m.trailingZeroBitCount
    m >>= zeros
    e += zeros
    // (high, low) = m · 5^k, in two 64-bit words.
    let five = powersOfFive[k]
    let low = m.multipliedFullWidth(by: five.low)
    let high = m.multipliedFullWidth(by: five.high)
    let (middle, carry) = high.low.addingReportingOverflow(low.high)
    guard high.high == 0, !carry else { return nil }
    let shift = -(e + k)
    guard shift > 0, shift < 128 else { return nil }
    // The integer part, the bits shifted out, and half of one unit of the integer part.
    let (integer, rest, half): (UInt64, (UInt64, UInt64), (UInt64, UInt64))
    if shift < 64 {
      guard middle >> shift == 0 else { return nil }
      integer = middle << (64 - shift) | low.low >> shift
      rest = (0, low.low & (1 << shift &- 1))
      half = (0, 1 << (shift - 1))
    } else {
      integer = middle >> (shift - 64)
      rest = (shift == 64 ? 0 : middle & (1 << (shift - 64) &- 1), low.low)
      half = shift == 64 ? (0, 1 << 63) : (1 << (shift - 65), 0)
    }
    guard integer < 1 << 52 else { return nil }
    let result = Int(integer)
    if rest > half { return result + 1 }
    if rest < half { return result }
    return result % 2 == 0 ? result : result + 1
  }

  /// 5^k as two 64-bit words, for k up to 55 (the last that fits in 128 bits).
  private static let powersOfFive: [(high: UInt64, low: UInt64)] = {
    var powers: [(high: UInt64, low: UInt64)] = [(0, 1)]
    for _ in 1...55 {
      let (high, low) = powers.last!
      let lowProduct = low.multipliedFullWidth(by: 5)
      powers.append((high * 5 + lowProduct.high, lowProduct.low))
    }
    return powers
  }()

  /// `value` as C's `printf` writes it with `format` (one double conversion), through a stack
  /// buffer: 64 bytes hold any `%.3f` below 1e40 and any `%.4g`; a longer result (a huge
  /// `%.3f`) is written from a heap copy.
  private static func appendPrintf(
    _ format: StaticString, _ value: Double, to bytes: inout [UInt8]
  ) {
    let written = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
      let count = withVaList([value]) {
        vsnprintf(
          buffer.baseAddress!, 64,
          UnsafeRawPointer(format.utf8Start).assumingMemoryBound(to: CChar.self), $0)
      }
      guard count >= 0, count < 64 else { return false }
      buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: Int(count)) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: Int(count)))
      }
      return true
    }
    if !written {
      bytes.append(contentsOf: String(format: "\(format)", value).utf8)
    }
  }

  /// A whole number in decimal.
  static func appendInteger<T: BinaryInteger>(_ value: T, to bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = UInt64(value.magnitude)
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var count = 0
      repeat {
        digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      } while magnitude > 0
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
    }
  }

  /// `value` as exactly `count` digits, zero-padded on the left.
  private static func appendDigits<T: BinaryInteger>(
    _ value: T, count: Int, to bytes: inout [UInt8]
  ) {
    var divisor: T = 1
    for _ in 1..<max(count, 1) { divisor *= 10 }
    var value = value
    for _ in 0..<count {
      bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
      value %= divisor
      divisor /= 10
    }
  }

  private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

  /// `value · 10^exponent` rounded to the nearest integer, ties to even, exactly; for
  /// `value ≥ 0`, |exponent| ≤ 22 and a result below 2^52.
  static func roundedScaled(_ value: Double, exponent: Int) -> Int {
    precondition(abs(exponent) <= 22, "10^\(exponent) is not exact in a Double")
    let power = powersOfTen[abs(exponent)]
    // An estimate of the scaled value; its floor is the lower candidate or one off, and the
    // exact comparison with the midpoint below picks right in either case.
    let estimate = exponent >= 0 ? value * power : value / power
    let lower = estimate.rounded(.down)
    let midpoint = lower + 0.5
    // The sign of value·10^e − midpoint, exactly.
    let difference: Double
    if exponent >= 0 {
      let product = value * power
      let error = (-product).addingProduct(value, power)  // value·power − product, exact
      difference = (product - midpoint) + error
    } else {
      let product = midpoint * power
      let error = (-product).addingProduct(midpoint, power)  // midpoint·power − product
      difference = (value - product) - error
    }
    let lowerInteger = Int(lower)
    if difference > 0 { return lowerInteger + 1 }
    if difference < 0 { return lowerInteger }
    return lowerInteger % 2 == 0 ? lowerInteger : lowerInteger + 1
  }
}
