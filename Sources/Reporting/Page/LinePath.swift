/// An SVG path's `d` for lines through points in pixels, broken where the data has gaps, with
/// points that do not change the drawing dropped.
///
/// A set of a minute is 1,800 samples on a chart under 900 pixels wide: most points of a slow
/// signal, and nearly all of a level that holds still, lie within a fraction of a pixel of the
/// line through their neighbours. Ramer–Douglas–Peucker keeps a point only when leaving it out
/// would move the line by more than `tolerance` pixels, which keeps a 10-minute session's page
/// well under 2 MB and looks the same.
struct LinePath {
  /// A third of a pixel: below what a screen or a printer shows.
  static let tolerance = 0.35

  private(set) var d = ""
  private var run: [(x: Double, y: Double)] = []

  var isEmpty: Bool { d.isEmpty && run.isEmpty }

  /// Adds a point to the current run.
  mutating func add(_ x: Double, _ y: Double) { run.append((x, y)) }

  /// Ends the current run: the next point starts a new line.
  mutating func breakLine() {
    defer { run.removeAll(keepingCapacity: true) }
    guard !run.isEmpty else { return }
    let kept = Self.simplify(run, tolerance: Self.tolerance)
    for (position, index) in kept.enumerated() {
      d += position == 0 ? "M" : (position == 1 ? "L" : " ")
      d += Markup.number(run[index].x) + " " + Markup.number(run[index].y)
    }
    if kept.count == 1 {
      // A lone point still shows, as a dot the width of the stroke.
      d += "h0.1"
    }
  }

  /// The finished `d`.
  mutating func finish() -> String {
    breakLine()
    return d
  }

  /// The indices of the points to keep (Ramer–Douglas–Peucker, without recursion).
  static func simplify(_ points: [(x: Double, y: Double)], tolerance: Double) -> [Int] {
    guard points.count > 2 else { return Array(points.indices) }
    var keep = [Bool](repeating: false, count: points.count)
    keep[0] = true
    keep[points.count - 1] = true
    var pending = [(0, points.count - 1)]
    while let (first, last) = pending.popLast() {
      guard last > first + 1 else { continue }
      let (ax, ay) = points[first]
      let (bx, by) = points[last]
      let dx = bx - ax
      let dy = by - ay
      let length = (dx * dx + dy * dy).squareRoot()
      var farthest = first
      var distance = 0.0
      for index in (first + 1)..<last {
        let (px, py) = points[index]
        let d =
          length > 0
          ? abs(dy * (px - ax) - dx * (py - ay)) / length
          : ((px - ax) * (px - ax) + (py - ay) * (py - ay)).squareRoot()
        if d > distance {
          distance = d
          farthest = index
        }
      }
      if distance > tolerance {
        keep[farthest] = true
        pending.append((first, farthest))
        pending.append((farthest, last))
      }
    }
    return keep.indices.filter { keep[$0] }
  }
}
