/// How a frame's pose becomes the network's features. The weights file stores it, so that the
/// runtime and the trainer, which share `FeatureExtractor`, can never disagree.
///
/// Layout of one frame's F = 54 features, Create ML's `[3, 18]` flattened: index `c · 18 + j`
/// for channel c (0: x, 1: y, 2: present) and canonical joint j. x and y are relative to the
/// hip centre in units of the body size; present is 1 when the joint's confidence is above
/// `presenceThreshold`, else 0 and x = y = 0. A frame with nobody is all zeros.
public struct FeatureSpec: Codable, Equatable, Sendable {
  /// Bump when the meaning of the features changes; a model trained on another version is
  /// rejected on load.
  public var version: Int
  /// The confidence above which a joint counts as present. Sources give confidence on their
  /// own scales (hand annotations 0/1, MoveNet and MediaPipe scores), so the network sees only
  /// whether a joint is there, never the raw score: otherwise it learns which detector made the
  /// data instead of what the body does.
  public var presenceThreshold: Float
  /// Frames of history in the running median of body size (2 s at 30 fps): long enough to ride
  /// out a bad frame or a foreshortened torso, short enough to follow someone walking closer.
  public var scaleHistory: Int

  public init(version: Int = 1, presenceThreshold: Float = 0.1, scaleHistory: Int = 60) {
    precondition(scaleHistory >= 1)
    self.version = version
    self.presenceThreshold = presenceThreshold
    self.scaleHistory = scaleHistory
  }

  enum CodingKeys: String, CodingKey {
    case version
    case presenceThreshold = "presence_threshold"
    case scaleHistory = "scale_history"
  }

  /// F: features per frame.
  public static let featuresPerFrame = 3 * CanonicalJoint.count
  public var featuresPerFrame: Int { Self.featuresPerFrame }
}
