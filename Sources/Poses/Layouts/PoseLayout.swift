/// A detector's joint order, mapped onto the canonical joints (README, "How a frame flows").
///
/// Reading, a canonical joint the layout lacks is missing, except `neck`, which is derived
/// from the shoulders when the layout has no neck or the detector missed it. Writing, a layout
/// joint with no canonical twin is derived where it is a midpoint (Vision's `root`, BODY_25's
/// `mid_hip`) and written as `null` otherwise.
public enum PoseLayout: String, CaseIterable, Sendable {
  /// Create ML / OpenPose COCO-18: the canonical order itself.
  case createml18
  /// Apple Vision's 19 named body joints, in the order of `VNHumanBodyPoseObservation.JointName`
  /// as Apple lists them (head, torso, arms, legs); Vision has no order of its own.
  case vision19
  /// COCO keypoints: COCO, MoveNet, YOLO-pose, MMPose.
  case coco17
  /// MediaPipe BlazePose's 33 landmarks (`visibility` as the confidence).
  case mediapipe33
  /// OpenPose BODY_25.
  case openpose25

  /// The layout's joint names, in file order.
  public var jointNames: [String] { table.names }

  /// J of the source: how many joints a pose in this layout has.
  public var jointCount: Int { jointNames.count }

  /// For each layout joint, the canonical joint it is, if any.
  public var canonicalJoints: [CanonicalJoint?] { table.canonical }

  /// For each layout joint without a canonical twin, the two canonical joints whose midpoint it
  /// is, where it is one.
  var derivedMidpoints: [(CanonicalJoint, CanonicalJoint)?] { table.midpoints }

  /// The layout whose joint count is `count`, if exactly one has it.
  public static func inferred(fromJointCount count: Int) -> PoseLayout? {
    let matches = allCases.filter { $0.jointCount == count }
    return matches.count == 1 ? matches[0] : nil
  }

  private struct Table: Sendable {
    let names: [String]
    let canonical: [CanonicalJoint?]
    let midpoints: [(CanonicalJoint, CanonicalJoint)?]

    init(_ names: [String]) {
      self.names = names
      canonical = names.map { CanonicalJoint(name: $0) }
      midpoints = names.map { name in
        name == "root" || name == "mid_hip" ? (.rightHip, .leftHip) : nil
      }
    }
  }

  /// A switch, not a dictionary: layouts are looked up once per decoded pose.
  private var table: Table {
    switch self {
    case .createml18: Self.createml18Table
    case .vision19: Self.vision19Table
    case .coco17: Self.coco17Table
    case .mediapipe33: Self.mediapipe33Table
    case .openpose25: Self.openpose25Table
    }
  }

  private static let createml18Table = Table(CanonicalJoint.names)
  private static let vision19Table = Table([
    "nose", "left_eye", "right_eye", "left_ear", "right_ear",
    "left_shoulder", "right_shoulder", "neck", "left_hip", "right_hip", "root",
    "left_elbow", "right_elbow", "left_wrist", "right_wrist",
    "left_knee", "right_knee", "left_ankle", "right_ankle",
  ])
  private static let coco17Table = Table([
    "nose", "left_eye", "right_eye", "left_ear", "right_ear",
    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist",
    "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle", "right_ankle",
  ])
  private static let mediapipe33Table = Table([
    "nose", "left_eye_inner", "left_eye", "left_eye_outer",
    "right_eye_inner", "right_eye", "right_eye_outer", "left_ear", "right_ear",
    "mouth_left", "mouth_right", "left_shoulder", "right_shoulder", "left_elbow",
    "right_elbow", "left_wrist", "right_wrist", "left_pinky", "right_pinky", "left_index",
    "right_index", "left_thumb", "right_thumb", "left_hip", "right_hip", "left_knee",
    "right_knee", "left_ankle", "right_ankle", "left_heel", "right_heel",
    "left_foot_index", "right_foot_index",
  ])
  private static let openpose25Table = Table([
    "nose", "neck", "right_shoulder", "right_elbow", "right_wrist", "left_shoulder",
    "left_elbow", "left_wrist", "mid_hip", "right_hip", "right_knee", "right_ankle",
    "left_hip", "left_knee", "left_ankle", "right_eye", "left_eye", "right_ear", "left_ear",
    "left_big_toe", "left_small_toe", "left_heel", "right_big_toe", "right_small_toe",
    "right_heel",
  ])
}
