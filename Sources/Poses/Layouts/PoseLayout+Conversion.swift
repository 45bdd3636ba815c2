extension PoseLayout {
  /// Maps one person's joints, given as (x, y, c) triples in this layout's order, onto a
  /// canonical pose in Spotter's coordinate space.
  ///
  /// - Parameter raw: `jointCount × 3` floats, already validated (finite, c ≥ 0).
  public func canonicalPose(from raw: UnsafeBufferPointer<Float>, space: CoordinateSpace) -> Pose {
    precondition(raw.count == jointCount * 3, "\(self) pose needs \(jointCount * 3) floats")
    var pose = Pose()
    let table = canonicalJoints
    for index in 0..<jointCount {
      guard let joint = table[index] else { continue }
      let confidence = raw[index * 3 + 2]
      guard confidence > 0 else { continue }
      let (x, y) = space.toInternal(x: raw[index * 3], y: raw[index * 3 + 1])
      pose[joint] = Joint(x: x, y: y, confidence: confidence)
    }
    if pose[.neck].isMissing {
      pose[.neck] = Pose.midpoint(pose[.rightShoulder], pose[.leftShoulder])
    }
    return space.mirrored ? pose.mirrored : pose
  }

  /// Writes a canonical pose as this layout's joints in the source's space: the inverse of
  /// `canonicalPose(from:space:)`. Joints the canonical pose cannot supply are `.missing`.
  public func layoutJoints(from pose: Pose, space: CoordinateSpace) -> [Joint] {
    let sided = space.mirrored ? pose.mirrored : pose
    let midpoints = derivedMidpoints
    return canonicalJoints.enumerated().map { index, canonical in
      let joint: Joint
      if let canonical {
        joint = sided[canonical]
      } else if let (a, b) = midpoints[index] {
        joint = Pose.midpoint(sided[a], sided[b])
      } else {
        joint = .missing
      }
      guard !joint.isMissing else { return .missing }
      let (x, y) = space.toSource(x: joint.x, y: joint.y)
      return Joint(x: x, y: y, confidence: joint.confidence)
    }
  }
}
