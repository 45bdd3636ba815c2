import RepCounting

/// A definition's signal in words and units, for the chart that draws it: `hip height above
/// ankle (both sides)`, in body sizes; `elbow angle (shoulder–elbow–wrist)`, in degrees.
enum SignalNaming {
  static func name(_ spec: SignalSpec) -> String {
    let from = spec.from.map(joint) ?? "?"
    let to = spec.to.map(joint) ?? "?"
    var text: String
    switch spec.kind {
    case .angle:
      let joints = (spec.joints ?? []).map(joint)
      text =
        joints.count == 3
        ? "\(joints[1]) angle (\(joints.joined(separator: "–")))" : "angle"
    case .verticalOffset: text = "\(to) height above \(from)"
    case .horizontalOffset: text = "\(to) sideways from \(from)"
    case .distance: text = "\(from) to \(to) distance"
    case .inclination:
      let reference = (spec.relativeTo ?? []).map(joint)
      text =
        "\(from)–\(to) lean from "
        + (reference.count == 2 ? reference.joined(separator: "–") : "straight down")
    }
    if spec.absolute == true { text += ", either way" }
    switch spec.side {
    case .left?: text += " (left)"
    case .right?: text += " (right)"
    case .mean?: text += " (both sides)"
    case .min?: text += " (the lower side)"
    case .max?: text += " (the higher side)"
    case .mostConfident?: text += " (the side seen better)"
    case nil: break
    }
    return text
  }

  /// Degrees for angles and leans; body sizes (the person's own scale) for the rest.
  static func units(_ spec: SignalSpec) -> String {
    switch spec.kind {
    case .angle, .inclination: "°"
    case .verticalOffset, .horizontalOffset, .distance: "body sizes"
    }
  }

  private static func joint(_ name: String) -> String {
    name.replacingOccurrences(of: "_", with: " ")
  }
}
