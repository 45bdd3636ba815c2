import Foundation
import Poses
import Randomness

/// What a real pose detector does to perfect joints: jitter, low confidence on joints the body
/// hides, dropped joints, missed frames, left/right swaps, joints outside the picture.
public struct DetectorModel: Sendable {
  /// Jitter, as a share of the person's height in the image.
  public var jitter: Double
  /// Chance a visible joint is missed in a frame.
  public var jointDropout: Double
  /// Chance a frame has nobody, and the chance such a miss runs on to the next frame.
  public var missedFrames: Double
  public var missBurst: Double
  /// Chance per frame that a left/right swap starts (it lasts a few frames).
  public var swaps: Double
  /// Chance a joint on the far side of the body comes out below the presence threshold.
  public var farSideLoss: Double
  /// Joints thrown away and limbs flipped for a frame or a few (none in the presets; the
  /// `tempo` realism adds them).
  public var glitches: DetectorGlitches = .none

  public static let none = DetectorModel(
    jitter: 0, jointDropout: 0, missedFrames: 0, missBurst: 0, swaps: 0, farSideLoss: 0)
  public static let light = DetectorModel(
    jitter: 0.003, jointDropout: 0.005, missedFrames: 0.003, missBurst: 0.3, swaps: 0.0005,
    farSideLoss: 0.2)
  public static let normal = DetectorModel(
    jitter: 0.007, jointDropout: 0.02, missedFrames: 0.01, missBurst: 0.5, swaps: 0.002,
    farSideLoss: 0.45)
  public static let heavy = DetectorModel(
    jitter: 0.015, jointDropout: 0.06, missedFrames: 0.03, missBurst: 0.7, swaps: 0.006,
    farSideLoss: 0.7)

  public static func named(_ name: String) -> DetectorModel? {
    ["none": .none, "light": .light, "normal": .normal, "heavy": .heavy][name]
  }

  /// The detector's running state for one recording: swaps and missed frames last a while.
  public struct Session: Sendable {
    let model: DetectorModel
    var generator: SeededGenerator
    var swapFramesLeft = 0
    var missing = false
    var glitched: DetectorGlitches.State

    /// What the detector reports for one frame, from world joints seen through `camera`.
    ///
    /// - Parameters:
    ///   - lateral: the person's left-pointing axis in the world; `facing`: where they face.
    public mutating func observe(
      _ world: [Vector3], camera: VirtualCamera, lateral: Vector3, facing: Vector3
    ) -> Pose {
      missing = generator.unit() < (missing ? model.missBurst : model.missedFrames)
      if missing { return .nobody }
      var projected: [(x: Double, y: Double)?] = world.map { camera.project($0) }
      let ys = projected.compactMap { $0?.y }
      guard let top = ys.min(), let bottom = ys.max() else { return .nobody }
      let scale = max(bottom - top, 20)
      // Which side the camera sees: the far side's joints are hidden behind the body.
      let toPerson = camera.viewDirection
      let leftAway = Vector3.dot(lateral, toPerson)  // > 0: the left side faces away
      let facingAway = Vector3.dot(facing, toPerson)  // > 0: the face is turned away
      var pose = Pose()
      let hidden = Self.hiddenJoints(
        world, projected: projected, camera: camera, leftAway: leftAway, scale: scale)
      for joint in CanonicalJoint.allCases {
        guard let point = projected[joint.rawValue] else { continue }
        var confidence = 0.6 + 0.39 * generator.unit()
        // A hidden joint is a guess: detectors still report it, less sure and less exact.
        var wobble = 1.0
        if hidden[joint.rawValue], generator.unit() < model.farSideLoss {
          confidence = 0.05 + 0.4 * generator.unit()
          wobble = 3
        }
        if Self.isFace(joint), facingAway > 0.2, generator.unit() < 0.4 + facingAway * 0.6 {
          confidence = 0.05 * generator.unit()
        }
        if generator.unit() < model.jointDropout { continue }
        let x = point.x + scale * model.jitter * wobble * generator.normal()
        let y = point.y + scale * model.jitter * wobble * generator.normal()
        // Out of the picture: not detected.
        guard x >= 0, y >= 0, x < camera.width, y < camera.height else { continue }
        projected[joint.rawValue] = (x, y)
        pose[joint] = Joint(x: Float(x), y: Float(y), confidence: Float(confidence))
      }
      if model.glitches != .none {
        glitched.apply(
          model.glitches, to: &pose, scale: scale, width: camera.width, height: camera.height)
      }
      if swapFramesLeft == 0, generator.unit() < model.swaps {
        swapFramesLeft = 2 + Int(generator.next() % 6)
      }
      if swapFramesLeft > 0 {
        swapFramesLeft -= 1
        pose = pose.mirrored
      }
      return pose.presentCount(threshold: 0.1) >= 3 ? pose : .nobody
    }

