import Randomness

/// One synthetic person's proportions, in metres.
///
/// Segment lengths start from the usual anthropometric shares of standing height (Drillis &
/// Contini's table) and each varies by itself, so no two people share a shape and no feature
/// can count on a fixed ratio.
public struct BodyShape: Sendable {
  public var height: Double
  public var torso: Double  // neck to hip centre
  public var shoulderHalfWidth: Double
  public var hipHalfWidth: Double
  public var upperArm: Double
  public var forearm: Double
  public var thigh: Double
  public var shin: Double
  public var ankleHeight: Double
  public var neckToHead: Double

  /// A typical adult of 1.75 m.
  public static let average = BodyShape(height: 1.75, variation: { _ in 1 })

  init(height: Double, variation: (Double) -> Double) {
    self.height = height
    torso = 0.30 * height * variation(0.06)
    shoulderHalfWidth = 0.115 * height * variation(0.10)
    hipHalfWidth = 0.055 * height * variation(0.10)
    upperArm = 0.186 * height * variation(0.06)
    forearm = 0.146 * height * variation(0.06)
    thigh = 0.245 * height * variation(0.06)
    shin = 0.246 * height * variation(0.06)
    ankleHeight = 0.039 * height
    neckToHead = 0.10 * height * variation(0.08)
  }

  /// A random person: 1.45–1.98 m tall, each segment ±6–10 %.
  public static func random(using generator: inout SeededGenerator) -> BodyShape {
    let height = 1.45 + 0.53 * generator.unit()
    return BodyShape(height: height) { spread in 1 + spread * (2 * generator.unit() - 1) }
  }
}
