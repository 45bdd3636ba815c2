import TestSupport
import Testing

@testable import Poses

/// Each layout's mapping, checked against joint indices read off the detectors' documentation.
@Suite struct LayoutTests {
  /// (layout, canonical joint, the layout index it must come from).
  static let handChecked: [(PoseLayout, CanonicalJoint, Int)] = [
    (.createml18, .nose, 0), (.createml18, .neck, 1), (.createml18, .leftAnkle, 13),
    (.createml18, .leftEar, 17),
    (.coco17, .nose, 0), (.coco17, .leftEye, 1), (.coco17, .rightEye, 2), (.coco17, .rightEar, 4),
    (.coco17, .leftShoulder, 5), (.coco17, .rightShoulder, 6), (.coco17, .rightWrist, 10),
    (.coco17, .leftHip, 11), (.coco17, .rightKnee, 14), (.coco17, .rightAnkle, 16),
    (.mediapipe33, .nose, 0), (.mediapipe33, .leftEye, 2), (.mediapipe33, .rightEye, 5),
    (.mediapipe33, .leftEar, 7), (.mediapipe33, .rightEar, 8), (.mediapipe33, .leftShoulder, 11),
    (.mediapipe33, .rightShoulder, 12), (.mediapipe33, .leftWrist, 15),
    (.mediapipe33, .rightWrist, 16),
    (.mediapipe33, .leftHip, 23), (.mediapipe33, .rightHip, 24), (.mediapipe33, .leftAnkle, 27),
    (.mediapipe33, .rightAnkle, 28),
    (.openpose25, .nose, 0), (.openpose25, .neck, 1), (.openpose25, .rightShoulder, 2),
    (.openpose25, .leftWrist, 7), (.openpose25, .rightHip, 9), (.openpose25, .leftHip, 12),
    (.openpose25, .leftAnkle, 14), (.openpose25, .rightEye, 15), (.openpose25, .leftEar, 18),
    (.vision19, .nose, 0), (.vision19, .leftEye, 1), (.vision19, .rightEar, 4),
    (.vision19, .leftShoulder, 5), (.vision19, .rightShoulder, 6), (.vision19, .neck, 7),
    (.vision19, .leftHip, 8), (.vision19, .rightHip, 9), (.vision19, .leftElbow, 11),
    (.vision19, .rightWrist, 14), (.vision19, .leftKnee, 15), (.vision19, .rightAnkle, 18),
  ]

  /// A raw pose whose joint i sits at (i, 100 + i) with confidence 0.5.
  static func indexedRaw(_ layout: PoseLayout) -> [Float] {
    (0..<layout.jointCount).flatMap { [Float($0), 100 + Float($0), 0.5] }
  }

  @Test(arguments: handChecked)
  func jointComesFromDocumentedIndex(_ layout: PoseLayout, _ joint: CanonicalJoint, _ index: Int) {
    let pose = Self.indexedRaw(layout).withUnsafeBufferPointer {
      layout.canonicalPose(from: $0, space: CoordinateSpace())
    }
    #expect(pose[joint] == Joint(x: Float(index), y: 100 + Float(index), confidence: 0.5))
  }

  @Test(arguments: [PoseLayout.coco17, .mediapipe33])
  func neckIsTheShoulderMidpointWithTheSmallerConfidence(_ layout: PoseLayout) {
    var raw = Self.indexedRaw(layout)
    let right = layout.jointNames.firstIndex(of: "right_shoulder")!
    let left = layout.jointNames.firstIndex(of: "left_shoulder")!
    raw[3 * right + 2] = 0.3
    let pose = raw.withUnsafeBufferPointer {
      layout.canonicalPose(from: $0, space: CoordinateSpace())
    }
    let expectedX = Float(right + left) / 2
    #expect(pose[.neck] == Joint(x: expectedX, y: 100 + expectedX, confidence: 0.3))
  }

  @Test func neckIsMissingWithoutBothShoulders() {
    var raw = Self.indexedRaw(.coco17)
    raw[3 * 5 + 2] = 0
    let pose = raw.withUnsafeBufferPointer {
      PoseLayout.coco17.canonicalPose(from: $0, space: CoordinateSpace())
    }
    #expect(pose[.neck].isMissing)
  }

  @Test func layoutsWithoutEyesAndEarsLeaveThemMissingNotZero() {
    var raw = Self.indexedRaw(.coco17)
    for index in 1...4 { raw[3 * index + 2] = 0 }
    let pose = raw.withUnsafeBufferPointer {
      PoseLayout.coco17.canonicalPose(from: $0, space: CoordinateSpace())
    }
    for joint in [CanonicalJoint.leftEye, .rightEye, .leftEar, .rightEar] {
      #expect(pose[joint].isMissing)
    }
    #expect(pose.presentCount() == 18 - 4)
  }

