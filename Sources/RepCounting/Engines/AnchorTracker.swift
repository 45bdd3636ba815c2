import Poses

/// Watches a definition's anchor joints, the ones the exercise keeps where they are (the hands
/// of a push-up, the feet of a squat), and says when one has moved: the person is getting
/// into position, walking or doing something else, and whatever the engine has under way is
/// not a rep.
///
/// Each anchor has a home, where it has stayed. It has moved when it is seen more than
/// `maxTravel` body sizes from home for `awayFrames` frames in a row, so a stray detection is
/// not a move, or on the first frame after a gap in the stream (the move happened unseen);
/// then its home is where it is now. A left joint seen at the right one's home
/// (the detector swapped them) has not moved. A joint not seen at home for half a second, and
/// mostly not seen at all (the far hand, hidden by the body), makes its home where it shows
/// up next, without calling it a move. Allocates nothing per frame.
///
/// When positions mean little (frames normalised to their own box: `relative`), a sided anchor
/// is followed instead by the step from its left joint to its right one, in the frame's own
/// body sizes, which moves only when one of them does, within twice `maxTravel`. Each such
/// frame has a scale of its own (a push-up's face dropping below the hands grows the box), so
/// a step kept in the units of the frame that set the home would seem to move with the scale.
struct AnchorTracker {
  let maxTravel: Float
  /// Follow the left-to-right step of each sided anchor instead of where its joints are.
  var relative = false {
    didSet { if relative != oldValue { reset() } }
  }
  /// Each anchor as points to follow: a side-free name (`wrist`) follows both sides.
  private let points: [(reference: JointReference, side: SideChoice?)]
  /// Each point's other side (nil for a joint without one).
  private let partner: [Int?]
  private var homes: [(x: Float, y: Float)?]
  private var away: [Int]
  /// Frames since each point was last seen at home.
  private var sinceHome: [Int]
  /// Frames in a row away from home that make a move: a sixth of a second at 30 fps.
  static let awayFrames = 5
  /// Frames without a sight of home after which a joint seen elsewhere moves home quietly.
  static let forgetFrames = 15

  init(_ anchors: ExerciseDefinition.Anchors) {
    maxTravel = Float(anchors.maxTravel)
    let points = anchors.joints.flatMap {
      name -> [(reference: JointReference, side: SideChoice?)] in
      let reference = JointReference(name: name)!
      return reference.isSided ? [(reference, .left), (reference, .right)] : [(reference, nil)]
    }
    self.points = points
    partner = points.indices.map { index in
      switch points[index].side {
      case .left: index + 1
      case .right: index - 1
      case nil: nil
      }
    }
    homes = Array(repeating: nil, count: points.count)
    away = Array(repeating: 0, count: points.count)
    sinceHome = away
  }

  mutating func reset() {
    for index in points.indices {
      homes[index] = nil
      away[index] = 0
      sinceHome[index] = 0
    }
  }

  /// Takes one frame; returns whether an anchor has just moved. `afterGap`: nobody was seen
  /// for a while before this frame.
  mutating func moved(_ pose: Pose, bodySize: Float, minConfidence: Float, afterGap: Bool) -> Bool {
    let limit = relative ? 2 * maxTravel : maxTravel * bodySize
    var moved = false
    for index in points.indices {
      guard
        let seen = place(of: index, in: pose, bodySize: bodySize, minConfidence: minConfidence)
      else {
        sinceHome[index] += 1
        continue
      }
      sinceHome[index] += 1
      guard let home = homes[index] else {
        homes[index] = (seen.x, seen.y)
        continue
      }
      if Self.near(seen, home, limit) {
        away[index] = 0
        sinceHome[index] = 0
        // Follow a slow drift (the camera settling, the person shifting their weight).
        homes[index] = (home.x + 0.05 * (seen.x - home.x), home.y + 0.05 * (seen.y - home.y))
      } else if !relative, let other = partner[index].flatMap({ homes[$0] }),
        Self.near(seen, other, limit)
      {
        away[index] = 0  // swapped with its other side
      } else {
        away[index] += 1
        let moving = away[index] >= Self.awayFrames || afterGap
        if moving || sinceHome[index] > Self.forgetFrames {
          homes[index] = (seen.x, seen.y)
          away[index] = 0
          sinceHome[index] = 0
          moved = moved || moving
        }
      }
    }
    return moved
  }

  /// Where point `index` is: the joint, or (relative) the step from its left joint to its
  /// right one, kept under the left point's index.
  private func place(of index: Int, in pose: Pose, bodySize: Float, minConfidence: Float)
    -> Joint?
  {
    let point = points[index]
    guard relative, point.side != nil else {
      return point.reference.point(in: pose, side: point.side, minConfidence: minConfidence)
    }
    guard point.side == .left,
      let left = point.reference.point(in: pose, side: .left, minConfidence: minConfidence),
      let right = point.reference.point(in: pose, side: .right, minConfidence: minConfidence)
    else { return nil }
    return Joint(x: (right.x - left.x) / bodySize, y: (right.y - left.y) / bodySize, confidence: 1)
  }

  private static func near(_ joint: Joint, _ home: (x: Float, y: Float), _ limit: Float) -> Bool {
    let (dx, dy) = (joint.x - home.x, joint.y - home.y)
    return dx * dx + dy * dy <= limit * limit
  }
}
