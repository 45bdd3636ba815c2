import Foundation

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
    let definition: ExerciseDefinition
    do {
      definition = try JSONDecoder().decode(ExerciseDefinition.self, from: data)
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
        throw DefinitionError(file: file, field: "", message: "is not valid JSON")
      }
      let key = context.codingPath.last?.stringValue ?? ""
      let allowed = allowedValues[key].map { "; expected one of \($0)" } ?? ""
      throw DefinitionError(
        file: file, field: field, message: "has a value that is not allowed\(allowed)")
    }
    try definition.validate(file: file)
    return definition
  }

  /// The words each enumerated field takes, for messages.
  private static let allowedValues: [String: String] = [
    "engine": "signal, staged", "direction": "down, up", "mode": "fixed, adaptive",
    "kind": "angle, vertical_offset, horizontal_offset, distance, inclination",
    "side": "left, right, mean, min, max, most_confident",
    "measure": "range, extreme, start, duration",
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

  /// Checks everything the types cannot: required pieces per engine, ranges, joint names.
  func validate(file: String) throws {
    func fail(_ field: String, _ message: String) -> DefinitionError {
      DefinitionError(file: file, field: field, message: message)
    }
    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
      throw fail("name", "must be letters, digits and underscores, got \"\(name)\"")
    }
    guard !label.isEmpty else { throw fail("label", "must not be empty") }
    guard (0...1).contains(minConfidence) else {
      throw fail("min_confidence", "must be in 0...1, got \(minConfidence)")
    }
    if let seconds = minRepSeconds, !(seconds >= 0 && seconds < 60) {
      throw fail("min_rep_seconds", "must be in 0..<60 seconds, got \(seconds)")
    }
    if let seconds = maxRepSeconds, !(seconds > (minRepSeconds ?? 0) && seconds <= 120) {
      throw fail(
        "max_rep_seconds", "must be above min_rep_seconds and at most 120 seconds, got \(seconds)")
    }
    if let anchors {
      guard !anchors.joints.isEmpty else {
        throw fail("anchors.joints", "must name at least one joint")
      }
      for (index, name) in anchors.joints.enumerated() where JointReference(name: name) == nil {
        throw fail(
          "anchors.joints[\(index)]",
          "unknown joint \"\(name)\"; expected \(JointReference.allowedNames)")
      }
      guard anchors.maxTravel > 0 && anchors.maxTravel <= 10 else {
        throw fail("anchors.max_travel", "must be in (0, 10] body sizes, got \(anchors.maxTravel)")
      }
    }
    switch engine {
    case .signal:
      guard let signal else { throw fail("signal", "is required for the signal engine") }
      try Self.check(signal, field: "signal", fail: fail)
      guard let smoothing else {
        throw fail("smoothing", "is required for the signal engine: 0 < smoothing ≤ 1")
      }
      guard smoothing > 0 && smoothing <= 1 else {
        throw fail("smoothing", "must be in (0, 1], got \(smoothing)")
      }
      guard let direction else {
        throw fail("direction", "is required for the signal engine: \"down\" or \"up\"")
      }
      guard let thresholds else { throw fail("thresholds", "is required for the signal engine") }
      switch thresholds.mode {
      case .fixed:
        guard let enter = thresholds.enter, let exit = thresholds.exit else {
          throw fail("thresholds", "fixed thresholds need both \"enter\" and \"exit\"")
        }
        if direction == .down && !(exit > enter) {
          throw fail(
            "thresholds.exit", "must be above enter (\(enter)) for direction down, got \(exit)")
        }
        if direction == .up && !(exit < enter) {
          throw fail(
            "thresholds.exit", "must be below enter (\(enter)) for direction up, got \(exit)")
        }
      case .adaptive:
        guard let minRange = thresholds.minRange, minRange > 0 else {
          throw fail("thresholds.min_range", "adaptive thresholds need min_range above 0")
        }
        if let fraction = thresholds.fraction, !(fraction > 0 && fraction <= 1) {
          throw fail("thresholds.fraction", "must be in (0, 1], got \(fraction)")
        }
        if let learn = thresholds.learnSeconds, !(learn >= 1 && learn <= 600) {
          throw fail("thresholds.learn_seconds", "must be in 1...600 seconds, got \(learn)")
        }
        if let share = thresholds.returnFraction, !(share > 0 && share <= 1) {
          throw fail("thresholds.return_fraction", "must be in (0, 1], got \(share)")
        }
        if let learned = thresholds.minRangeLearned, !(learned > 0 && learned <= minRange) {
          throw fail(
            "thresholds.min_range_learned",
            "must be above 0 and at most min_range (\(minRange)), got \(learned)")
        }
        if let partial, partial.minRange >= thresholds.minRangeLearned ?? minRange {
          throw fail(
            "partial.min_range",
            "must be below thresholds.min_range (\(minRange)) and min_range_learned, got \(partial.minRange)"
          )
        }
      }
      if let partial, partial.minRange <= 0 {
        throw fail("partial.min_range", "must be above 0, got \(partial.minRange)")
      }
      // Each alternative must make a valid definition of its own; its errors name it.
      for (index, alternative) in alternativeDefinitions.enumerated() {
        do {
          try alternative.validate(file: file)
        } catch let error as DefinitionError {
          throw fail("alternatives[\(index)].\(error.field)", error.message)
        }
      }
    case .staged:
      if alternatives != nil {
        throw fail("alternatives", "only the signal engine takes alternative signals")
      }
      guard let stages, stages.count >= 2 else {
        throw fail("stages", "the staged engine needs at least two stages")
      }
      for (index, stage) in stages.enumerated() {
        let field = "stages[\(index)]"
        guard !stage.any.isEmpty else {
          throw fail("\(field).any", "needs at least one alternative")
        }
        if let hold = stage.holdFrames, !(1...90).contains(hold) {
          throw fail("\(field).hold_frames", "must be in 1...90, got \(hold)")
        }
        for (alternative, requirements) in stage.any.enumerated() {
          guard !requirements.isEmpty else {
            throw fail("\(field).any[\(alternative)]", "needs at least one requirement")
          }
          for (number, requirement) in requirements.enumerated() {
            try Self.check(
              requirement, field: "\(field).any[\(alternative)][\(number)]", fail: fail)
          }
        }
      }
      if let cooldown = cooldownSeconds, !(cooldown >= 0 && cooldown < 30) {
        throw fail("cooldown_seconds", "must be in 0..<30 seconds, got \(cooldown)")
      }
      if let measure { try Self.check(measure, field: "measure", fail: fail) }
      if let smoothing, !(smoothing > 0 && smoothing <= 1) {
        throw fail("smoothing", "must be in (0, 1], got \(smoothing)")
      }
    }
    for (index, cue) in (cues ?? []).enumerated() {
      let field = "cues[\(index)]"
      guard !cue.message.isEmpty else { throw fail("\(field).message", "must not be empty") }
      guard cue.above != nil || cue.below != nil else {
        throw fail(field, "needs \"above\" or \"below\"")
      }
      if let signal = cue.signal { try Self.check(signal, field: "\(field).signal", fail: fail) }
      if engine == .staged, cue.signal == nil, measure == nil, cue.measure != .duration {
        throw fail(
          "\(field).signal",
          "a staged definition's cue needs a signal (or a top-level measure), except for duration")
      }
    }
  }

  private static func check(
    _ signal: SignalSpec, field: String, fail: (String, String) -> DefinitionError
  ) throws {
    if let relativeTo = signal.relativeTo {
      guard signal.kind == .inclination else {
        throw fail("\(field).relative_to", "is only for inclination")
      }
      guard relativeTo.count == 2 else {
        throw fail("\(field).relative_to", "needs two joints, the direction from the first")
      }
      for (index, name) in relativeTo.enumerated() where JointReference(name: name) == nil {
        throw fail(
          "\(field).relative_to[\(index)]",
          "unknown joint \"\(name)\"; expected \(JointReference.allowedNames)")
      }
    }
    switch signal.kind {
    case .angle:
      guard let joints = signal.joints, joints.count == 3 else {
        throw fail("\(field).joints", "an angle needs three joints, the angle at the second")
      }
      for (index, name) in joints.enumerated() where JointReference(name: name) == nil {
        throw fail(
          "\(field).joints[\(index)]",
          "unknown joint \"\(name)\"; expected \(JointReference.allowedNames)")
      }
    default:
      for (key, name) in [("from", signal.from), ("to", signal.to)] {
        guard let name else {
          throw fail("\(field).\(key)", "is required for \(signal.kind.rawValue)")
        }
        guard JointReference(name: name) != nil else {
          throw fail(
            "\(field).\(key)", "unknown joint \"\(name)\"; expected \(JointReference.allowedNames)")
        }
      }
    }
  }

  private static func check(
    _ requirement: Requirement, field: String, fail: (String, String) -> DefinitionError
  ) throws {
    let names: [String]
    let limit: Double
    switch (requirement.angle, requirement.orientation) {
    case (let angle?, nil):
      guard angle.count == 3 else {
        throw fail("\(field).angle", "needs three joints, the angle at the second")
      }
      names = angle
      limit = 180
    case (nil, let orientation?):
      guard orientation.count == 2 else {
        throw fail("\(field).orientation", "needs two joints, from and to")
      }
      names = orientation
      limit = 360
    default:
      throw fail(
        field, "needs exactly one of \"angle\" (three joints) or \"orientation\" (two joints)")
    }
    for name in names {
      guard let reference = JointReference(name: name) else {
        throw fail(field, "unknown joint \"\(name)\"; expected \(JointReference.allowedNames)")
      }
      if reference.isSided {
        throw fail(
          field,
          "\"\(name)\" has no side; stages name left_ or right_ joints (or a _centre), and OR the two sides as alternatives"
        )
      }
    }
    guard requirement.range.count == 2, requirement.range.allSatisfy({ (0...limit).contains($0) })
    else {
      throw fail(
        "\(field).range",
        "must be [minimum, maximum] within 0...\(Int(limit))°, got \(requirement.range)")
    }
    if requirement.angle != nil, requirement.range[0] > requirement.range[1] {
      throw fail(
        "\(field).range",
        "an angle range cannot wrap (only orientations pass through 0°): \(requirement.range)")
    }
  }
}
