/// One set's signals over time, a panel each, with the levels the engine judged them against as
/// they adapted (the top a rep is measured from, the level a rep must reach to start, and the
/// bottom of the person's typical rep), the history replayed at recognition hatched, a mark on
/// every counted rep (hollow when backfilled, amber when partial) at its bottom, and a cross on
/// every movement that did not count, with its reason.
///
/// Every rep gets exactly one `data-mark="rep"` element and every refusal one
/// `data-mark="refusal"`, on the panel of the signal that moved as the event says: the tests
/// count them against the events.
struct SetChart {
  let set: SetReport
  let colour: String

  static let width = 960.0
  static let left = 64.0
  static let right = 950.0
  static let panelHeight = 150.0
  static let laneHeight = 56.0
  static let gap = 16.0
  static let axisHeight = 24.0
  /// Samples further apart than this are not joined: the joints were out of sight between.
  static let maxJoin = 0.25

  func draw(into page: inout Markup) {
    let span = set.span
    let time = Scale(span.start, span.end, onto: Self.left, Self.right)
    let traces = set.signals
    let panels = max(traces.count, 1)
    let panelHeight = traces.isEmpty ? Self.laneHeight : Self.panelHeight
    let height = Double(panels) * (panelHeight + Self.gap) + Self.axisHeight
    page.open(
      "svg",
      [
        ("viewBox", "0 0 \(Int(Self.width)) \(Int(height.rounded(.up)))"), ("role", "img"),
        ("aria-label", "Signals of the \(set.exercise) set"),
      ])
    let bottom = Double(panels) * (panelHeight + Self.gap)
    background(&page, time: time, top: 0, bottom: bottom - Self.gap)
    if traces.isEmpty {
      lane(&page, time: time, top: Self.gap, height: panelHeight - Self.gap)
    }
    for (position, trace) in traces.enumerated() {
      let top = Double(position) * (panelHeight + Self.gap) + Self.gap
      panel(&page, trace: trace, first: position == 0, time: time, top: top, height: panelHeight)
    }
    timeAxis(&page, time: time, y: bottom - Self.gap + 4)
    page.close("svg")
  }

  /// The set's own stretch lightly tinted; the replayed history hatched.
  private func background(_ page: inout Markup, time: Scale, top: Double, bottom: Double) {
    page.empty(
      "rect",
      [
        ("x", Markup.number(time(set.start))), ("y", Markup.number(top)),
        ("width", Markup.number(max(1, time(set.end) - time(set.start)))),
        ("height", Markup.number(bottom - top)), ("fill", colour), ("opacity", "0.07"),
      ])
    if let backfill = set.backfill {
      page.open(
        "rect",
        [
          ("x", Markup.number(time(backfill.start))), ("y", Markup.number(top)),
          ("width", Markup.number(max(1, time(backfill.end) - time(backfill.start)))),
          ("height", Markup.number(bottom - top)), ("fill", "url(#hatch)"), ("opacity", "0.55"),
        ])
      page.element(
        "title", [],
        "Backfilled: history replayed when the set was recognised at "
          + Markup.clock(backfill.end, tenths: true))
      page.close("rect")
      page.element(
        "text",
        [
          ("x", Markup.number(time(backfill.start) + 3)), ("y", Markup.number(bottom - 16)),
          ("class", "muted halo"),
        ], "backfilled")
    }
  }

  private func timeAxis(_ page: inout Markup, time: Scale, y: Double) {
    page.empty(
      "line",
      [
        ("class", "axis"), ("x1", Markup.number(Self.left)), ("x2", Markup.number(Self.right)),
        ("y1", Markup.number(y)), ("y2", Markup.number(y)),
      ])
    for tick in time.timeTicks(count: 14) {
      page.element(
        "text",
        [
          ("x", Markup.number(time(tick))), ("y", Markup.number(y + 14)), ("text-anchor", "middle"),
        ],
        Markup.clock(tick, tenths: tick != tick.rounded()))
    }
  }

