/// What makes an exercise that exercise, for counting: data, not code
/// (Sources/RepCounting/README.md).
///
/// Definitions are JSON files, documented with a full example in `RepCounting/README.md`. Every
/// file is checked on load (`ExerciseDefinition.validate`), and errors name the file, the field and
/// what is allowed.
public struct ExerciseDefinition: Codable, Equatable, Sendable {
  /// Unique name, e.g. `squat` or `front_push_up`.
  public var name: String
  /// The classifier label this definition counts (README, "Labels").
  public var label: String
  /// Whether the runtime uses this definition for its label (one per label).
  public var isDefault: Bool?
  public var description: String?
  /// How reps are found: a signal with thresholds, or a cycle of stages. The file's `engine`.
  public var counting: Counting
  /// Joints below this confidence do not count; the engine holds its state until they return.
  public var minConfidence: Double
  public var minRepSeconds: Double?
  /// The longest a rep may take (8 s unless given): slower changes are drift, not reps.
  public var maxRepSeconds: Double?
  public var tooFastCue: String?
  /// Count only full reps (`fraction` of the typical range): shallow ones are refused as
  /// partial. Off unless given; `--strict` turns it on for every definition.
  public var strict: Bool?
  /// Shallow reps: the cue they get, and the least movement worth a word.
  public var partial: PartialRule?
  /// Form rules: at most one cue per rep, the failed rule with the lowest priority number.
  public var cues: [CueRule]?
  /// Joints that stay put through a rep, whatever the engine.
  public var anchors: Anchors?
  /// The joint whose angle each rep reports in degrees, per side (`knee` for a squat).
  public var rangeJoint: JointAngle?
  /// Labels of exercises that look like this one from some cameras (`looks_like`): a sit-up
  /// filmed from the side looks like a bench press. When the classifier hesitates between the
  /// two, the one whose engine sees its movement in the recent frames starts.
  public var looksLike: [String]?

  public enum Engine: String, Codable, Sendable { case signal, staged }

  /// The engine and what only it needs.
  public enum Counting: Equatable, Sendable {
    case signal(SignalCounting)
    case staged(StagedCounting)
  }

  /// The signal engine: one scalar per frame, smoothed, counted with hysteresis.
  public struct SignalCounting: Codable, Equatable, Sendable {
    public var signal: SignalSpec
    /// The EMA's weight of each new value, in (0, 1].
    public var smoothing: Double
    /// The raw values go through a median of this many frames before the EMA (odd, 1…15; 7
    /// unless given): spikes of up to half as many frames cannot make or break a rep.
    public var medianFrames: Int?
    public var direction: Direction
    /// `median_frames` with its default.
    public var medianLength: Int { medianFrames ?? 7 }
    public var thresholds: Thresholds
    /// More signals for the same movement, for cameras from which the main one is blind. Each
    /// counts on its own; the exercise's count is the highest of their counts.
    public var alternatives: [Alternative] = []
  }

  /// The staged engine: an ordered cycle of stages, a rep when it completes.
  public struct StagedCounting: Codable, Equatable, Sendable {
    public var stages: [Stage]
    /// The least time between two reps; a quicker one is cued as too fast.
    public var cooldownSeconds: Double?
    /// What to measure of a rep for its range of motion (degrees).
    public var measure: SignalSpec?
    /// Joints eased by this EMA weight before the stages read them (1: not smoothed).
    public var smoothing: Double?
  }

  public var engine: Engine {
    switch counting {
    case .signal: .signal
    case .staged: .staged
    }
  }

  /// The signal engine's part, if that is the engine.
  public var signalCounting: SignalCounting? {
    get {
      if case .signal(let part) = counting { part } else { nil }
    }
    set {
      if let newValue { counting = .signal(newValue) }
    }
  }

  /// The staged engine's part, if that is the engine.
  public var stagedCounting: StagedCounting? {
    if case .staged(let part) = counting { part } else { nil }
  }

  /// Which way a rep moves the signal first: `down` (a squat's hip height) or `up` (a curl's
  /// wrist height). The rep completes when the signal comes back.
  public enum Direction: String, Codable, Sendable { case down, up }

