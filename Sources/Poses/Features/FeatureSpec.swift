/// How a frame's pose becomes the network's features. The weights file stores it, so that the
/// runtime and the trainer, which share `FeatureExtractor`, can never disagree.
///
/// Version 1, F = 54: Create ML's `[3, 18]` flattened: index `c · 18 + j` for channel c (0: x,
/// 1: y, 2: present) and canonical joint j. x and y are relative to the hip centre in units of
/// the body size; present is 1 when the joint's confidence is above `presenceThreshold`, else 0
/// and x = y = 0. A frame with nobody is all zeros.
///
/// Version 2, F = 88: version 1's 54, then `BodyFrameFeatures`' 34: what changes less with the
/// camera's angle than positions do (joint angles, limb directions in the body's own frame,
/// limb lengths, the torso's lean).
public struct FeatureSpec: Codable, Equatable, Sendable {
  /// Bump when the meaning of the features changes; a model trained on a version this build
  /// does not compute is rejected on load.
  public var version: Int
  /// The confidence above which a joint counts as present. Sources give confidence on their
  /// own scales (hand annotations 0/1, MoveNet and MediaPipe scores), so the network sees only
  /// whether a joint is there, never the raw score: otherwise it learns which detector made the
  /// data instead of what the body does.
  public var presenceThreshold: Float
  /// Frames of history in the running median of body size (2 s at 30 fps): long enough to ride
  /// out a bad frame or a foreshortened torso, short enough to follow someone walking closer.
  public var scaleHistory: Int

  /// The versions this build computes.
  public static let versions = 1...2

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

  /// Version 1's features: x, y and present for each canonical joint.
  public static let positionFeatures = 3 * CanonicalJoint.count

  /// Whether the frame's features go on past the positions with `BodyFrameFeatures`.
  public var addsBodyFrame: Bool { version >= 2 }

  /// F: features per frame.
  public var featuresPerFrame: Int {
    Self.positionFeatures + (addsBodyFrame ? BodyFrameFeatures.count : 0)
  }
}
