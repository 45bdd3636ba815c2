import Foundation
import Poses

/// A definition file that cannot be used: the file, the field and what is allowed.
public struct DefinitionError: Error, Equatable, Sendable, CustomStringConvertible {
  public var file: String
  public var field: String
  public var message: String
  public var description: String {
    field.isEmpty ? "\(file): \(message)" : "\(file): \(field): \(message)"
  }
}

extension ExerciseDefinition {
  /// Reads and checks one definition file.
  public static func load(_ path: String) throws -> ExerciseDefinition {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw DefinitionError(file: path, field: "", message: "cannot read the file")
    }
    return try decode(data, file: path)
  }

  /// Parses and checks a definition; `file` names it in errors.
  public static func decode(_ data: Data, file: String) throws -> ExerciseDefinition {
    do {
      // Unknown keys first: a misspelt key is often why a required one seems to be missing.
      if let json = try? JSONSerialization.jsonObject(with: data) {
        try DefinitionKeys.definition.check(json)
      }
      let definition = try JSONDecoder().decode(ExerciseDefinition.self, from: data)
      try definition.validate()
      return definition
    } catch let problem as DefinitionProblem {
      throw DefinitionError(file: file, field: problem.field, message: problem.message)
    } catch let DecodingError.keyNotFound(key, context) {
      throw DefinitionError(
        file: file, field: path(context.codingPath + [key]), message: "is required")
    } catch let DecodingError.typeMismatch(type, context) {
      throw DefinitionError(
        file: file, field: path(context.codingPath), message: "must be \(describe(type))")
    } catch let DecodingError.valueNotFound(type, context) {
      throw DefinitionError(
        file: file, field: path(context.codingPath), message: "must be \(describe(type)), not null")
    } catch let DecodingError.dataCorrupted(context) {
      let field = path(context.codingPath)
      guard !context.codingPath.isEmpty else {
        let place = JSONSyntax.errorPlace(in: data).map { " at \($0)" } ?? ""
        throw DefinitionError(file: file, field: "", message: "is not valid JSON\(place)")
      }
      let key = context.codingPath.last?.stringValue ?? ""
      let allowed = allowedValues[key].map { "; expected one of \($0)" } ?? ""
      throw DefinitionError(
        file: file, field: field, message: "has a value that is not allowed\(allowed)")
    }
  }

  /// The words each enumerated field takes, for messages.
  private static let allowedValues: [String: String] = [
    "engine": "signal, staged", "direction": "down, up", "mode": "fixed, adaptive",
    "kind": "angle, vertical_offset, horizontal_offset, distance, inclination",
    "side": "left, right, mean, min, max, most_confident",
    "measure": "range, extreme, start, duration",
    "range_joint": "knee, hip, elbow, shoulder",
  ]

  private static func path(_ keys: [any CodingKey]) -> String {
    keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }
      .description
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Double.Type, is Int.Type: "a number"
    case is Bool.Type: "true or false"
    default: "\(type)".contains("Array") ? "a list" : "one of the allowed values"
    }
  }

  /// Checks everything the types cannot: ranges, joint names, what each engine needs. Each
  /// piece checks itself; a problem names its field from here.
  func validate() throws(DefinitionProblem) {
    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
      throw DefinitionProblem("name", "must be letters, digits and underscores, got \"\(name)\"")
    }
    guard !label.isEmpty else { throw DefinitionProblem("label", "must not be empty") }
    guard (0...1).contains(minConfidence) else {
      throw DefinitionProblem("min_confidence", "must be in 0...1, got \(minConfidence)")
    }
    if let seconds = minRepSeconds, !(seconds >= 0 && seconds < 60) {
      throw DefinitionProblem("min_rep_seconds", "must be in 0..<60 seconds, got \(seconds)")
    }
    if let seconds = maxRepSeconds, !(seconds > (minRepSeconds ?? 0) && seconds <= 120) {
      throw DefinitionProblem(
        "max_rep_seconds", "must be above min_rep_seconds and at most 120 seconds, got \(seconds)")
    }
    if let anchors {
      try named("anchors") { () throws(DefinitionProblem) in try anchors.validate() }
    }
    for (index, other) in (looksLike ?? []).enumerated() where other.isEmpty || other == label {
      throw DefinitionProblem(
        "looks_like[\(index)]", "must name another exercise's label, got \"\(other)\"")
    }
    if let partial, partial.minRange <= 0 {
      throw DefinitionProblem("partial.min_range", "must be above 0, got \(partial.minRange)")
    }
    switch counting {
    case .signal(let part):
      try part.validate(partial: partial)
      // Each alternative must make a valid definition of its own; its errors name it.
      for (index, alternative) in alternativeDefinitions.enumerated() {
        try named("alternatives[\(index)]") { () throws(DefinitionProblem) in
          try alternative.validate()
        }
      }
    case .staged(let part): try part.validate()
    }
    for (index, cue) in (cues ?? []).enumerated() {
      try named("cues[\(index)]") { () throws(DefinitionProblem) in
        try cue.validate(staged: stagedCounting)
      }
    }
  }
}

