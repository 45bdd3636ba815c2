import Poses

/// A rep as two stick figures drawn from the poses themselves: the body at the rep's top and at
/// its bottom, side by side at one scale, so what moved (and how far) shows.
package enum StickFigure {
  /// The bones of the canonical skeleton (COCO-18), with the side each belongs to (the live
  /// page draws its poses with them too).
  package static let bones: [(CanonicalJoint, CanonicalJoint, Side)] = [
    (.neck, .nose, .centre), (.nose, .rightEye, .right), (.rightEye, .rightEar, .right),
    (.nose, .leftEye, .left), (.leftEye, .leftEar, .left),
    (.neck, .rightShoulder, .right), (.rightShoulder, .rightElbow, .right),
    (.rightElbow, .rightWrist, .right), (.neck, .leftShoulder, .left),
    (.leftShoulder, .leftElbow, .left), (.leftElbow, .leftWrist, .left),
    (.neck, .rightHip, .right), (.rightHip, .rightKnee, .right), (.rightKnee, .rightAnkle, .right),
    (.neck, .leftHip, .left), (.leftHip, .leftKnee, .left), (.leftKnee, .leftAnkle, .left),
    (.rightHip, .leftHip, .centre),
  ]

  package enum Side {
    case left, right, centre

    /// The person's left in blue and right in orange, as in most pose tools.
    package var colour: String {
      switch self {
      case .left: "#2b6cb0"
      case .right: "#e07b00"
      case .centre: "#5f6b7a"
      }
    }
  }

  static let box = (width: 120.0, height: 170.0)

  /// What a rep's two moments are called: top and bottom for a rep that goes down first
  /// (`direction` −1), bottom and top for one that goes up (+1), start and turn otherwise.
  static func names(direction: Int) -> [String] {
    direction < 0 ? ["top", "bottom"] : direction > 0 ? ["bottom", "top"] : ["start", "turn"]
  }

  /// A figure with a caption: `title`, then the rep where it starts and where it turns back:
  /// top and bottom for a rep that goes down first (`direction` −1, a squat), bottom and top
  /// for one that goes up (+1, a curl), start and turn when the engine does not say (0).
  static func draw(
    _ figures: RepFigures, title: String, direction: Int, into page: inout Markup
  ) {
    let names = names(direction: direction)
    page.open("figure")
    let height = box.height + 18
    page.open(
      "svg",
      [
        ("viewBox", "0 0 \(Int(2 * box.width + 20)) \(Int(height))"), ("role", "img"),
        ("aria-label", "\(title): rep \(figures.count), where it starts and where it turns"),
      ])
    let poses = [figures.start, figures.turn]
    let points = poses.flatMap { $0.joints.compactMap { $0 } }
    if !points.isEmpty {
      let minX = Double(points.map(\.x).min()!)
      let maxX = Double(points.map(\.x).max()!)
      let minY = Double(points.map(\.y).min()!)
      let maxY = Double(points.map(\.y).max()!)
      let scale = min(
        (box.width - 16) / max(maxX - minX, 1e-6), (box.height - 16) / max(maxY - minY, 1e-6))
      for (index, pose) in poses.enumerated() {
        let offsetX = Double(index) * (box.width + 20) + (box.width - (maxX - minX) * scale) / 2
        let offsetY = (box.height - (maxY - minY) * scale) / 2
        figure(
          pose, into: &page,
          place: { point in
            (
              offsetX + (Double(point.x) - minX) * scale,
              offsetY + (Double(point.y) - minY) * scale
            )
          })
        page.element(
          "text",
          [
            ("x", Markup.number(Double(index) * (box.width + 20) + box.width / 2)),
            ("y", Markup.number(box.height + 12)), ("text-anchor", "middle"), ("class", "muted"),
          ], names[index] + " " + Markup.clock(pose.t, tenths: true))
      }
    }
    page.close("svg")
    page.open("figcaption")
    page.escaped("\(title): rep \(figures.count), \(figures.why)")
    page.close("figcaption")
    page.close("figure")
  }

  /// The bones of `pose`, each side in its colour, and the head; `place` maps a joint to the
  /// drawing's units, and `unit` is how many of those a screen pixel is (strokes and the head
  /// keep their size on screen whatever the drawing's scale: a video frame's pixels).
  static func figure(
    _ pose: StickPose, unit: Double = 1, into page: inout Markup,
    place: (StickPose.Point) -> (x: Double, y: Double)
  ) {
    for side in [Side.centre, .left, .right] {
      var d = ""
      for (a, b, boneSide) in bones where boneSide == side {
        guard let from = pose.joints[a.rawValue], let to = pose.joints[b.rawValue] else {
          continue
        }
        let p = place(from)
        let q = place(to)
        d +=
          "M" + Markup.number(p.x) + " " + Markup.number(p.y) + "L" + Markup.number(q.x) + " "
          + Markup.number(q.y)
      }
      guard !d.isEmpty else { continue }
      page.empty(
        "path",
        [
          ("d", d), ("stroke", side.colour), ("stroke-width", Markup.number(3 * unit, decimals: 2)),
          ("stroke-linecap", "round"),
          ("fill", "none"),
        ])
    }
    if let nose = pose.joints[CanonicalJoint.nose.rawValue] {
      let p = place(nose)
      page.empty(
        "circle",
        [
          ("cx", Markup.number(p.x)), ("cy", Markup.number(p.y)),
          ("r", Markup.number(5 * unit, decimals: 2)), ("fill", "#fff"),
          ("stroke", Side.centre.colour), ("stroke-width", Markup.number(2 * unit, decimals: 2)),
        ])
    }
  }
}
