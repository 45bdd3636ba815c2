import Foundation

/// The keys each object of a definition file may hold, checked before the file is decoded.
///
/// The decoder drops a key it does not know without a word, so a typo (`min_rep_second`) or a
/// field in the wrong place (`hold_frames` at the top level, where only a stage takes it) would
/// change nothing and say nothing. An unknown key is an error instead, which says where it
/// belongs when it is a key of another object, else suggests the nearest known key.
///
/// The keys are the definition types' own `CodingKeys`, so the check cannot drift from what is
/// decoded.
indirect enum DefinitionKeys: Sendable {
  /// A value whose keys, if any, are not this check's: a number, a string, a list of them.
  case value
  /// An object: its keys, each with what its value holds.
  case object([String: DefinitionKeys])
  /// A list whose items all hold the same.
  case list(DefinitionKeys)

  /// A whole definition file: the common fields and both engines' own (a field of the other
  /// engine is refused when decoding, with its own message).
  static let definition = object(
    names(ExerciseDefinition.CodingKeys.self)
      + names(ExerciseDefinition.SignalCounting.CodingKeys.self)
      + names(ExerciseDefinition.StagedCounting.CodingKeys.self),
    nested: [
      "signal": signal, "thresholds": thresholds, "partial": partial, "cues": .list(cue),
      "anchors": object(names(ExerciseDefinition.Anchors.CodingKeys.self)),
      "alternatives": .list(alternative), "stages": .list(stage), "measure": signal,
    ])

  private static let signal = object(names(SignalSpec.CodingKeys.self))
  private static let thresholds = object(names(ExerciseDefinition.Thresholds.CodingKeys.self))
  private static let partial = object(names(ExerciseDefinition.PartialRule.CodingKeys.self))
  private static let cue = object(
    names(ExerciseDefinition.CueRule.CodingKeys.self), nested: ["signal": signal])
  private static let alternative = object(
    names(ExerciseDefinition.Alternative.CodingKeys.self),
    nested: [
      "signal": signal, "thresholds": thresholds, "partial": partial, "cues": .list(cue),
    ])
  private static let stage = object(
    names(ExerciseDefinition.Stage.CodingKeys.self),
    nested: ["any": .list(.list(object(names(ExerciseDefinition.Requirement.CodingKeys.self))))])

  private static func names<Keys: CodingKey & CaseIterable>(_: Keys.Type) -> [String] {
    Keys.allCases.map(\.stringValue)
  }

  /// An object of `names`, each a plain value unless `nested` says what it holds.
  private static func object(_ names: [String], nested: [String: DefinitionKeys] = [:])
    -> DefinitionKeys
  {
    precondition(Set(nested.keys).isSubset(of: names), "nested keys outside \(names)")
    return .object(Dictionary(names.map { ($0, nested[$0] ?? .value) }) { first, _ in first })
  }

  /// Checks the keys of `json`, parsed from a definition file, and of every object in it: an
  /// object's own keys before those of the objects it holds. A value of the wrong type is left
  /// to the decoder, which names it.
  ///
  /// - Parameter path: where `json` is, as errors name fields (`stages[1].any[0][0]`); empty at
  ///   the top level.
  /// - Throws: `DefinitionProblem` for the first unknown key, in key order.
  func check(_ json: Any, at path: String = "") throws(DefinitionProblem) {
    switch self {
    case .value:
      return
    case .list(let item):
      guard let items = json as? [Any] else { return }
      for (index, element) in items.enumerated() {
        try item.check(element, at: "\(path)[\(index)]")
      }
    case .object(let known):
      guard let object = json as? [String: Any] else { return }
      let keys = object.keys.sorted()
      func place(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
      if let unknown = keys.first(where: { known[$0] == nil }) {
        throw DefinitionProblem(place(unknown), Self.message(unknown, at: path, known: known))
      }
      for key in keys { try known[key]!.check(object[key]!, at: place(key)) }
    }
  }

  /// What is wrong with an unknown key and what would be right: where it belongs, if it is
  /// another object's key, else the nearest known key, else every known key.
  private static func message(_ key: String, at path: String, known: [String: DefinitionKeys])
    -> String
  {
    let found = "unknown key \"\(key)\" " + (path.isEmpty ? "at the top level" : "in \(path)")
    let elsewhere = definition.places(of: key, under: "").sorted {
      ($0.count, $0) < ($1.count, $1)
    }
    if !elsewhere.isEmpty {
      return found + "; it belongs at " + elsewhere.prefix(3).joined(separator: " or ")
    }
    if let nearest = nearest(to: key, among: known.keys) {
      return found + "; did you mean \"\(nearest)\"?"
    }
    return found + "; expected one of " + known.keys.sorted().joined(separator: ", ")
  }

  /// Every place `key` may go, lists' items as `[N]`: `stages[N].hold_frames`.
  private func places(of key: String, under path: String) -> [String] {
    switch self {
    case .value: return []
    case .list(let item): return item.places(of: key, under: path + "[N]")
    case .object(let known):
      return known.flatMap { name, inner in
        let place = path.isEmpty ? name : "\(path).\(name)"
        return (name == key ? [path.isEmpty ? "the top level" : place] : [])
          + inner.places(of: key, under: place)
      }
    }
  }

  /// The known key a typo most likely meant: at most two edits away, and at most half its
  /// length, so a short key is not suggested for anything at all.
  private static func nearest(to key: String, among known: some Collection<String>) -> String? {
    known.map { (name: $0, distance: editDistance(key, $0)) }
      .filter { $0.distance <= min(2, $0.name.count / 2) }
      .min { ($0.distance, $0.name) < ($1.distance, $1.name) }?.name
  }

  /// The fewest insertions, deletions, replacements and swaps of neighbours that turn `a` into
  /// `b` (optimal string alignment).
  private static func editDistance(_ a: String, _ b: String) -> Int {
    let (a, b) = (Array(a), Array(b))
    // distances[i][j]: between the first i characters of a and the first j of b.
    var distances = [[Int]](repeating: Array(0...b.count), count: a.count + 1)
    for i in 0...a.count { distances[i][0] = i }
    for i in a.indices {
      for j in b.indices {
        var best = min(
          distances[i][j + 1] + 1, distances[i + 1][j] + 1,
          distances[i][j] + (a[i] == b[j] ? 0 : 1))
        if i > 0, j > 0, a[i] == b[j - 1], a[i - 1] == b[j] {
          best = min(best, distances[i - 1][j - 1] + 1)
        }
        distances[i + 1][j + 1] = best
      }
    }
    return distances[a.count][b.count]
  }
}
