import Foundation

/// Frames of the video with the pose drawn over them: the JPEG as an SVG image in the video's
/// own pixels (the SVG's view box is the frame's crop), and the skeleton on top with the stick
/// figures' bones and colours, so the page shows where the detector put the body.
enum VideoFrames {
  /// The overview: a row of whole frames spread over the session.
  static func overview(_ video: ReportVideo, into page: inout Markup) {
    guard !video.overview.isEmpty else { return }
    page.element("h2", [("id", "video")], "Video")
    page.open("div", [("class", "stills")])
    for still in video.overview {
      page.open("figure", [("class", "still"), ("data-still", "overview")])
      draw(still, height: 150, into: &page)
      page.element(
        "figcaption", [("class", "muted")],
        Markup.clock(still.frameTime, tenths: true)
          + (still.pose == nil ? ", nobody found" : ""))
      page.close("figure")
    }
    page.close("div")
    page.element(
      "p", [("class", "note")],
      "\(video.file), frames spread over the session, with the pose Spotter followed then (the "
        + "person's left in blue, right in orange).")
  }

  /// A rep's two frames (where it starts and where it turns), as a figure beside its stick
  /// figures; nothing when the video gave neither.
  static func rep(
    _ figures: RepFigures, title: String, names: [String], video: ReportVideo,
    into page: inout Markup
  ) {
    // Each name stays with its own moment when the other's frame is missing.
    let stills = zip(names, [figures.start, figures.turn]).compactMap { name, figure in
      video.repStill(at: figure.t).map { (name: name, still: $0) }
    }
    guard !stills.isEmpty else { return }
    page.open("figure", [("class", "still"), ("data-still", "rep")])
    page.open("div", [("class", "pair")])
    for (name, still) in stills {
      page.open("span")
      draw(still, height: 170, into: &page)
      page.element(
        "span", [("class", "muted")], name + " " + Markup.clock(still.frameTime, tenths: true))
      page.close("span")
    }
    page.close("div")
    page.open("figcaption")
    page.escaped("\(title) in the video: \(stills.map(\.name).joined(separator: " and "))")
    page.close("figcaption")
    page.close("figure")
  }

  /// One still, `height` pixels tall on screen.
  static func draw(_ still: VideoStill, height: Double, into page: inout Markup) {
    let crop = still.crop
    let width = height * crop.width / max(crop.height, 1)
    page.open(
      "svg",
      [
        ("class", "still"),
        (
          "viewBox",
          [crop.x, crop.y, crop.width, crop.height].map { Markup.number($0) }.joined(separator: " ")
        ),
        ("style", "width:\(Markup.number(width))px;height:\(Markup.number(height))px"),
        ("role", "img"),
        ("aria-label", "video frame at \(Markup.clock(still.frameTime, tenths: true))"),
      ])
    page.empty(
      "image",
      [
        ("x", Markup.number(crop.x)), ("y", Markup.number(crop.y)),
        ("width", Markup.number(crop.width)), ("height", Markup.number(crop.height)),
        ("preserveAspectRatio", "none"),
        ("href", "data:image/jpeg;base64," + still.jpeg.base64EncodedString()),
      ])
    if let pose = still.pose {
      StickFigure.figure(pose, unit: crop.height / height * 0.6, into: &page) {
        (Double($0.x), Double($0.y))
      }
    }
    page.close("svg")
  }
}
