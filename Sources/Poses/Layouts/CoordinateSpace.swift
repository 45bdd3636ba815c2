/// How a source writes coordinates, and the conversion to and from Spotter's internal space
/// (y down, the source's own units, the person's own sides).
public struct CoordinateSpace: Equatable, Sendable {
  public enum Units: String, Sendable { case pixels, normalized }
  public enum Origin: String, Sendable {
    case topLeft = "top-left"
    case bottomLeft = "bottom-left"
  }

  public var units: Units
  public var origin: Origin
  /// Image size in pixels, when the source knows it.
  public var imageWidth: Float?
  public var imageHeight: Float?
  /// Front cameras show the person's left on the image's left: swap sides on input.
  public var mirrored: Bool

  public init(
    units: Units = .pixels, origin: Origin = .topLeft, imageWidth: Float? = nil,
    imageHeight: Float? = nil, mirrored: Bool = false
  ) {
    self.units = units
    self.origin = origin
    self.imageWidth = imageWidth
    self.imageHeight = imageHeight
    self.mirrored = mirrored
  }

  /// How long one source unit is inside Spotter, on each axis. Normalised coordinates are
  /// scaled to pixels when the image size is known, so angles keep the image's aspect ratio;
  /// otherwise they stay as they are.
  public var unit: (x: Float, y: Float) {
    if units == .normalized, let width = imageWidth, let height = imageHeight {
      return (width, height)
    }
    return (1, 1)
  }

  /// What a frame normalised to its own box (0…1 on each axis) spans here: the unit, or, for
  /// pixels, the image when its size is known (a pipeline that normalised each frame, then
  /// scaled it to the picture).
  public var frameBox: (x: Float, y: Float) {
    if units == .pixels, let width = imageWidth, let height = imageHeight {
      return (width, height)
    }
    return unit
  }

  /// The y of the image's top edge in source units after scaling. Flipping a bottom-left
  /// origin is y ↦ top − y; with pixels and no image height, top is 0 (a pure sign flip),
  /// which features, being body-relative, do not mind.
  private var top: Float {
    switch units {
    case .normalized: return imageHeight ?? 1
    case .pixels: return imageHeight ?? 0
    }
  }

  /// Maps a point from the source's space into Spotter's (y down).
  @inline(__always)
  public func toInternal(x: Float, y: Float) -> (x: Float, y: Float) {
    let (sx, sy) = unit
    let scaledY = y * sy
    return (x * sx, origin == .bottomLeft ? top - scaledY : scaledY)
  }

  /// Maps a point from Spotter's space back into the source's: the inverse of `toInternal`.
  @inline(__always)
  public func toSource(x: Float, y: Float) -> (x: Float, y: Float) {
    let (sx, sy) = unit
    let unflipped = origin == .bottomLeft ? top - y : y
    return (x / sx, unflipped / sy)
  }
}
