/// The 18 joints every pose is mapped onto, in Create ML's `keypointsMultiArray` order
/// (OpenPose COCO-18). Left and right are the person's own sides.
public enum CanonicalJoint: Int, CaseIterable, Sendable, CustomStringConvertible {
  case nose, neck
  case rightShoulder, rightElbow, rightWrist
  case leftShoulder, leftElbow, leftWrist
  case rightHip, rightKnee, rightAnkle
  case leftHip, leftKnee, leftAnkle
  case rightEye, leftEye, rightEar, leftEar

  /// How many canonical joints there are (J).
  public static let count = 18

  /// The snake_case name used in files and definitions, e.g. `right_shoulder`.
  public var name: String { Self.names[rawValue] }

  public var description: String { name }

  /// The same joint on the person's other side; joints on the midline map to themselves.
  public var mirrored: CanonicalJoint { CanonicalJoint(rawValue: Self.mirrorTable[rawValue])! }

  /// Looks a joint up by its snake_case name.
  public init?(name: String) {
    guard let index = Self.names.firstIndex(of: name) else { return nil }
    self.init(rawValue: index)
  }

  static let names = [
    "nose", "neck",
    "right_shoulder", "right_elbow", "right_wrist",
    "left_shoulder", "left_elbow", "left_wrist",
    "right_hip", "right_knee", "right_ankle",
    "left_hip", "left_knee", "left_ankle",
    "right_eye", "left_eye", "right_ear", "left_ear",
  ]

  static let mirrorTable = [0, 1, 5, 6, 7, 2, 3, 4, 11, 12, 13, 8, 9, 10, 15, 14, 17, 16]
}
