import Foundation
import Reporting
import VideoPoses

extension VideoCommand {
  /// Pixels tall: an overview frame shows the whole picture, a rep's frame the person cut out
  /// of it. About 10 to 20 KB of JPEG each, so even a long session's page stays small (six
  /// overview frames and at most four a set).
  static let overviewHeight = 180
  static let repHeight = 200

  /// `report` with the video's frames the page shows (`ReportVideo.wanted`): each moment's
  /// nearest frame, with the pose the session followed then. `frameTimes` are the stream
  /// times of the frames `grab` can cut stills from, by index (a file's every frame, fetched in
  /// one more pass over it; a live source's frames detected, from those its helper kept);
  /// `name` is what the page calls the video.
  static func withFrames(
    _ report: SessionReport, recorder: ReportRecorder, name: String, width: Int, height: Int,
    frameTimes: [Double], grab: ([VideoStillGrabber.Request]) throws -> [Int: Data]
  ) throws -> SessionReport {
    let width = Double(width)
    let height = Double(height)
    let wanted = ReportVideo.wanted(
      for: report, width: width, height: height, pose: recorder.stickPose(at:))
    let frames = wanted.map { VideoFrameTimes.nearest($0.t, in: frameTimes) ?? 0 }
    let requests = zip(wanted, frames).map { want, frame in
      VideoStillGrabber.Request(
        frame: frame, crop: (want.crop.x, want.crop.y, want.crop.width, want.crop.height),
        height: want.isOverview ? overviewHeight : repHeight)
    }
    let jpegs = try grab(requests)
    var shown = ReportVideo(file: name, width: width, height: height)
    for (index, want) in wanted.enumerated() {
      guard let jpeg = jpegs[index] else { continue }
      let still = VideoStill(
        t: want.t, frameTime: frameTimes[frames[index]], crop: want.crop,
        pose: want.pose, jpeg: jpeg)
      if want.isOverview {
        shown.overview.append(still)
      } else {
        shown.reps.append(still)
      }
    }
    var report = report
    report.source = name  // not the pose file, which may be a temporary one
    report.video = shown
    return report
  }
}
