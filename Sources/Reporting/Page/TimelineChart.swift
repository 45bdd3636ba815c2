/// The whole session on one time axis: when a person was in view, what the classifier thought
/// (its probabilities stacked, each label in its colour), the sets the smoother chose with their
/// start and end, the history replayed when each was recognised, and every rep and refusal.
struct TimelineChart {
  let report: SessionReport
  let colours: PageStyle.Colours

  static let width = 960.0
  static let left = 104.0
  static let right = 950.0
  /// Rows, top to bottom: (y, height).
  static let presenceRow = (y: 8.0, height: 10.0)
  static let bandRow = (y: 26.0, height: 64.0)
  static let setRow = (y: 98.0, height: 26.0)
  static let backfillRow = (y: 140.0, height: 10.0)
  static let repRow = (y: 158.0, height: 14.0)
  static let axisY = 180.0
  static let height = 200.0
  /// Labels drawn in their own colour in the band; the rest are stacked together in grey.
  static let bandLabels = 8
  /// A label gets its own colour in the band if it ever leads a window by this much.
  static let bandShare: Float = 0.2

  var time: Scale {
    Scale(report.start, max(report.end, report.start), onto: Self.left, Self.right)
  }

  func draw(into page: inout Markup) {
    page.open(
      "svg",
      [
        ("viewBox", "0 0 \(Int(Self.width)) \(Int(Self.height))"), ("role", "img"),
        ("aria-label", "Timeline of the session"),
      ])
    defs(&page)
    rowLabel(&page, "in view", Self.presenceRow)
    rowLabel(&page, "classifier", Self.bandRow)
    rowLabel(&page, "sets", Self.setRow)
    rowLabel(&page, "backfilled", Self.backfillRow)
    rowLabel(&page, "reps", Self.repRow)
    axis(&page)
    presence(&page)
    band(&page)
    sets(&page)
    repTicks(&page)
    page.close("svg")
  }

  /// The hatching that marks backfilled history, here and in the set charts.
  private func defs(_ page: inout Markup) {
    page.raw(
      "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        + "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eef2f7\"/>"
        + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8aa1bd\" stroke-width=\"2\"/>"
        + "</pattern></defs>")
  }

  private func rowLabel(_ page: inout Markup, _ text: String, _ row: (y: Double, height: Double)) {
    page.element(
      "text",
      [
        ("x", Markup.number(Self.left - 8)), ("y", Markup.number(row.y + row.height / 2 + 4)),
        ("text-anchor", "end"), ("class", "muted"),
      ], text)
  }

  private func axis(_ page: inout Markup) {
    let time = time
    page.empty(
      "line",
      [
        ("class", "axis"), ("x1", Markup.number(Self.left)), ("x2", Markup.number(Self.right)),
        ("y1", Markup.number(Self.axisY)), ("y2", Markup.number(Self.axisY)),
      ])
    for tick in time.timeTicks(count: 12) {
      let x = Markup.number(time(tick))
      page.empty(
        "line",
        [
          ("class", "grid"), ("x1", x), ("x2", x), ("y1", Markup.number(Self.presenceRow.y)),
          ("y2", Markup.number(Self.axisY + 4)),
        ])
      page.element(
        "text",
        [("x", x), ("y", Markup.number(Self.axisY + 15)), ("text-anchor", "middle")],
        Markup.clock(tick))
    }
  }

  private func presence(_ page: inout Markup) {
    let time = time
    for span in report.presence {
      rect(
        &page, x: time(span.start), to: time(span.end), row: Self.presenceRow,
        attributes: [("fill", "#9fb8cf")],
        title: "In view \(Markup.clock(span.start, tenths: true))–"
          + Markup.clock(span.end, tenths: true))
    }
  }