/// A problem with one field of a definition, named from where it was found; `decode` adds the
/// file.
struct DefinitionProblem: Error {
  var field: String
  var message: String

  init(_ field: String, _ message: String) {
    self.field = field
    self.message = message
  }
}

/// Runs a piece's check and names its problem from one level up (`anchors` + `joints[1]`).
func named(
  _ parent: String, _ check: () throws(DefinitionProblem) -> Void
) throws(DefinitionProblem) {
  do {
    try check()
  } catch {
    throw DefinitionProblem(
      error.field.isEmpty ? parent : parent + "." + error.field, error.message)
  }
}

extension ExerciseDefinition.Anchors {
  func validate() throws(DefinitionProblem) {
    guard !joints.isEmpty else { throw DefinitionProblem("joints", "must name at least one joint") }
    for (index, name) in joints.enumerated() {
      try JointReference.check(name, field: "joints[\(index)]")
    }
    guard maxTravel > 0 && maxTravel <= 10 else {
      throw DefinitionProblem("max_travel", "must be in (0, 10] body sizes, got \(maxTravel)")
    }
  }
}

extension ExerciseDefinition.SignalCounting {
  func validate(partial: ExerciseDefinition.PartialRule?) throws(DefinitionProblem) {
    try named("signal") { () throws(DefinitionProblem) in try signal.validate() }
    guard smoothing > 0 && smoothing <= 1 else {
      throw DefinitionProblem("smoothing", "must be in (0, 1], got \(smoothing)")
    }
    if let medianFrames, !(medianFrames % 2 == 1 && (1...15).contains(medianFrames)) {
      throw DefinitionProblem("median_frames", "must be odd, 1 to 15, got \(medianFrames)")
    }
    try named("thresholds") { () throws(DefinitionProblem) in
      try thresholds.validate(direction: direction)
    }
    if thresholds.mode == .adaptive, let partial,
      let floor = thresholds.minRangeLearned ?? thresholds.minRange, partial.minRange >= floor
    {
      throw DefinitionProblem(
        "partial.min_range",
        "must be below thresholds.min_range (\(thresholds.minRange!)) and min_range_learned, "
          + "got \(partial.minRange)"
      )
    }
  }
}

