import Linalg

/// How one model runs on one machine: each layer's convolution strategy for a single window
/// and for batches, the windows per pass of a batch, and the precision of the weights the
/// streaming step reads. Made by `Planner` (measured where it runs, or estimated), kept per
/// `Classifier`, and printed by `spotter-bench` and `spotter inspect`.
public struct ExecutionPlan: Sendable, Equatable, CustomStringConvertible {
  /// Where a plan came from.
  public enum Origin: Sendable, Equatable {
    /// Timed on this machine when the model was first used, in this many milliseconds.
    case measured(milliseconds: Double)
    /// Read from the plan cache (a plan measured earlier on this CPU, OpenBLAS and network).
    case cached(path: String)
    /// Fixed rules, nothing timed (`SPOTTER_PLAN=estimate`, or a plan given by hand).
    case estimated
  }

  /// Each layer's strategy for a batch of one window.
  public var single: [ConvolutionStrategy]
  /// Each layer's strategy for a batch of several, `tile` windows a pass.
  public var batched: [ConvolutionStrategy]
  public var tile: Int
  /// The streaming step's weights: single, or half precision where the planner timed the step
  /// both ways and half was clearly faster (`Planner.fasterStream`).
  public var stream: WeightPrecision
  public var origin: Origin

  public init(
    single: [ConvolutionStrategy], batched: [ConvolutionStrategy], tile: Int,
    stream: WeightPrecision, origin: Origin
  ) {
    precondition(tile >= 1 && single.count == batched.count, "plan shapes differ")
    self.single = single
    self.batched = batched
    self.tile = tile
    self.stream = stream
    self.origin = origin
  }

  /// Every layer by `strategy`, one window a pass, single-precision streaming.
  public static func uniform(_ strategy: ConvolutionStrategy, layers: Int) -> ExecutionPlan {
    ExecutionPlan(
      single: Array(repeating: strategy, count: layers),
      batched: Array(repeating: strategy, count: layers), tile: 1, stream: .single,
      origin: .estimated)
  }

  public var description: String {
    let source: String
    switch origin {
    case .measured(let milliseconds):
      source = "measured here in \(Int(milliseconds.rounded())) ms"
    case .cached(let path): source = "cached, \(path)"
    case .estimated: source = "estimated, nothing timed"
    }
    return """
      plan (\(source); kernels: \(InstructionSet.available))
        batch 1:        \(single.map(\.rawValue).joined(separator: ", "))
        batches:        \(batched.map(\.rawValue).joined(separator: ", ")); \(tile) \
      window\(tile == 1 ? "" : "s") a pass
        streaming step: \(stream.rawValue)-precision weights
      """
  }

  /// The plan as cache-file lines (`key=value`), after a `key` line naming what it is for.
  func encoded(key: String) -> String {
    [
      "key=\(key)", "single=\(single.map(\.rawValue).joined(separator: ","))",
      "batched=\(batched.map(\.rawValue).joined(separator: ","))", "tile=\(tile)",
      "stream=\(stream.rawValue)",
    ].joined(separator: "\n") + "\n"
  }

  /// A plan from `encoded(key:)`'s text, if it is for `key` and has `layers` layers; nil for
  /// anything else (a stale or damaged cache file is measured again, not trusted).
  static func decode(_ text: String, key: String, layers: Int, path: String) -> ExecutionPlan? {
    var fields: [Substring: Substring] = [:]
    for line in text.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { return nil }
      fields[line[..<equals]] = line[line.index(after: equals)...]
    }
    guard fields["key"].map(String.init) == key,
      let single = fields["single"].map(strategies),
      let batched = fields["batched"].map(strategies),
      single.count == layers, batched.count == layers, !single.contains(nil),
      !batched.contains(nil), let tile = fields["tile"].flatMap({ Int($0) }), tile >= 1,
      let stream = fields["stream"].flatMap({ WeightPrecision(rawValue: String($0)) })
    else { return nil }
    return ExecutionPlan(
      single: single.map { $0! }, batched: batched.map { $0! }, tile: tile, stream: stream,
      origin: .cached(path: path))
  }

  private static func strategies(_ text: Substring) -> [ConvolutionStrategy?] {
    text.split(separator: ",").map { ConvolutionStrategy(rawValue: String($0)) }
  }
}