  /// The classifier's probabilities, stacked: one filled shape per label per stretch of
  /// predictions, averaged over columns a pixel and a half wide.
  private func band(_ page: inout Markup) {
    let predictions = report.predictions
    guard !predictions.isEmpty, !report.labels.isEmpty else {
      page.element(
        "text",
        [
          ("x", Markup.number(Self.left + 4)),
          ("y", Markup.number(Self.bandRow.y + Self.bandRow.height / 2 + 4)), ("class", "muted"),
        ], "no classifier: one exercise counted throughout")
      return
    }
    let shown = bandGroups()
    let time = time
    // Columns: the mean of each group's probability over the predictions in it; a stretch
    // ends where predictions stop for more than a second (nobody in view).
    var stretches: [[(x: Double, shares: [Double])]] = []
    var current: [(x: Double, shares: [Double])] = []
    var column: (index: Int, sums: [Double], count: Int)?
    var lastT = -Double.infinity
    func flush() {
      guard let open = column else { return }
      current.append(
        (Self.left + (Double(open.index) + 0.5) * 1.5, open.sums.map { $0 / Double(open.count) }))
      column = nil
    }
    for prediction in predictions {
      let index = Int((time(prediction.t) - Self.left) / 1.5)
      if prediction.t - lastT > 1 {
        flush()
        if !current.isEmpty { stretches.append(current) }
        current = []
      }
      lastT = prediction.t
      if column?.index != index { flush() }
      var sums = column?.sums ?? [Double](repeating: 0, count: shown.count)
      for (group, members) in shown.enumerated() {
        for label in members { sums[group] += Double(prediction.probabilities[label]) }
      }
      column = (index, sums, (column?.count ?? 0) + 1)
    }
    flush()
    if !current.isEmpty { stretches.append(current) }
    let base = Self.bandRow.y + Self.bandRow.height
    for (group, members) in shown.enumerated() {
      let name = members.count == 1 ? report.labels[members[0]] : "the other labels"
      let colour = members.count == 1 ? colours[name] : PageStyle.grey
      var d = ""
      for stretch in stretches {
        guard stretch.contains(where: { $0.shares[group] > 0.005 }) else { continue }
        var below = [Double](repeating: 0, count: stretch.count)
        for (position, column) in stretch.enumerated() {
          below[position] = column.shares[..<group].reduce(0, +)
        }
        var top = LinePath()
        var bottom = LinePath()
        for (position, column) in stretch.enumerated() {
          top.add(column.x, base - (below[position] + column.shares[group]) * Self.bandRow.height)
        }
        for position in stretch.indices.reversed() {
          bottom.add(stretch[position].x, base - below[position] * Self.bandRow.height)
        }
        let upper = top.finish()
        let lower = bottom.finish()
        d += upper + "L" + lower.dropFirst() + "Z"
      }
      guard !d.isEmpty else { continue }
      page.open("path", [("d", d), ("fill", colour)])
      page.element("title", [], "Classifier: \(name.replacingOccurrences(of: "_", with: " "))")
      page.close("path")
    }
  }

  /// The label indices drawn in the band, each group one colour: labels that ever lead a window
  /// by `bandShare` get their own (the `bandLabels` with the most probability in all), the rest
  /// one grey group on top.
  func bandGroups() -> [[Int]] {
    let count = report.labels.count
    var peak = [Float](repeating: 0, count: count)
    var mass = [Double](repeating: 0, count: count)
    for prediction in report.predictions {
      for index in 0..<min(count, prediction.probabilities.count) {
        peak[index] = max(peak[index], prediction.probabilities[index])
        mass[index] += Double(prediction.probabilities[index])
      }
    }
    let own = Set(
      (0..<count).filter { peak[$0] >= Self.bandShare && report.labels[$0] != "other" }
        .sorted { mass[$0] > mass[$1] }.prefix(Self.bandLabels))
    var groups = (0..<count).filter { own.contains($0) }.map { [$0] }
    let rest = (0..<count).filter { !own.contains($0) }
    if !rest.isEmpty { groups.append(rest) }
    return groups
  }

