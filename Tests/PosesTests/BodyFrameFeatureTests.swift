import Foundation
import TestSupport
import Testing

@testable import Poses

/// Feature version 2: the positions of version 1, then `BodyFrameFeatures`.
@Suite struct BodyFrameFeatureTests {
  static let spec = FeatureSpec(version: 2)

  static func features(_ pose: Pose) -> [Float] {
    var extractor = FeatureExtractor(spec: spec)
    var out = [Float](repeating: .nan, count: spec.featuresPerFrame)
    out.withUnsafeMutableBufferPointer { extractor.extract(pose, into: $0) }
    return out
  }

  /// The pose turned by `degrees` about (cx, cy) in the image, as a tilted camera shows it.
  static func rolled(_ pose: Pose, degrees: Float, cx: Float = 320, cy: Float = 300) -> Pose {
    let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
    var out = pose
    for index in out.joints.indices {
      let (x, y) = (pose.joints[index].x - cx, pose.joints[index].y - cy)
      out.joints[index].x = cx + c * x - s * y
      out.joints[index].y = cy + s * x + c * y
    }
    return out
  }

  @Test func versionTwoKeepsVersionOnesPositionsFirst() {
    #expect(Self.spec.featuresPerFrame == 88 && FeatureSpec().featuresPerFrame == 54)
    let pose = Fixtures.squatter(at: 0.4)
    let positions = FeatureExtractorTests.features([pose])[0]
    #expect(Array(Self.features(pose).prefix(54)) == positions)
  }

  @Test func anglesDirectionsAndLengthsMeanWhatTheySay() {
    // Standing straight, facing the camera: straight knees, thighs pointing down the body.
    var pose = Fixtures.squatter(at: 0)
    pose[.rightKnee].x = pose[.rightHip].x
    pose[.rightAnkle].x = pose[.rightHip].x
    // The left elbow bent at a right angle: upper arm down, forearm across.
    pose[.leftElbow] = Joint(x: pose[.leftShoulder].x, y: pose[.leftShoulder].y + 50, confidence: 1)
    pose[.leftWrist] = Joint(x: pose[.leftElbow].x + 40, y: pose[.leftElbow].y, confidence: 1)
    let extra = Array(Self.features(pose).suffix(34))
    #expect(abs(extra[6] - 1) < 1e-5)  // right knee straight
    #expect(abs(extra[1] - 0.5) < 1e-5)  // left elbow square
    // Right thigh (limb 4): straight down the body; left forearm (limb 3): across, no up.
    #expect(abs(extra[8 + 2 * 4]) < 1e-5 && abs(extra[9 + 2 * 4] + 1) < 1e-5)
    #expect(abs(extra[8 + 2 * 3] - 1) < 1e-5 && abs(extra[9 + 2 * 3]) < 1e-5)
    #expect(extra[24 + 4] > 0.3 && extra[24 + 4] < 1)  // a thigh is under a body size
    #expect(abs(extra[32]) < 0.05 && abs(extra[33] + 1) < 1e-3)  // torso upright in the image
  }

  @Test func aTiltedCameraChangesOnlyTheTorsosLean() {
    for t in [0.0, 0.5, 1.0] {
      let level = Fixtures.squatter(at: t)
      let straight = Array(Self.features(level).suffix(34))
      let tilted = Array(Self.features(Self.rolled(level, degrees: 25)).suffix(34))
      #expect(
        Approximate.maxDifference(Array(straight.prefix(32)), Array(tilted.prefix(32))) < 1e-3)
      #expect(abs(straight[32] - tilted[32]) > 0.3)
    }
  }

  /// Joints a detector puts on top of each other (a hidden wrist on its elbow, a neck on the
  /// hips) give zeros where a direction or angle has no meaning, never a NaN.
  @Test func coincidentJointsGiveZerosNotNaNs() {
    var pose = Fixtures.squatter(at: 0.5)
    pose[.rightWrist] = pose[.rightElbow]
    let hips = (
      (pose[.rightHip].x + pose[.leftHip].x) / 2, (pose[.rightHip].y + pose[.leftHip].y) / 2
    )
    pose[.neck] = Joint(x: hips.0, y: hips.1, confidence: 1)
    let extra = Array(Self.features(pose).suffix(34))
    #expect(extra.allSatisfy { $0.isFinite })
    #expect(extra[0] == 0)  // the right elbow's angle
    #expect(extra[8 + 2] == 0 && extra[9 + 2] == 0 && extra[24 + 1] == 0)  // right forearm
    #expect(extra[32] == 0 && extra[33] == 0)  // no torso direction
  }

  @Test func missingJointsGiveZerosAndNobodyGivesNothing() {
    var pose = Fixtures.squatter(at: 0.5)
    pose[.rightKnee] = .missing
    let extra = Array(Self.features(pose).suffix(34))
    // Right hip and knee angles, right thigh and shin directions and lengths.
    for index in [4, 6, 16, 17, 18, 19, 28, 29] { #expect(extra[index] == 0) }
    #expect(extra[5] != 0 && extra[7] != 0)  // the left side is still seen
    #expect(Self.features(.nobody).allSatisfy { $0 == 0 })
    // No torso: directions fall back to the image's axes, the lean is unknown.
    var limbsOnly = Fixtures.squatter(at: 0.5)
    for joint in [CanonicalJoint.neck, .rightShoulder, .leftShoulder, .rightHip, .leftHip] {
      limbsOnly[joint] = .missing
    }
    let bare = Array(Self.features(limbsOnly).suffix(34))
    #expect(bare[32] == 0 && bare[33] == 0)
    #expect(abs(bare[9 + 2 * 5] + 1) < 0.2)  // the right shin still points down the image
  }
}
