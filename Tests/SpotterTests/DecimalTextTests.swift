import Foundation
import Randomness
import Testing

@testable import Spotter

/// `DecimalText` writes what C's `printf` writes with `%.3f` and `%.4g` (here through
/// `String(format:)`, the reference), byte for byte: event lines must not change with the
/// writer.
@Suite struct DecimalTextTests {
  static func general(_ value: Double) -> String {
    var bytes: [UInt8] = []
    DecimalText.appendGeneral4(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  static func fixed(_ value: Double) -> String {
    var bytes: [UInt8] = []
    DecimalText.appendFixed3(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Ties (exact binary halves at the digit rounded), the edges where a carry adds a digit
  /// or changes the style, signs, zero, and values outside the exact range.
  static let edges: [Double] = [
    0, -0.0, 0.0625, 0.1875, 1.0625, 2.5, 0.5, 1.5, 0.0005, 0.0015, 12.0625, 1234.5, 1235.5,
    9.9995, 9.99949999, 99.995, 999.95, 9999.5, 9999.4, 0.99995, 0.000099995, 0.0001,
    0.00009999, 1e-4, 1e-5, 1.2345e-5, 123_456, 1e15, 1e-300, 5e-324, 1e300, 0.1, 0.2, 0.3,
    1 / 3, 2 / 3, 1e22, 1.5e22, 1e-19, 1e-20, 1e25, .pi, -.pi, -0.0004, -1234.5,
  ]

  @Test(arguments: edges)
  func edgesAreWrittenAsPrintfWritesThem(value: Double) {
    #expect(Self.general(value) == String(format: "%.4g", value))
    #expect(Self.fixed(value) == String(format: "%.3f", value))
  }

  /// Down to 1e-45, past where a Double's significand times 5^k needs more than 128 bits.
  @Test(arguments: -45...24)
  func everyMagnitudeIsWrittenAsPrintfWritesIt(exponent: Int) {
    var random = SeededGenerator(seed: UInt64(100 + exponent))
    for _ in 0..<2000 {
      let value = Double.random(in: 1..<10, using: &random) * pow(10, Double(exponent))
      #expect(Self.general(value) == String(format: "%.4g", value))
      #expect(Self.general(-value) == String(format: "%.4g", -value))
      if exponent < 12 { #expect(Self.fixed(value) == String(format: "%.3f", value)) }
    }
  }

  /// Probabilities from a confident network: Floats far below 1e-19, down to the smallest
  /// subnormal, written as the C library writes them.
  @Test func tinyProbabilitiesAreWrittenAsPrintfWritesThem() {
    var random = SeededGenerator(seed: 7)
    var values: [Float] = [.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-20, 3.3e-38]
    for _ in 0..<3000 { values.append(Float(exp(-Double.random(in: 43...103, using: &random)))) }
    for value in values {
      #expect(Self.general(Double(value)) == String(format: "%.4g", Double(value)))
    }
    // The exact path, not printf, writes them: a Float's significand times 5^k fits.
    for value in values.prefix(500) where value >= 1e-41 {
      let exponent = Int(log10(Double(value)).rounded(.down))
      #expect(DecimalText.scaledExactly(Double(value), exponent: 3 - exponent) != nil, "\(value)")
    }
    #expect(Self.fixed(1e15 / 3) == String(format: "%.3f", 1e15 / 3))
    #expect(Self.fixed(-1e45) == String(format: "%.3f", -1e45))
  }

  @Test func tiesRoundToEven() {
    // k/16 and k/2^20 are exact in binary, so the digit after the last kept is exactly 5.
    for k in 0..<4096 {
      for value in [Double(k) / 16, Double(k) / 1_048_576, Double(k) / 2048 + 1000] {
        #expect(Self.fixed(value) == String(format: "%.3f", value))
        #expect(Self.general(value) == String(format: "%.4g", value))
      }
    }
  }

  @Test func numbersAndTimesKeepTheirJSONForms() {
    #expect(JSONText.number(3) == "3")
    #expect(JSONText.number(.nan) == "null")
    #expect(JSONText.number(0.12345) == "0.1235")
    #expect(JSONText.time(1.0005) == String(format: "%.3f", 1.0005))
    #expect(JSONText.quote("a \"b\"\\\n\u{1}é") == "\"a \\\"b\\\"\\\\\\n\\u0001é\"")
  }
}
