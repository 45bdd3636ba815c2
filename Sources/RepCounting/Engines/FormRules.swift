import Poses

/// The form rules of a definition, measured over each rep: the signals they read and what each
/// rep showed. The failed rule with the lowest priority number gives the rep's one cue.
struct FormRules {
  private let rules: [ExerciseDefinition.CueRule]
  /// One reader per rule with a signal of its own; nil where the rule reads the main signal.
  private var readers: [SignalReader?]
  /// Per rule: the lowest, highest and first value seen in the current rep.
  private var lows: [Double]
  private var highs: [Double]
  private var firsts: [Double?]
  private let direction: ExerciseDefinition.Direction

  init(_ definition: ExerciseDefinition, direction: ExerciseDefinition.Direction) {
    rules = (definition.cues ?? []).sorted { $0.priority < $1.priority }
    readers = rules.map { rule in
      rule.signal.map { SignalReader(spec: $0, references: ExerciseCatalogue.references(of: $0)) }
    }
    lows = Array(repeating: .infinity, count: rules.count)
    highs = Array(repeating: -.infinity, count: rules.count)
    firsts = Array(repeating: nil, count: rules.count)
    self.direction = direction
  }

  /// Starts measuring a new rep.
  mutating func beginRep() {
    for index in rules.indices {
      lows[index] = .infinity
      highs[index] = -.infinity
      firsts[index] = nil
    }
  }

  /// Measures one frame of the current rep: rules with their own signal read the pose, the
  /// others take `main`, the definition's own signal value.
  mutating func observe(_ pose: Pose, main: Double?, bodySize: Float, minConfidence: Float) {
    for index in rules.indices {
      let value =
        readers[index] == nil
        ? main : readers[index]!.value(pose, bodySize: bodySize, minConfidence: minConfidence)
      guard let value else { continue }
      lows[index] = min(lows[index], value)
      highs[index] = max(highs[index], value)
      if firsts[index] == nil { firsts[index] = value }
    }
  }

  /// The cue for a finished rep, if any rule failed. Rules on the main signal use what the
  /// engine measured: where the rep started, its farthest point, its range.
  func cue(duration: Double, start: Double?, extreme: Double?, range: Double?) -> String? {
    for (index, rule) in rules.enumerated() {
      let own = readers[index] != nil
      let value: Double
      switch rule.measure {
      case .duration: value = duration
      case .range:
        guard
          let measured = own
            ? (highs[index] >= lows[index] ? highs[index] - lows[index] : nil) : range
        else { continue }
        value = measured
      case .extreme:
        guard
          let measured = own
            ? (highs[index] >= lows[index]
              ? (direction == .down ? lows[index] : highs[index]) : nil) : extreme
        else { continue }
        value = measured
      case .start:
        guard let measured = own ? firsts[index] : start else { continue }
        value = measured
      }
      if let above = rule.above, value > above { return rule.message }
      if let below = rule.below, value < below { return rule.message }
    }
    return nil
  }
}
