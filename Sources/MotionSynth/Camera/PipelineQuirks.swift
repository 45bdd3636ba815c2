import Poses

/// What other pose pipelines do to poses on their way to a file, drawn on purpose so the
/// runtime meets them in training and in tests.
extension Pose {
  /// The pose with its joints' box stretched to 0…1 on both axes (in the file's space:
  /// `space` maps back), as pipelines that min-max normalise each frame do. Aspect, scale and
  /// position are lost; `FrameBoxCorrector` recovers what it can.
  public func normalisedToItsBox(in space: CoordinateSpace) -> Pose {
    guard hasPerson else { return self }
    var (minX, minY, maxX, maxY) = (
      Float.infinity, Float.infinity, -Float.infinity, -Float.infinity
    )
    for index in joints.indices where !joints[index].isMissing {
      let (x, y) = space.toSource(x: joints[index].x, y: joints[index].y)
      (minX, maxX, minY, maxY) = (min(minX, x), max(maxX, x), min(minY, y), max(maxY, y))
    }
    var result = self
    for index in result.joints.indices where !result.joints[index].isMissing {
      let (x, y) = space.toSource(x: result.joints[index].x, y: result.joints[index].y)
      let nx = maxX > minX ? (x - minX) / (maxX - minX) : 0.5
      let ny = maxY > minY ? (y - minY) / (maxY - minY) : 0.5
      let back = space.toInternal(x: nx, y: ny)
      result.joints[index].x = back.x
      result.joints[index].y = back.y
    }
    return result
  }
}
