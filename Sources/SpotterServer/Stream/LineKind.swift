#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a line is, told from its bytes once, when it arrives.
enum LineKind {
  /// Only spaces.
  case blank
  /// `{"cmd":"stats"}`.
  case statsCommand
  /// Carries neither `"spotter"` (a header) nor `"cmd"`: a frame (or a bad line, which
  /// decoding names). A cheap test, exact enough to choose what to drop: a frame that slips
  /// by is decoded, not lost.
  case frame
  /// Anything else: a header, another command, a line that is not an object.
  case other

  init(_ line: UnsafeBufferPointer<UInt8>) {
    guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else {
      self = .blank
      return
    }
    let first = line.firstIndex { $0 != 0x20 && $0 != 0x09 }!
    let (command, header) = Self.contains(line, "\"cmd\"", "\"spotter\"")
    if command && Self.contains(line, "\"stats\"") {
      self = .statsCommand
    } else if line[first] == UInt8(ascii: "{") && !command && !header {
      self = .frame
    } else {
      self = .other
    }
  }

  /// Whether the line holds `a`, and `b`, in one walk over its quotes: each candidate start
  /// found with `memchr` (the needles open with a quote, a few of which a frame line has per
  /// joint).
  private static func contains(
    _ line: UnsafeBufferPointer<UInt8>, _ a: StaticString, _ b: StaticString
  ) -> (Bool, Bool) {
    guard let base = line.baseAddress else { return (false, false) }
    var found = (false, false)
    var offset = 0
    while !(found.0 && found.1), offset < line.count,
      let quote = memchr(base + offset, Int32(UInt8(ascii: "\"")), line.count - offset)
    {
      let start = UnsafePointer(quote.assumingMemoryBound(to: UInt8.self))
      let rest = line.count - (start - base)
      found.0 = found.0 || Self.opens(start, rest, with: a)
      found.1 = found.1 || Self.opens(start, rest, with: b)
      offset = start - base + 1
    }
    return found
  }

  private static func contains(_ line: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
    contains(line, text, text).0
  }

  private static func opens(_ start: UnsafePointer<UInt8>, _ count: Int, with text: StaticString)
    -> Bool
  {
    count >= text.utf8CodeUnitCount && memcmp(start, text.utf8Start, text.utf8CodeUnitCount) == 0
  }
}
