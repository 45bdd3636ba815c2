/// A linear map from data (seconds, a signal's units) to pixels, with round tick values.
struct Scale {
  let from: (low: Double, high: Double)
  let to: (low: Double, high: Double)

  init(_ low: Double, _ high: Double, onto start: Double, _ end: Double) {
    // A domain with no width (one sample, a still signal) is widened so nothing divides by 0.
    let span = high - low
    let pad = span > 1e-9 ? 0 : max(abs(low) * 0.05, 0.5)
    from = (low - pad, high + pad)
    to = (start, end)
  }

  func callAsFunction(_ value: Double) -> Double {
    to.low + (value - from.low) / (from.high - from.low) * (to.high - to.low)
  }

  /// Values at a round step (1, 2 or 5 times a power of ten), at most about `count` of them.
  func ticks(count: Int) -> [Double] {
    let step = Self.step(span: from.high - from.low, count: count, steps: [1, 2, 5])
    return ticks(step: step)
  }

  /// Times at a step a clock reads easily (seconds, then minutes), at most about `count`.
  func timeTicks(count: Int) -> [Double] {
    let span = from.high - from.low
    let steps: [Double] = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]
    let step = steps.first { span / $0 <= Double(count) } ?? steps.last!
    return ticks(step: step)
  }

  private func ticks(step: Double) -> [Double] {
    var value = (from.low / step).rounded(.up) * step
    var values: [Double] = []
    while value <= from.high + step * 1e-9 {
      values.append(value == 0 ? 0 : value)
      value += step
    }
    return values
  }

  static func step(span: Double, count: Int, steps: [Double]) -> Double {
    guard span > 0, count > 0 else { return 1 }
    var power = 1.0
    while span / power > Double(count) * 10 { power *= 10 }
    while span / power < Double(count) { power /= 10 }
    for multiple in steps + steps.map({ $0 * 10 }) where span / (power * multiple) <= Double(count)
    {
      return power * multiple
    }
    return power * 100
  }
}