  // MARK: a signal's panel

  private func panel(
    _ page: inout Markup, trace: SignalTrace, first: Bool, time: Scale, top: Double,
    height: Double
  ) {
    let bottomY = top + height - 10  // room below for the rep spans
    let value = Scale(valueRange(trace).low, valueRange(trace).high, onto: bottomY, top + 8)
    for tick in value.ticks(count: 4) {
      let y = Markup.number(value(tick))
      page.empty(
        "line",
        [
          ("class", "grid"), ("x1", Markup.number(Self.left)), ("x2", Markup.number(Self.right)),
          ("y1", y), ("y2", y),
        ])
      page.element(
        "text",
        [
          ("x", Markup.number(Self.left - 6)), ("y", y), ("dy", "4"),
          ("text-anchor", "end"), ("class", "muted"),
        ],
        Markup.number(tick, decimals: 2) + (trace.units == "°" ? "°" : ""))
    }
    let units = trace.units == "°" ? ", degrees" : trace.units.isEmpty ? "" : ", \(trace.units)"
    page.element(
      "text",
      [
        ("x", Markup.number(Self.left + 4)), ("y", Markup.number(top + 4)),
        ("font-weight", "600"), ("class", "halo"),
      ], trace.name + units)
    if trace.hasLevels {
      line(&page, trace, time: time, value: value, className: "typical") { index in
        trace.typicalRange[index].map {
          trace.top[index] + Double(trace.direction) * $0
        }
      }
      line(&page, trace, time: time, value: value, className: "top") { trace.top[$0] }
      line(&page, trace, time: time, value: value, className: "count") { trace.countLevel[$0] }
    }
    line(&page, trace, time: time, value: value, className: "signal") { trace.value[$0] }
    spans(&page, trace: trace, time: time, y: top + height - 7)
    if first { cues(&page, time: time, y: top + 12) }
    for rep in set.reps where rep.signal == trace.index || (rep.signal == nil && first) {
      repMark(&page, rep, x: time(rep.bottom), y: y(of: trace, at: rep.bottom, value) ?? top + 20)
    }
    for refusal in set.refusals
    where refusal.signal == trace.index || (refusal.signal == nil && first) {
      refusalMark(
        &page, refusal, x: time(refusal.end),
        y: y(of: trace, at: refusal.end, value) ?? top + 20)
    }
  }

  /// A lane without a signal (a staged engine with nothing to measure): the marks alone.
  private func lane(_ page: inout Markup, time: Scale, top: Double, height: Double) {
    page.element(
      "text",
      [
        ("x", Markup.number(Self.left + 4)), ("y", Markup.number(top + 2)),
        ("class", "muted"),
      ],
      "no signal to draw: the engine counts a cycle of stages")
    cues(&page, time: time, y: top + 12)
    for rep in set.reps {
      repMark(&page, rep, x: time(rep.end), y: top + height / 2)
    }
    for refusal in set.refusals {
      refusalMark(&page, refusal, x: time(refusal.end), y: top + height / 2)
    }
  }

  /// The values and levels the panel must show, a little padded.
  private func valueRange(_ trace: SignalTrace) -> (low: Double, high: Double) {
    var low = Double.infinity
    var high = -Double.infinity
    func take(_ value: Double) {
      low = min(low, value)
      high = max(high, value)
    }
    for index in trace.value.indices {
      take(trace.value[index])
      if trace.hasLevels {
        take(trace.top[index])
        take(trace.countLevel[index])
        if let range = trace.typicalRange[index] {
          take(trace.top[index] + Double(trace.direction) * range)
        }
      }
    }
    guard low.isFinite, high.isFinite else { return (0, 1) }
    let pad = (high - low) * 0.04
    return (low - pad, high + pad)
  }