  public struct Thresholds: Codable, Equatable, Sendable {
    public enum Mode: String, Codable, Sendable { case fixed, adaptive }
    public var mode: Mode
    /// Fixed: the rep starts past `enter` and completes back past `exit`.
    public var enter: Double?
    public var exit: Double?
    /// Adaptive: the least movement that can be a rep, in the signal's units.
    public var minRange: Double?
    /// Adaptive: the least once the person's own full reps are known (`min_range` unless
    /// given). Walking into position or standing still with a noisy detector never makes
    /// those, so a lower floor after them counts small-looking reps (a knee raised towards a
    /// camera above) without counting walks and jitter.
    public var minRangeLearned: Double?
    /// Adaptive: the least swing of a rhythm (the cadence the engine finds) that is a set
    /// before the thresholds alone have counted any rep of it (`min_range_learned` unless
    /// given): a steady set of reps each short of `min_range`. Walking is a rhythm too (arms
    /// swing, knees lift a little): raise it where a walk's swing reaches it.
    public var minRangeRhythm: Double?
    /// Adaptive: a full rep moves at least this share of the person's recent typical full
    /// range (default 0.5); a shallower one counts, flagged partial (strict counting refuses it).
    public var fraction: Double?
    /// Adaptive: within a set, a movement of at least this share of the recent typical range
    /// (default 0.45, or `fraction` if lower), and `min_range_learned`, is a rep: shallow reps
    /// count. A lower share counts junk motion in untrimmed real videos (a detector losing the
    /// body, leg wobble, arm swings before a set), and 0.45 counts synthetic sets of shallow
    /// reps about as well as 0.4 (`Sources/RepCounting/README.md`, "Why these numbers").
    public var countFraction: Double?
    /// Adaptive: a rep is complete once the signal is back by this share of its own way down,
    /// if that is less than the movement required to start one (default 1). For a signal
    /// whose resting level is itself an estimate (`absolute`), which a rep can leave short.
    public var returnFraction: Double?
    /// Adaptive: how far back the typical range looks, in seconds.
    public var learnSeconds: Double?
    /// Adaptive: no rep, and no refusal, moves less than this many times the jitter
    /// measured in the signal, capped at `min_range` (default 16; 0: no noise floor).
    public var noiseMultiple: Double?

    /// `fraction` with its default.
    public var fullFraction: Double { fraction ?? 0.5 }
    /// `count_fraction` with its default: 0.45, or `fraction` if lower.
    public var repFraction: Double { countFraction ?? min(0.45, fullFraction) }
    /// `noise_multiple` with its default.
    public var jitterMultiple: Double { noiseMultiple ?? 16 }
  }

  /// Joints that stay where they are through every rep (the hands of a push-up, the feet of a
  /// squat). One seen more than `maxTravel` body sizes from its place for a few frames in a row
  /// means the person is getting into position or walking about: the rep under way is dropped
  /// and counting starts afresh (`AnchorTracker`).
  public struct Anchors: Codable, Equatable, Sendable {
    public var joints: [String]
    public var maxTravel: Double
  }

  /// Another signal for the same movement, with what depends on its units: a thigh raised
  /// towards a camera in front barely changes the knee's height in the picture, but seen from
  /// the side or at an angle the thigh's lean shows it plainly. Everything else (confidence,
  /// rep durations, anchors) is the definition's own.
  public struct Alternative: Codable, Equatable, Sendable {
    public var signal: SignalSpec
    public var direction: Direction
    public var thresholds: Thresholds
    /// The definition's smoothing unless given.
    public var smoothing: Double?
    public var partial: PartialRule?
    public var cues: [CueRule]?
  }

  /// Each alternative as signal counting of its own: its signal, direction, thresholds and
  /// smoothing (the main signal's unless given).
  public var alternativeCountings: [SignalCounting] {
    guard let main = signalCounting else { return [] }
    return main.alternatives.map {
      SignalCounting(
        signal: $0.signal, smoothing: $0.smoothing ?? main.smoothing,
        medianFrames: main.medianFrames, direction: $0.direction, thresholds: $0.thresholds)
    }
  }

  /// Each alternative as a definition of its own: this one with the alternative's signal
  /// counting, partial rule and cues (none unless given: they are in the main signal's units).
  public var alternativeDefinitions: [ExerciseDefinition] {
    zip(signalCounting?.alternatives ?? [], alternativeCountings).map { alternative, counting in
      var definition = self
      definition.counting = .signal(counting)
      definition.partial = alternative.partial
      definition.cues = alternative.cues
      return definition
    }
  }

  /// Every signal the definition's engine reads to count: the main signal and its
  /// alternatives, or a staged definition's measure.
  public var countingSignals: [SignalSpec] {
    switch counting {
    case .signal(let part): [part.signal] + part.alternatives.map(\.signal)
    case .staged(let part): part.measure.map { [$0] } ?? []
    }
  }

  /// Shallow reps: `cue` is said on a counted partial rep and on a movement refused as too
  /// small; `min_range` is the least movement (in the signal's units) that is mentioned at all,
  /// below which it is jitter or fidgeting.
  public struct PartialRule: Codable, Equatable, Sendable {
    public var minRange: Double
    public var cue: String
  }

