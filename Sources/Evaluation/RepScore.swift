/// One clip's rep count against the truth.
public struct RepScore: Equatable, Sendable {
  public var file: String
  public var label: String
  public var truth: Int
  public var counted: Int

  public init(file: String, label: String, truth: Int, counted: Int) {
    self.file = file
    self.label = label
    self.truth = truth
    self.counted = counted
  }

  /// |counted − truth| / truth (nil for a clip with no reps done: it has no scale).
  public var relativeError: Double? {
    truth > 0 ? Double(abs(counted - truth)) / Double(truth) : nil
  }
}

/// Rep-count error over clips: the mean relative error (clips with no reps done left out) and
/// the share of clips within one rep.
public struct RepError: Equatable, Sendable {
  public var clips: Int
  public var mae: Double
  public var withinOne: Double
}

extension Array where Element == RepScore {
  /// The error over the clips of `label` (all clips when nil); nil when there are none.
  public func error(for label: String? = nil) -> RepError? {
    let chosen = filter { label == nil || $0.label == label }
    guard !chosen.isEmpty else { return nil }
    let scaled = chosen.compactMap(\.relativeError)
    let mae = scaled.isEmpty ? 0 : scaled.reduce(0, +) / Double(scaled.count)
    let within = Double(chosen.filter { abs($0.counted - $0.truth) <= 1 }.count)
    return RepError(clips: chosen.count, mae: mae, withinOne: within / Double(chosen.count))
  }

  public var labels: [String] { Set(self.map { $0.label }).sorted() }

  /// The `count` clips furthest off, by relative error (then by reps off); clips counted
  /// exactly are never among them.
  public func worst(_ count: Int) -> [RepScore] {
    Array(
      filter { $0.counted != $0.truth }.sorted {
        let (a, b) = (
          $0.relativeError ?? Double($0.counted), $1.relativeError ?? Double($1.counted)
        )
        return a != b ? a > b : $0.file < $1.file
      }.prefix(count))
  }
}
