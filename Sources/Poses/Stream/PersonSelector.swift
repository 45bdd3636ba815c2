/// Follows one person through frames that may show several.
///
/// The first person followed is the most prominent one: the largest bounding box of confident
/// joints. After that the selector keeps to whoever overlaps the last followed box, so that a
/// passer-by crossing in front of the camera does not take over the stream. It lets go of the
/// followed person only when they have been gone for `lostAfter` frames, or when someone else has
/// been at least `takeoverRatio` times as prominent for `takeoverAfter` frames in a row (the
/// exerciser was not the first person in view).
public struct PersonSelector: Sendable {
  public var confidenceThreshold: Float = 0.1
  public var lostAfter = 15
  public var takeoverAfter = 60
  public var takeoverRatio: Float = 2

  /// Times someone else took the stream over (the takeover above): a new person is followed,
  /// and what was learned about the last one no longer holds.
  public private(set) var takeovers = 0

  private var followed: Box?
  private var framesLost = 0
  private var framesChallenged = 0

  public init() {}

  /// Chooses the pose to follow among `people`; `.nobody` when there is none to follow.
  ///
  /// Takes an array, not any collection: an unspecialised generic would box each 216-byte
  /// pose on the heap, once per frame.
  public mutating func select(_ people: [Pose]) -> Pose {
    // People by index, not by value: a pose is 216 bytes, and only the one returned is copied.
    var best: (index: Int, box: Box)? = nil
    var match: (index: Int, box: Box, overlap: Float)? = nil
    for index in people.indices {
      guard let box = Box(people[index], threshold: confidenceThreshold) else { continue }
      if best == nil || box.area > best!.box.area { best = (index, box) }
      if let followed {
        let overlap = box.overlap(with: followed)
        if overlap > 0.3, match == nil || overlap > match!.overlap {
          match = (index, box, overlap)
        }
      }
    }

    if let match {
      framesLost = 0
      if let best, best.box.area >= takeoverRatio * match.box.area {
        framesChallenged += 1
        if framesChallenged >= takeoverAfter {
          takeovers += 1
          return follow(people[best.index], best.box)
        }
      } else {
        framesChallenged = 0
      }
      followed = match.box
      return people[match.index]
    }
    if followed != nil {
      framesLost += 1
      if framesLost < lostAfter { return .nobody }
    }
    guard let best else {
      followed = nil
      return .nobody
    }
    return follow(people[best.index], best.box)
  }

  private mutating func follow(_ pose: Pose, _ box: Box) -> Pose {
    followed = box
    framesLost = 0
    framesChallenged = 0
    return pose
  }

  /// The bounding box of a pose's confident joints (at least three of them).
  struct Box: Sendable {
    var minX: Float, minY: Float, maxX: Float, maxY: Float
    var area: Float { (maxX - minX) * (maxY - minY) }

    init?(_ pose: Pose, threshold: Float) {
      minX = .infinity
      minY = .infinity
      maxX = -.infinity
      maxY = -.infinity
      var count = 0
      for index in pose.joints.indices where pose.joints[index].confidence > threshold {
        let joint = pose.joints[index]
        minX = min(minX, joint.x)
        maxX = max(maxX, joint.x)
        minY = min(minY, joint.y)
        maxY = max(maxY, joint.y)
        count += 1
      }
      guard count >= 3 else { return nil }
    }

    /// Intersection over union: 1 for the same box, and small for a large box that merely
    /// contains a small one, so a passer-by in front does not look like the followed person.
    func overlap(with other: Box) -> Float {
      let width = min(maxX, other.maxX) - max(minX, other.minX)
      let height = min(maxY, other.maxY) - max(minY, other.minY)
      guard width > 0, height > 0 else { return 0 }
      let intersection = width * height
      let union = area + other.area - intersection
      return union > 0 ? intersection / union : 0
    }
  }
}