    /// Far-side joints that the body hides: behind the torso's plane (farther from the camera
    /// than the torso's centre) and, in the picture, inside the torso or within a limb's width of
    /// a near-side limb. A far knee raised in front of the body, or a far arm held out to the
    /// side, stays visible, as it does to a real detector.
    static func hiddenJoints(
      _ world: [Vector3], projected: [(x: Double, y: Double)?], camera: VirtualCamera,
      leftAway: Double, scale: Double
    ) -> [Bool] {
      var hidden = [Bool](repeating: false, count: world.count)
      guard abs(leftAway) > 0.2 else { return hidden }  // facing the camera: nothing hides
      let farSide = leftAway > 0 ? 1 : -1
      func at(_ joint: CanonicalJoint) -> (x: Double, y: Double)? { projected[joint.rawValue] }
      let torsoJoints: [CanonicalJoint] = [.leftShoulder, .rightShoulder, .rightHip, .leftHip]
      let torso = torsoJoints.compactMap(at)
      let centreDepth = torsoJoints.map { camera.depth(of: world[$0.rawValue]) }.reduce(0, +) / 4
      let near: [(CanonicalJoint, CanonicalJoint)] =
        farSide == 1
        ? [
          (.rightShoulder, .rightElbow), (.rightElbow, .rightWrist), (.rightHip, .rightKnee),
          (.rightKnee, .rightAnkle),
        ]
        : [
          (.leftShoulder, .leftElbow), (.leftElbow, .leftWrist), (.leftHip, .leftKnee),
          (.leftKnee, .leftAnkle),
        ]
      // A limb's half-width, as a share of the person's height in the picture.
      let width = 0.06 * scale
      for joint in CanonicalJoint.allCases where side(of: joint) == farSide {
        guard let point = projected[joint.rawValue],
          camera.depth(of: world[joint.rawValue]) > centreDepth
        else { continue }
        var covered = torso.count == 4 && contains(torso, point)
        for (a, b) in near where !covered {
          if let pa = at(a), let pb = at(b), distance(point, pa, pb) < width { covered = true }
        }
        hidden[joint.rawValue] = covered
      }
      return hidden
    }

    /// Whether a convex quadrilateral (in order) contains the point.
    static func contains(_ polygon: [(x: Double, y: Double)], _ p: (x: Double, y: Double)) -> Bool {
      var sign = 0.0
      for index in polygon.indices {
        let a = polygon[index]
        let b = polygon[(index + 1) % polygon.count]
        let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
        if cross != 0 {
          if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
        }
      }
      return true
    }

    /// The distance from a point to a segment.
    static func distance(
      _ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)
    ) -> Double {
      let (dx, dy) = (b.x - a.x, b.y - a.y)
      let length = dx * dx + dy * dy
      let u = length > 0 ? max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length)) : 0
      let (cx, cy) = (a.x + u * dx - p.x, a.y + u * dy - p.y)
      return (cx * cx + cy * cy).squareRoot()
    }

    /// +1 for the person's left side, −1 for the right, 0 on the midline.
    static func side(of joint: CanonicalJoint) -> Int {
      joint.mirrored == joint ? 0 : (joint.name.hasPrefix("left") ? 1 : -1)
    }
  }

  public func session(generator: SeededGenerator) -> Session {
    // Glitches draw from a stream of their own: turned on, they change nothing else.
    Session(
      model: self, generator: generator,
      glitched: DetectorGlitches.State(generator: generator.derived(0x611C4)))
  }
}

extension DetectorModel.Session {
  static func isFace(_ joint: CanonicalJoint) -> Bool {
    joint == .nose || joint == .leftEye || joint == .rightEye
  }
}