  @Test(arguments: PoseLayout.allCases)
  func writingThenReadingALayoutKeepsEveryJointItHas(_ layout: PoseLayout) {
    let pose = Fixtures.squatter(at: 0.4)
    let joints = layout.layoutJoints(from: pose, space: CoordinateSpace())
    #expect(joints.count == layout.jointCount)
    let raw = joints.flatMap { [$0.x, $0.y, $0.confidence] }
    let back = raw.withUnsafeBufferPointer {
      layout.canonicalPose(from: $0, space: CoordinateSpace())
    }
    for joint in CanonicalJoint.allCases where layout.canonicalJoints.contains(joint) {
      #expect(back[joint] == pose[joint], "\(layout) \(joint)")
    }
  }

  @Test func visionRootAndBody25MidHipAreDerivedOnOutput() {
    let pose = Fixtures.squatter(at: 0)
    let hips = Pose.midpoint(pose[.rightHip], pose[.leftHip])
    let vision = PoseLayout.vision19.layoutJoints(from: pose, space: CoordinateSpace())
    #expect(vision[PoseLayout.vision19.jointNames.firstIndex(of: "root")!] == hips)
    let body25 = PoseLayout.openpose25.layoutJoints(from: pose, space: CoordinateSpace())
    #expect(body25[8] == hips)
    #expect(body25[19].isMissing)  // a toe: BODY_25 has it, the canonical joints do not
  }

  @Test func layoutIsInferredFromAnUnambiguousJointCount() {
    #expect(PoseLayout.inferred(fromJointCount: 17) == .coco17)
    #expect(PoseLayout.inferred(fromJointCount: 33) == .mediapipe33)
    #expect(PoseLayout.inferred(fromJointCount: 20) == nil)
  }
}

@Suite struct CoordinateSpaceTests {
  @Test func bottomLeftNormalizedWithImageBecomesTopLeftPixels() {
    let space = CoordinateSpace(
      units: .normalized, origin: .bottomLeft, imageWidth: 640, imageHeight: 480)
    let (x, y) = space.toInternal(x: 0.25, y: 0.75)
    #expect(x == 160)
    #expect(y == 120)  // 0.75 up from the bottom is 0.25 down from the top
    let (sx, sy) = space.toSource(x: x, y: y)
    #expect(sx == 0.25 && sy == 0.75)
  }

  @Test func bottomLeftWithoutImageSizeFlipsInPlace() {
    let normalized = CoordinateSpace(units: .normalized, origin: .bottomLeft)
    #expect(normalized.toInternal(x: 0.5, y: 0.9) == (0.5, Float(1) - 0.9))
    let pixels = CoordinateSpace(units: .pixels, origin: .bottomLeft)
    #expect(pixels.toInternal(x: 10, y: 30) == (10, -30))
    // Up in the image is still up: a head above the hips keeps a smaller y.
    #expect(pixels.toInternal(x: 0, y: 200).y < pixels.toInternal(x: 0, y: 100).y)
  }

  @Test func mirroredInputSwapsSides() {
    var raw = LayoutTests.indexedRaw(.coco17)
    raw[3 * 5] = 11  // left_shoulder x
    let space = CoordinateSpace(mirrored: true)
    let pose = raw.withUnsafeBufferPointer {
      PoseLayout.coco17.canonicalPose(from: $0, space: space)
    }
    #expect(pose[.rightShoulder].x == 11)  // the image's left shoulder is the person's right
    #expect(pose[.leftShoulder].x == 6)
    #expect(pose[.nose].x == 0)
    #expect(pose.mirrored.mirrored == pose)
  }

  /// A reflected pose is the body seen in a mirror: each joint's x reflected about the centre
  /// and its side swapped, so the person's own left is still `left`; y, confidence and missing
  /// joints are kept, and reflecting twice gives the pose back.
  @Test func aReflectedPoseHasXFlippedAndSidesSwapped() {
    var pose = Pose()
    pose[.nose] = Joint(x: 110, y: 20, confidence: 0.9)
    pose[.leftShoulder] = Joint(x: 120, y: 50, confidence: 1)
    pose[.rightShoulder] = Joint(x: 90, y: 52, confidence: 0.8)
    pose[.leftWrist] = Joint(x: 150, y: 60, confidence: 0.7)
    let reflected = pose.reflected(aboutX: 100)
    #expect(reflected[.nose] == Joint(x: 90, y: 20, confidence: 0.9))
    #expect(reflected[.rightShoulder] == Joint(x: 80, y: 50, confidence: 1))
    #expect(reflected[.leftShoulder] == Joint(x: 110, y: 52, confidence: 0.8))
    #expect(reflected[.rightWrist] == Joint(x: 50, y: 60, confidence: 0.7))
    #expect(reflected[.leftWrist].isMissing && reflected[.leftHip].isMissing)
    #expect(reflected.reflected(aboutX: 100) == pose)
    // Renaming the sides is not a reflection: it moves no joint.
    #expect(pose.mirrored[.rightShoulder].x == 120)
  }
}
