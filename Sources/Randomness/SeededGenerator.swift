#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SplitMix64: a small, fast generator whose numbers depend only on its seed, on every machine.
///
/// Spotter never uses global randomness: whatever draws numbers (weight initialisation,
/// synthetic motion, augmentation, shuffling) takes a generator passed in, so the same seed
/// gives the same weights.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A float in -1...1.
  public mutating func signedUnit() -> Float { Float(unit() * 2 - 1) }

  /// A double in [0, 1), from the top 53 bits: the same on every platform, unlike
  /// `Double.random(in:using:)`, whose algorithm the standard library may change.
  public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

  /// A standard normal draw (Box–Muller).
  public mutating func normal() -> Double {
    let u1 = max(unit(), 0x1p-60)
    let u2 = unit()
    return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
  }

  /// A generator for a named sub-stream: the same parent seed and label give the same child,
  /// so adding draws in one place does not shift the numbers elsewhere.
  public func derived(_ label: UInt64) -> SeededGenerator {
    var child = SeededGenerator(seed: state ^ (label &* 0xD6E8_FEB8_6659_FD93))
    _ = child.next()
    return child
  }
}
