import Foundation

/// The video a session's poses were detected in (`spotter video`), as its report shows it: a
/// few frames spread over the session, and, beside each set's stick figures, the frames at
/// those moments, each with the pose drawn over it. The frames are small JPEGs kept in the
/// report, so the page stays one file.
public struct ReportVideo: Codable, Equatable, Sendable {
  /// The video's file name.
  public var file: String
  /// The video's size in pixels: the poses' units.
  public var width: Double
  public var height: Double
  /// Frames spread evenly over the session, with the person followed then (if anybody).
  public var overview: [VideoStill]
  /// The frames at the stick figures' moments: each set's typical and worst rep, where it
  /// starts and where it turns.
  public var reps: [VideoStill]

  public init(
    file: String, width: Double, height: Double, overview: [VideoStill] = [],
    reps: [VideoStill] = []
  ) {
    self.file = file
    self.width = width
    self.height = height
    self.overview = overview
    self.reps = reps
  }

  /// The still of the rep frames shown for the moment `t`, if there is one.
  public func repStill(at t: Double) -> VideoStill? { reps.first { $0.t == t } }
}

/// One frame of the video, cut to `crop`, with the pose to draw over it.
public struct VideoStill: Codable, Equatable, Sendable {
  /// The moment it shows, in stream seconds (a figure's time, or an overview's).
  public var t: Double
  /// The frame's own time: the frame nearest `t`.
  public var frameTime: Double
  /// The part of the frame shown, in the video's pixels.
  public var crop: PixelRect
  /// The pose at `t`, in the video's pixels; nil when nobody was seen then.
  public var pose: StickPose?
  /// The picture (JPEG), scaled down.
  public var jpeg: Data

  public init(t: Double, frameTime: Double, crop: PixelRect, pose: StickPose?, jpeg: Data) {
    self.t = t
    self.frameTime = frameTime
    self.crop = crop
    self.pose = pose
    self.jpeg = jpeg
  }
}

/// A rectangle in the video's pixels.
public struct PixelRect: Codable, Equatable, Sendable {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double
}