  public struct Stage: Codable, Equatable, Sendable {
    public var name: String
    /// Alternatives, OR'd; each a list of requirements, AND'ed.
    public var any: [[Requirement]]
    /// Frames the stage must hold before it counts as reached (default 2).
    public var holdFrames: Int?
  }

  /// A joint angle (three joints, 0–180°) or a segment's orientation (two joints, 0–360°
  /// clockwise from image-up) within a range; a range whose minimum is above its maximum wraps
  /// through 0°.
  public struct Requirement: Codable, Equatable, Sendable {
    public var angle: [String]?
    public var orientation: [String]?
    public var range: [Double]
  }

  public struct CueRule: Codable, Equatable, Sendable {
    public enum Measure: String, Codable, Sendable {
      /// How far the signal moved in the rep.
      case range
      /// The farthest point of the rep (the lowest for `down`, the highest for `up`).
      case extreme
      /// Where the rep started and ended (the top for `down`).
      case start
      /// Seconds.
      case duration
    }
    public var message: String
    public var priority: Int
    public var measure: Measure
    /// Measured on this signal instead of the main one (e.g. elbow drift during a curl).
    public var signal: SignalSpec?
    public var above: Double?
    public var below: Double?
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case name, label, description, engine, partial, cues, anchors, strict
    case rangeJoint = "range_joint"
    case looksLike = "looks_like"
    case isDefault = "default"
    case minConfidence = "min_confidence"
    case minRepSeconds = "min_rep_seconds"
    case maxRepSeconds = "max_rep_seconds"
    case tooFastCue = "too_fast_cue"
  }
}

extension ExerciseDefinition.SignalCounting {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case signal, smoothing, direction, thresholds, alternatives
    case medianFrames = "median_frames"
  }

  /// Reads the signal engine's fields from the definition's own object; a missing one is named
  /// as required for this engine.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func required<T: Decodable>(_ key: CodingKeys, _ what: String) throws -> T {
      guard container.contains(key) else {
        throw DefinitionProblem(key.stringValue, what)
      }
      return try container.decode(T.self, forKey: key)
    }
    signal = try required(.signal, "is required for the signal engine")
    smoothing = try required(.smoothing, "is required for the signal engine: 0 < smoothing ≤ 1")
    medianFrames = try container.decodeIfPresent(Int.self, forKey: .medianFrames)
    direction = try required(.direction, "is required for the signal engine: \"down\" or \"up\"")
    thresholds = try required(.thresholds, "is required for the signal engine")
    alternatives =
      try container.decodeIfPresent(
        [ExerciseDefinition.Alternative].self, forKey: .alternatives) ?? []
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(signal, forKey: .signal)
    try container.encode(smoothing, forKey: .smoothing)
    try container.encodeIfPresent(medianFrames, forKey: .medianFrames)
    try container.encode(direction, forKey: .direction)
    try container.encode(thresholds, forKey: .thresholds)
    if !alternatives.isEmpty { try container.encode(alternatives, forKey: .alternatives) }
  }
}

extension ExerciseDefinition.StagedCounting {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case stages, measure, smoothing
    case cooldownSeconds = "cooldown_seconds"
  }
}

extension ExerciseDefinition {
  /// The file is one flat object: the common fields, `engine`, and that engine's own fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    label = try container.decode(String.self, forKey: .label)
    isDefault = try container.decodeIfPresent(Bool.self, forKey: .isDefault)
    description = try container.decodeIfPresent(String.self, forKey: .description)
    minConfidence = try container.decode(Double.self, forKey: .minConfidence)
    minRepSeconds = try container.decodeIfPresent(Double.self, forKey: .minRepSeconds)
    maxRepSeconds = try container.decodeIfPresent(Double.self, forKey: .maxRepSeconds)
    tooFastCue = try container.decodeIfPresent(String.self, forKey: .tooFastCue)
    strict = try container.decodeIfPresent(Bool.self, forKey: .strict)
    partial = try container.decodeIfPresent(PartialRule.self, forKey: .partial)
    cues = try container.decodeIfPresent([CueRule].self, forKey: .cues)
    anchors = try container.decodeIfPresent(Anchors.self, forKey: .anchors)
    rangeJoint = try container.decodeIfPresent(JointAngle.self, forKey: .rangeJoint)
    looksLike = try container.decodeIfPresent([String].self, forKey: .looksLike)
    switch try container.decode(Engine.self, forKey: .engine) {
    case .signal:
      try Self.refuse(StagedCounting.CodingKeys.self, in: decoder, engine: .signal)
      counting = .signal(try SignalCounting(from: decoder))
    case .staged:
      try Self.refuse(SignalCounting.CodingKeys.self, in: decoder, engine: .staged)
      counting = .staged(try StagedCounting(from: decoder))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(label, forKey: .label)
    try container.encodeIfPresent(isDefault, forKey: .isDefault)
    try container.encodeIfPresent(description, forKey: .description)
    try container.encode(engine, forKey: .engine)
    try container.encode(minConfidence, forKey: .minConfidence)
    try container.encodeIfPresent(minRepSeconds, forKey: .minRepSeconds)
    try container.encodeIfPresent(maxRepSeconds, forKey: .maxRepSeconds)
    try container.encodeIfPresent(tooFastCue, forKey: .tooFastCue)
    try container.encodeIfPresent(strict, forKey: .strict)
    try container.encodeIfPresent(partial, forKey: .partial)
    try container.encodeIfPresent(cues, forKey: .cues)
    try container.encodeIfPresent(anchors, forKey: .anchors)
    try container.encodeIfPresent(rangeJoint, forKey: .rangeJoint)
    try container.encodeIfPresent(looksLike, forKey: .looksLike)
    switch counting {
    case .signal(let part): try part.encode(to: encoder)
    case .staged(let part): try part.encode(to: encoder)
    }
  }