  /// One of the trace's series as a path (nil values and gaps in time break it).
  private func line(
    _ page: inout Markup, _ trace: SignalTrace, time: Scale, value: Scale, className: String,
    _ series: (Int) -> Double?
  ) {
    var path = LinePath()
    var lastT = -Double.infinity
    for index in trace.t.indices {
      let t = trace.t[index]
      guard let v = series(index) else {
        path.breakLine()
        continue
      }
      if t - lastT > Self.maxJoin { path.breakLine() }
      lastT = t
      path.add(time(t), value(v))
    }
    let d = path.finish()
    guard !d.isEmpty else { return }
    page.empty("path", [("class", className), ("d", d)])
  }

  /// Where the trace was at `t` (the sample nearest, within a fifth of a second).
  private func y(of trace: SignalTrace, at t: Double, _ value: Scale) -> Double? {
    let window = trace.indices(from: t - 0.2, to: t + 0.2)
    guard let nearest = window.min(by: { abs(trace.t[$0] - t) < abs(trace.t[$1] - t) }) else {
      return nil
    }
    return value(trace.value[nearest])
  }

  /// A thin bar under the panel from each rep's start to its end, and each refusal's.
  private func spans(_ page: inout Markup, trace: SignalTrace, time: Scale, y: Double) {
    var full = ""
    var partial = ""
    var refused = ""
    func bar(_ start: Double, _ end: Double) -> String {
      "M" + Markup.number(time(start)) + " " + Markup.number(y) + "H"
        + Markup.number(max(time(end), time(start) + 1))
    }
    for rep in set.reps where rep.signal == trace.index {
      if rep.partial { partial += bar(rep.start, rep.end) } else { full += bar(rep.start, rep.end) }
    }
    for refusal in set.refusals where refusal.signal == trace.index {
      refused += bar(refusal.start, refusal.end)
    }
    for (d, colour, opacity) in [
      (full, "#2a9d4a", "0.45"), (partial, "#e39b00", "0.6"), (refused, "#d7263d", "0.4"),
    ] where !d.isEmpty {
      page.empty(
        "path", [("d", d), ("stroke", colour), ("stroke-width", "5"), ("opacity", opacity)])
    }
  }

  private func cues(_ page: inout Markup, time: Scale, y: Double) {
    for cue in set.cues {
      page.open("g", [("class", "cue")])
      page.element("title", [], "Cue at \(Markup.clock(cue.t, tenths: true)): \(cue.message)")
      page.element("text", [("x", Markup.number(time(cue.t))), ("y", Markup.number(y))], "!")
      page.close("g")
    }
  }

  // MARK: marks

  private func repMark(_ page: inout Markup, _ rep: RepMark, x: Double, y: Double) {
    var classes = "rep"
    if rep.partial { classes += " partial" }
    if rep.backfilled { classes += " backfilled" }
    page.open(
      "g",
      [
        ("class", classes), ("data-mark", "rep"), ("data-count", "\(rep.count)"),
        ("data-backfilled", rep.backfilled ? "true" : "false"),
      ])
    page.element("title", [], RepTable.describe(rep))
    page.empty(
      "circle", [("cx", Markup.number(x)), ("cy", Markup.number(y)), ("r", "4.5")])
    page.element(
      "text", [("x", Markup.number(x)), ("y", Markup.number(y - 7)), ("class", "halo")],
      "\(rep.count)")
    page.close("g")
  }

  private func refusalMark(_ page: inout Markup, _ refusal: RefusalMark, x: Double, y: Double) {
    page.open(
      "g", [("class", "refusal"), ("data-mark", "refusal"), ("data-reason", refusal.reason)])
    page.element("title", [], RefusalList.describe(refusal))
    let cx = Markup.number(x)
    let cy = Markup.number(y)
    page.empty(
      "path", [("d", "M-4 -4L4 4M-4 4L4 -4"), ("transform", "translate(\(cx) \(cy))")])
    page.element(
      "text", [("x", cx), ("y", Markup.number(y + 15))], RefusalList.shortReason(refusal))
    page.close("g")
  }
}
