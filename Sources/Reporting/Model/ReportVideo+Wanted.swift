import Foundation

extension ReportVideo {
  /// A still the report wants from the video: when, which part, and the pose to draw.
  public struct Wanted: Sendable {
    public var t: Double
    public var crop: PixelRect
    public var pose: StickPose?
    /// An overview frame (the whole picture), or one of a rep's (cut to the person).
    public var isOverview: Bool
  }

  /// Overview frames: six, whatever the length, so a ten-minute video's page is no heavier than
  /// a minute's; enough to see where the person was and that the poses lie on them.
  public static let overviewCount = 6

  /// The stills `report` shows, for a video of `width` × `height` pixels: `overviewCount`
  /// frames at the middles of equal stretches of the session, each moved to the nearest moment
  /// within its stretch at which `pose` (the person followed, as the report's figures have
  /// them) found somebody; and for each counted set the moments of its stick figures, cut to
  /// the person (one crop for both frames of a rep, so they compare at one scale, as the
  /// figures do). At most four frames a set, so the page grows with the sets, not the minutes.
  public static func wanted(
    for report: SessionReport, width: Double, height: Double,
    pose: (Double) -> StickPose?
  ) -> [Wanted] {
    var wanted: [Wanted] = []
    let whole = PixelRect(x: 0, y: 0, width: width, height: height)
    let span = max(report.end - report.start, 0)
    let slot = span / Double(overviewCount)
    for index in 0..<overviewCount {
      let middle = report.start + (Double(index) + 0.5) * slot
      var found: (t: Double, pose: StickPose)?
      // Outwards from the middle, a tick (1/30 s) at a time, to the stretch's edges.
      let steps = Int((slot / 2) * 30)
      search: for step in 0...max(steps, 0) {
        for t in [middle - Double(step) / 30, middle + Double(step) / 30] {
          if let seen = pose(t) {
            found = (t, seen)
            break search
          }
        }
      }
      wanted.append(
        Wanted(t: found?.t ?? middle, crop: whole, pose: found?.pose, isOverview: true))
    }
    for set in report.sets where set.counted {
      for figures in [set.analysis?.typical, set.analysis?.worst].compactMap({ $0 }) {
        let crop = Self.crop(around: [figures.start, figures.turn], width: width, height: height)
        for still in [figures.start, figures.turn] {
          wanted.append(Wanted(t: still.t, crop: crop, pose: still, isOverview: false))
        }
      }
    }
    return wanted
  }

  /// The box of the poses' joints, a fifth wider each way, grown to the stick figures' shape
  /// (taller than wide) and kept inside the picture.
  static func crop(around poses: [StickPose], width: Double, height: Double) -> PixelRect {
    let points = poses.flatMap { $0.joints.compactMap { $0 } }
    guard !points.isEmpty else { return PixelRect(x: 0, y: 0, width: width, height: height) }
    let minX = Double(points.map(\.x).min()!)
    let maxX = Double(points.map(\.x).max()!)
    let minY = Double(points.map(\.y).min()!)
    let maxY = Double(points.map(\.y).max()!)
    let aspect = 0.75  // width over height
    var boxHeight = max(maxY - minY, (maxX - minX) / aspect, 16) * 1.4
    var boxWidth = boxHeight * aspect
    boxHeight = min(boxHeight, height)
    boxWidth = min(boxWidth, width)
    let x = min(max((minX + maxX) / 2 - boxWidth / 2, 0), width - boxWidth)
    let y = min(max((minY + maxY) / 2 - boxHeight / 2, 0), height - boxHeight)
    return PixelRect(x: x, y: y, width: boxWidth, height: boxHeight)
  }
}