  /// The other engine's fields are mistakes, not options: named, not ignored.
  private static func refuse<Keys: CodingKey & CaseIterable>(
    _ keys: Keys.Type, in decoder: any Decoder, engine: Engine
  ) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    for key in Keys.allCases where container.contains(key) {
      let message =
        key.stringValue == "alternatives"
        ? "only the signal engine takes alternative signals"
        : "is not a field of the \(engine.rawValue) engine"
      if key.stringValue == "smoothing" { continue }  // both engines smooth
      throw DefinitionProblem(key.stringValue, message)
    }
  }
}

extension ExerciseDefinition.Thresholds {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case mode, enter, exit, fraction
    case minRange = "min_range"
    case minRangeLearned = "min_range_learned"
    case minRangeRhythm = "min_range_rhythm"
    case countFraction = "count_fraction"
    case returnFraction = "return_fraction"
    case learnSeconds = "learn_seconds"
    case noiseMultiple = "noise_multiple"
  }
}

extension ExerciseDefinition.Anchors {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case joints
    case maxTravel = "max_travel"
  }
}

extension ExerciseDefinition.PartialRule {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case cue
    case minRange = "min_range"
  }
}

extension ExerciseDefinition.Stage {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case name, any
    case holdFrames = "hold_frames"
  }
}

extension ExerciseDefinition.Alternative {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case signal, direction, thresholds, smoothing, partial, cues
  }
}

extension ExerciseDefinition.Requirement {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case angle, orientation, range
  }
}

extension ExerciseDefinition.CueRule {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case message, priority, measure, signal, above, below
  }
}

/// A scalar computed from one frame's joints.
public struct SignalSpec: Codable, Equatable, Sendable {
  public enum Kind: String, Codable, Sendable {
    /// The angle at the middle of three joints, degrees (atan2(|cross|, dot)).
    case angle
    /// How far `to` is above `from`, in body sizes (image y points down).
    case verticalOffset = "vertical_offset"
    /// How far `to` is sideways from `from`, unsigned, in body sizes.
    case horizontalOffset = "horizontal_offset"
    /// The distance from `from` to `to`, in body sizes.
    case distance
    /// How far the segment from `from` to `to` leans away from the direction of `relative_to`
    /// (two joints; straight down in the picture without), 0–180°: a thigh raised forward,
    /// seen from the side or at an angle, leans from the trunk.
    case inclination
  }

  /// Which side's joints: one side, both combined, or the side the detector sees better.
  public enum Side: String, Codable, Sendable {
    case left, right, mean, min, max
    case mostConfident = "most_confident"
  }

  public var kind: Kind
  /// For `angle`: three joints, the angle at the second.
  public var joints: [String]?
  public var from: String?
  public var to: String?
  public var side: Side?
  /// Use the value's size, whatever its sign: a tilt to either side is one movement.
  public var absolute: Bool?
  /// For `inclination`: the direction leaned from, as two joints (e.g. the trunk, from
  /// `shoulder_centre` to `hip_centre`). A camera close and high above sees a person below it
  /// foreshortened, feet towards the middle of the picture: legs point up there, along the
  /// body.
  public var relativeTo: [String]?

  enum CodingKeys: String, CodingKey, CaseIterable {
    case kind, joints, from, to, side, absolute
    case relativeTo = "relative_to"
  }
}