extension ExerciseDefinition.Thresholds {
  func validate(direction: ExerciseDefinition.Direction) throws(DefinitionProblem) {
    switch mode {
    case .fixed:
      guard let enter, let exit else {
        throw DefinitionProblem("", "fixed thresholds need both \"enter\" and \"exit\"")
      }
      if direction == .down && !(exit > enter) {
        throw DefinitionProblem(
          "exit", "must be above enter (\(enter)) for direction down, got \(exit)")
      }
      if direction == .up && !(exit < enter) {
        throw DefinitionProblem(
          "exit", "must be below enter (\(enter)) for direction up, got \(exit)")
      }
    case .adaptive:
      guard let minRange, minRange > 0 else {
        throw DefinitionProblem("min_range", "adaptive thresholds need min_range above 0")
      }
      if let fraction, !(fraction > 0 && fraction <= 1) {
        throw DefinitionProblem("fraction", "must be in (0, 1], got \(fraction)")
      }
      if let countFraction, !(countFraction > 0 && countFraction <= (fraction ?? 0.5)) {
        throw DefinitionProblem(
          "count_fraction",
          "must be above 0 and at most fraction (\(fraction ?? 0.5)), got \(countFraction)")
      }
      if let learnSeconds, !(learnSeconds >= 1 && learnSeconds <= 600) {
        throw DefinitionProblem("learn_seconds", "must be in 1...600 seconds, got \(learnSeconds)")
      }
      if let returnFraction, !(returnFraction > 0 && returnFraction <= 1) {
        throw DefinitionProblem("return_fraction", "must be in (0, 1], got \(returnFraction)")
      }
      if let noiseMultiple, !(noiseMultiple >= 0 && noiseMultiple <= 100) {
        throw DefinitionProblem("noise_multiple", "must be in 0...100, got \(noiseMultiple)")
      }
      if let minRangeLearned, !(minRangeLearned > 0 && minRangeLearned <= minRange) {
        throw DefinitionProblem(
          "min_range_learned",
          "must be above 0 and at most min_range (\(minRange)), got \(minRangeLearned)")
      }
      if let minRangeRhythm, !(minRangeRhythm > 0 && minRangeRhythm <= minRange) {
        throw DefinitionProblem(
          "min_range_rhythm",
          "must be above 0 and at most min_range (\(minRange)), got \(minRangeRhythm)")
      }
    }
  }
}

extension ExerciseDefinition.StagedCounting {
  func validate() throws(DefinitionProblem) {
    guard stages.count >= 2 else {
      throw DefinitionProblem("stages", "the staged engine needs at least two stages")
    }
    for (index, stage) in stages.enumerated() {
      try named("stages[\(index)]") { () throws(DefinitionProblem) in try stage.validate() }
    }
    // A stage that requires what the one before it does is no new position: the engine would
    // step from one to the other standing still, and with two stages count reps so.
    for index in stages.indices {
      let next = (index + 1) % stages.count
      guard stages[index].any == stages[next].any else { continue }
      let (later, earlier) = next == 0 ? (index, 0) : (next, index)
      let relation = next == 0 ? ", which comes after it in the cycle" : ", the stage before it"
      throw DefinitionProblem(
        "stages[\(later)]",
        "requires the same as stages[\(earlier)]\(relation): the cycle would step on without "
          + "any movement (hold_frames holds a stage longer)")
    }
    if let cooldownSeconds, !(cooldownSeconds >= 0 && cooldownSeconds < 30) {
      throw DefinitionProblem(
        "cooldown_seconds", "must be in 0..<30 seconds, got \(cooldownSeconds)")
    }
    if let measure {
      try named("measure") { () throws(DefinitionProblem) in try measure.validate() }
    }
    if let smoothing, !(smoothing > 0 && smoothing <= 1) {
      throw DefinitionProblem("smoothing", "must be in (0, 1], got \(smoothing)")
    }
  }
}

extension ExerciseDefinition.Stage {
  func validate() throws(DefinitionProblem) {
    guard !any.isEmpty else { throw DefinitionProblem("any", "needs at least one alternative") }
    if let holdFrames, !(1...90).contains(holdFrames) {
      throw DefinitionProblem("hold_frames", "must be in 1...90, got \(holdFrames)")
    }
    for (alternative, requirements) in any.enumerated() {
      guard !requirements.isEmpty else {
        throw DefinitionProblem("any[\(alternative)]", "needs at least one requirement")
      }
      for (number, requirement) in requirements.enumerated() {
        try named("any[\(alternative)][\(number)]") { () throws(DefinitionProblem) in
          try requirement.validate()
        }
      }
    }
  }
}

