import TestSupport
import Testing

@testable import Poses

@Suite struct FeatureExtractorTests {
  static func features(_ poses: [Pose], spec: FeatureSpec = FeatureSpec()) -> [[Float]] {
    var extractor = FeatureExtractor(spec: spec)
    var out = Array(repeating: Float(0), count: 54)
    return poses.map { pose in
      out.withUnsafeMutableBufferPointer { extractor.extract(pose, into: $0) }
      return out
    }
  }

  @Test func featuresAreCentredOnTheHipsAndInvariantToPositionAndScale() {
    let near = Fixtures.squatter(at: 0.3, centreX: 320, height: 300)
    let far = Fixtures.squatter(at: 0.3, centreX: 100, height: 90)
    let a = Self.features([near])[0]
    let b = Self.features([far])[0]
    #expect(Approximate.maxDifference(a, b) < 1e-4)
    let jointCount = 18
    let right = CanonicalJoint.rightHip.rawValue
    let left = CanonicalJoint.leftHip.rawValue
    #expect(abs(a[right] + a[left]) < 1e-5)  // hip x's straddle 0
    #expect(abs(a[jointCount + right]) < 1e-5)  // hips at y = 0
    #expect(a[2 * jointCount + right] == 1)
  }

  @Test func missingAndLowConfidenceJointsAreZeroAndFlaggedAbsent() {
    var pose = Fixtures.squatter(at: 0)
    pose[.leftWrist] = .missing
    pose[.rightWrist] = Joint(x: 500, y: 500, confidence: 0.05)  // below the 0.1 threshold
    let f = Self.features([pose])[0]
    for joint in [CanonicalJoint.leftWrist, .rightWrist] {
      #expect(f[joint.rawValue] == 0 && f[18 + joint.rawValue] == 0 && f[36 + joint.rawValue] == 0)
    }
    #expect(f[36 + CanonicalJoint.nose.rawValue] == 1)
  }

  @Test func confidenceValuesDoNotLeakIntoFeatures() {
    let sure = Self.features([Fixtures.squatter(at: 0.5, confidence: 1)])[0]
    let unsure = Self.features([Fixtures.squatter(at: 0.5, confidence: 0.3)])[0]
    #expect(sure == unsure)
  }

  @Test func nobodyIsAllZeros() {
    let f = Self.features([Fixtures.squatter(at: 0), .nobody])
    #expect(f[1].allSatisfy { $0 == 0 })
    #expect(f[0].contains { $0 != 0 })
  }

  @Test func bodySizeIsARunningMedianSoOneBadFrameDoesNotMoveIt() {
    var poses = (0..<30).map { Fixtures.squatter(at: Double($0) / 30) }
    var giant = Fixtures.squatter(at: 1)
    giant[.leftKnee].y -= 2000  // a detector glitch: a thigh 2000 px long
    poses.append(giant)
    poses.append(Fixtures.squatter(at: 31.0 / 30))
    var extractor = FeatureExtractor()
    var out = Array(repeating: Float(0), count: 54)
    var sizes: [Float] = []
    for pose in poses {
      out.withUnsafeMutableBufferPointer { extractor.extract(pose, into: $0) }
      sizes.append(extractor.bodySize!)
    }
    let typical = sizes[29]
    #expect(abs(sizes[30] - typical) / typical < 0.05)
    #expect(abs(sizes[31] - typical) / typical < 0.05)
  }

  @Test func bodySizeSurvivesAForeshortenedTorso() {
    // Seen from above the head, the torso shrinks; the legs still say how big the person is.
    var pose = Fixtures.squatter(at: 0)
    let full = BodySizeEstimator.measure(pose, threshold: 0.1)!
    pose[.neck].y = pose[.rightHip].y - 5
    let shortened = BodySizeEstimator.measure(pose, threshold: 0.1)!
    #expect(shortened > 0.6 * full)
  }

  @Test func featuresNeverChangeOnceComputed() {
    // Causality: the features of frame k depend on frames 0...k only.
    let poses = (0..<90).map { Fixtures.squatter(at: Double($0) / 30, height: 200 + Float($0)) }
    let all = Self.features(poses)
    let prefix = Self.features(Array(poses[0..<45]))
    #expect(Array(all[0..<45]) == prefix)
  }
}

@Suite struct PersonSelectorTests {
  static func person(x: Float, height: Float) -> Pose {
    Fixtures.squatter(at: 0, centreX: x, height: height)
  }

  @Test func theMostProminentPersonIsChosenFirst() {
    var selector = PersonSelector()
    let small = Self.person(x: 100, height: 100)
    let big = Self.person(x: 400, height: 300)
    #expect(selector.select([small, big]) == big)
  }

  @Test func aBiggerPasserByDoesNotStealTheStream() {
    var selector = PersonSelector()
    let exerciser = Self.person(x: 300, height: 200)
    _ = selector.select([exerciser])
    for step in 0..<40 {  // someone larger walks across, closer to the camera
      let passerBy = Self.person(x: Float(step * 20), height: 380)
      #expect(selector.select([passerBy, exerciser]) == exerciser, "frame \(step)")
    }
  }

  @Test func aPersonWhoStaysFarMoreProminentTakesOverInTheEnd() {
    var selector = PersonSelector()
    let bystander = Self.person(x: 100, height: 100)
    let exerciser = Self.person(x: 400, height: 300)
    _ = selector.select([bystander])
    var chosen: [Pose] = []
    for _ in 0..<70 { chosen.append(selector.select([bystander, exerciser])) }
    #expect(chosen[0] == bystander)
    #expect(chosen.last == exerciser)
    #expect(selector.takeovers == 1)
  }

  @Test func aBriefDropoutIsNobodyThenTheSamePersonIsFollowedAgain() {
    var selector = PersonSelector()
    let exerciser = Self.person(x: 300, height: 200)
    let other = Self.person(x: 600, height: 150)
    _ = selector.select([exerciser])
    #expect(selector.select([other]) == .nobody)  // the followed person missed for a frame
    #expect(selector.select([other, exerciser]) == exerciser)
    for _ in 0..<15 { _ = selector.select([other]) }
    #expect(selector.select([other]) == other)  // gone long enough: follow who is there
    #expect(selector.takeovers == 0)  // who comes back cannot be told: not a takeover
  }

  @Test func fewerThanThreeConfidentJointsIsNobody() {
    var selector = PersonSelector()
    var ghost = Pose()
    ghost[.nose] = Joint(x: 1, y: 1, confidence: 0.9)
    ghost[.neck] = Joint(x: 1, y: 5, confidence: 0.9)
    #expect(selector.select([ghost]) == .nobody)
    #expect(selector.select([Pose]()) == .nobody)
  }
}
