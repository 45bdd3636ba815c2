import Poses

/// Says when the camera cannot see a joint the exercise is counted from. Push-ups filmed with
/// the hands out of the picture, or knees hidden by a table, count nothing; without a word the
/// person thinks the counter is broken, with one they can move the camera.
///
/// A joint is needed when every signal of the definition reads it (its own and its
/// `alternatives`, or a staged definition's `measure`); a pair's joint (`wrist`) or centre
/// (`hip_centre`) counts as seen when either side is, unless the signal reads one side only.
/// When a needed joint has gone unseen for `patience` seconds of frames with a person in them,
/// the cue comes once, and again only after the joint has been seen in between.
struct VisibilityWatch: Sendable {
  private let needed: [JointReference]
  private let cues: [String]
  private let minConfidence: Float
  /// Per needed joint: since when it has been out of sight, and whether that was cued.
  private var unseenSince: [Double?]
  private var cued: [Bool]

  /// Seconds a needed joint must stay out of sight before the cue: long enough that an arm
  /// swinging out of the picture for a moment (a jumping jack, close to the camera) says nothing.
  static let patience = 3.0

  init(_ definition: ExerciseDefinition) {
    let references = definition.countingSignals.map(Self.watched(in:))
    var needed: [JointReference] = []
    for reference in references.first ?? [] where !needed.contains(reference) {
      if references.allSatisfy({ $0.contains(reference) }) { needed.append(reference) }
    }
    self.needed = needed
    cues = needed.map {
      "Step back or move the camera: I can't see your \(Self.spoken($0))."
    }
    minConfidence = Float(definition.minConfidence)
    unseenSince = Array(repeating: nil, count: needed.count)
    cued = Array(repeating: false, count: needed.count)
  }

  /// Takes a frame with a person in it; returns the cue to give now, if any.
  mutating func check(_ pose: Pose, t: Double) -> String? {
    var cue: String?
    for index in needed.indices {
      if needed[index].isSeen(in: pose, minConfidence: minConfidence) {
        unseenSince[index] = nil
        cued[index] = false
        continue
      }
      guard let since = unseenSince[index] else {
        unseenSince[index] = t
        continue
      }
      if !cued[index], t - since >= Self.patience, cue == nil {
        cued[index] = true
        cue = cues[index]
      }
    }
    return cue
  }

  /// Forgets how long joints have been out of sight: nobody was there for a while.
  mutating func restart() {
    for index in needed.indices {
      unseenSince[index] = nil
      cued[index] = false
    }
  }

  /// The joints a signal reads; a side-free name of a signal read on one side (`side`
  /// `left` or `right`) is that side's joint.
  private static func watched(in signal: SignalSpec) -> [JointReference] {
    ExerciseCatalogue.references(of: signal).map { reference in
      guard case .sided(let left, let right) = reference else { return reference }
      switch signal.side {
      case .left?: return .joint(left)
      case .right?: return .joint(right)
      default: return reference
      }
    }
  }

  /// A joint as said to the person: a pair's joint or centre in the plural (`wrist` and
  /// `hip_centre`: wrists, hips), one joint by its name (`left_knee`: left knee).
  static func spoken(_ reference: JointReference) -> String {
    switch reference {
    case .joint(let joint): return joint.name.split(separator: "_").joined(separator: " ")
    case .sided(let left, _), .centre(let left, _): return left.name.dropFirst("left_".count) + "s"
    }
  }
}