extension ExerciseDefinition.Requirement {
  func validate() throws(DefinitionProblem) {
    let names: [String]
    let limit: Double
    switch (angle, orientation) {
    case (let angle?, nil):
      guard angle.count == 3 else {
        throw DefinitionProblem("angle", "needs three joints, the angle at the second")
      }
      (names, limit) = (angle, 180)
    case (nil, let orientation?):
      guard orientation.count == 2 else {
        throw DefinitionProblem("orientation", "needs two joints, from and to")
      }
      (names, limit) = (orientation, 360)
    default:
      throw DefinitionProblem(
        "", "needs exactly one of \"angle\" (three joints) or \"orientation\" (two joints)")
    }
    for name in names {
      try JointReference.check(name, field: "")
      if JointReference(name: name)!.isSided {
        throw DefinitionProblem(
          "",
          "\"\(name)\" has no side; stages name left_ or right_ joints (or a _centre), and OR "
            + "the two sides as alternatives"
        )
      }
    }
    try JointReference.checkDifferent(
      names, field: angle != nil ? "angle" : "orientation",
      need: angle != nil
        ? "an angle needs three different joints" : "an orientation needs two different joints")
    guard range.count == 2, range.allSatisfy({ (0...limit).contains($0) }) else {
      throw DefinitionProblem(
        "range", "must be [minimum, maximum] within 0...\(Int(limit))°, got \(range)")
    }
    if angle != nil, range[0] > range[1] {
      throw DefinitionProblem(
        "range", "an angle range cannot wrap (only orientations pass through 0°): \(range)")
    }
  }
}

extension ExerciseDefinition.CueRule {
  /// - Parameter staged: the staged engine's part, when that is the engine: its cues need a
  ///   signal (or the definition's measure) except for duration.
  func validate(staged: ExerciseDefinition.StagedCounting?) throws(DefinitionProblem) {
    guard !message.isEmpty else { throw DefinitionProblem("message", "must not be empty") }
    guard above != nil || below != nil else {
      throw DefinitionProblem("", "needs \"above\" or \"below\"")
    }
    if let signal { try named("signal") { () throws(DefinitionProblem) in try signal.validate() } }
    if let staged, signal == nil, staged.measure == nil, measure != .duration {
      throw DefinitionProblem(
        "signal",
        "a staged definition's cue needs a signal (or a top-level measure), except for duration")
    }
  }
}

extension SignalSpec {
  func validate() throws(DefinitionProblem) {
    if let relativeTo {
      guard kind == .inclination else {
        throw DefinitionProblem("relative_to", "is only for inclination")
      }
      guard relativeTo.count == 2 else {
        throw DefinitionProblem("relative_to", "needs two joints, the direction from the first")
      }
      for (index, name) in relativeTo.enumerated() {
        try JointReference.check(name, field: "relative_to[\(index)]")
      }
      try JointReference.checkDifferent(
        relativeTo, field: "relative_to", need: "a direction needs two different joints")
    }
    switch kind {
    case .angle:
      guard let joints, joints.count == 3 else {
        throw DefinitionProblem("joints", "an angle needs three joints, the angle at the second")
      }
      for (index, name) in joints.enumerated() {
        try JointReference.check(name, field: "joints[\(index)]")
      }
      try JointReference.checkDifferent(
        joints, field: "joints", need: "an angle needs three different joints")
    default:
      for (key, name) in [("from", from), ("to", to)] {
        guard let name else { throw DefinitionProblem(key, "is required for \(kind.rawValue)") }
        try JointReference.check(name, field: key)
      }
      if let from, let to, JointReference(name: from) == JointReference(name: to) {
        throw DefinitionProblem(
          "to", "is \"\(to)\", as is from; a \(kind.rawValue) needs two different joints")
      }
    }
  }
}

extension JointReference {
  /// A joint name a definition may use, or the problem that names the field.
  static func check(_ name: String, field: String) throws(DefinitionProblem) {
    guard JointReference(name: name) == nil else { return }
    throw DefinitionProblem(field, "unknown joint \"\(name)\"; expected \(allowedNames)")
  }

  /// Joints that must differ, as an angle's three do: two the same measure nothing (an angle
  /// with a zero-length arm, a direction from a point to itself).
  ///
  /// - Parameter names: joint names already checked.
  static func checkDifferent(_ names: [String], field: String, need: String)
    throws(DefinitionProblem)
  {
    let references = names.map { JointReference(name: $0)! }
    for index in references.indices where references[..<index].contains(references[index]) {
      throw DefinitionProblem(field, "names \"\(names[index])\" more than once; \(need)")
    }
  }
}