  private func sets(_ page: inout Markup) {
    let time = time
    for set in report.sets {
      let x0 = time(set.start)
      let x1 = max(time(set.end), x0 + 1)
      let name = set.exercise.replacingOccurrences(of: "_", with: " ")
      let times = Markup.clock(set.start, tenths: true) + "–" + Markup.clock(set.end, tenths: true)
      page.open("g")
      page.element(
        "title", [],
        "\(name) \(times), \(set.reps.count) reps"
          + (set.backfill.map { ", recognised at \(Markup.clock($0.end, tenths: true))" } ?? ""))
      page.empty(
        "rect",
        [
          ("x", Markup.number(x0)), ("y", Markup.number(Self.setRow.y)),
          ("width", Markup.number(x1 - x0)), ("height", Markup.number(Self.setRow.height)),
          ("rx", "3"), ("fill", colours[set.exercise]),
        ])
      // Labels only where they fit (about 0.6 em a character), so neighbours never overlap.
      let room = x1 - x0 - 5
      let count = "×\(set.reps.count)"
      let heading = set.counted ? "\(name) \(count)" : name
      var labels: [(text: String, size: Double, y: Double)] = []
      if fits(heading, 10, room) {
        labels.append((heading, 10, 11))
      } else if set.counted, fits(count, 10, room) {
        labels.append((count, 10, 11))
      }
      if fits(times, 9, room) { labels.append((times, 9, 22)) }
      for label in labels {
        page.element(
          "text",
          [
            ("x", Markup.number(x0 + 3)), ("y", Markup.number(Self.setRow.y + label.y)),
            ("font-size", Markup.number(label.size)),
          ], label.text)
      }
      page.close("g")
      if let backfill = set.backfill {
        rect(
          &page, x: time(backfill.start), to: time(backfill.end), row: Self.backfillRow,
          attributes: [("fill", "url(#hatch)"), ("stroke", "#8aa1bd"), ("stroke-width", "0.5")],
          title: "\(name): history replayed when recognised, "
            + Markup.clock(backfill.start, tenths: true) + "–"
            + Markup.clock(backfill.end, tenths: true))
      }
    }
  }

  /// Whether `text` in a `size`-pixel font fits in `room` pixels.
  private func fits(_ text: String, _ size: Double, _ room: Double) -> Bool {
    Double(text.count) * size * 0.6 <= room
  }

  /// A tick per rep (hollow when backfilled) and a short red tick per refusal.
  private func repTicks(_ page: inout Markup) {
    let time = time
    var solid = ""
    var hollow = ""
    var refused = ""
    let top = Self.repRow.y
    let height = Self.repRow.height
    for set in report.sets {
      for rep in set.reps {
        let path =
          "M" + Markup.number(time(rep.end)) + " " + Markup.number(top) + "v"
          + Markup.number(height * 0.6)
        if rep.backfilled { hollow += path } else { solid += path }
      }
      for refusal in set.refusals {
        refused +=
          "M" + Markup.number(time(refusal.end)) + " " + Markup.number(top + height * 0.6) + "v"
          + Markup.number(height * 0.4)
      }
    }
    if !solid.isEmpty {
      page.empty("path", [("d", solid), ("stroke", "#2a9d4a"), ("stroke-width", "1.2")])
    }
    if !hollow.isEmpty {
      page.empty("path", [("d", hollow), ("stroke", "#9fd4ae"), ("stroke-width", "1.2")])
    }
    if !refused.isEmpty {
      page.empty("path", [("d", refused), ("stroke", "#d7263d"), ("stroke-width", "1.2")])
    }
  }

  private func rect(
    _ page: inout Markup, x: Double, to end: Double, row: (y: Double, height: Double),
    attributes: [(String, String)], title: String
  ) {
    page.open(
      "rect",
      [
        ("x", Markup.number(x)), ("y", Markup.number(row.y)),
        ("width", Markup.number(max(end - x, 1))), ("height", Markup.number(row.height)),
      ] + attributes)
    page.element("title", [], title)
    page.close("rect")
  }
}
