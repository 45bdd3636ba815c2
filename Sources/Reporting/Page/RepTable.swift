/// A set's reps as a table with bars (range of motion; time down and up), then left against
/// right for exercises done a side at a time, and the set's trend.
enum RepTable {
  static func draw(_ set: SetReport, into page: inout Markup) {
    let common = set.repUnits
    let units = common ?? ""
    guard !set.reps.isEmpty else {
      page.element("p", [("class", "note")], "No reps counted in this set.")
      return
    }
    let sided = set.reps.contains { $0.side != nil }
    let widest = max(set.reps.map(\.rangeOfMotion).max() ?? 0, 1e-9)
    let longest = max(set.reps.map { $0.timeDown + $0.timeUp }.max() ?? 0, 1e-9)
    page.open("table", [("class", "reps")])
    page.open("thead")
    page.open("tr")
    var headers = ["#", "at", "range" + (units.isEmpty ? "" : " (\(units))"), "", "down", "up", ""]

    if sided { headers.append("side") }
    headers += ["kind", "cue"]
    for header in headers { page.element("th", [], header) }
    page.close("tr")
    page.close("thead")
    page.open("tbody")
    for rep in set.reps {
      page.open("tr")
      page.element("td", [("class", "n")], "\(rep.count)")
      page.element("td", [("class", "n")], Markup.clock(rep.end, tenths: true))
      page.element(
        "td", [("class", "n")],
        common == nil
          ? RangeOfMotionText.amount(
            rep.rangeOfMotion, units: set.units(ofSignal: rep.signal), named: true)
          : RangeOfMotionText.amount(rep.rangeOfMotion, units: units))
      page.open("td", [("class", "barcell")])
      bar(&page, rep.partial ? "bar partial" : "bar", share: rep.rangeOfMotion / widest)
      page.close("td")
      page.element("td", [("class", "n")], seconds(rep.timeDown))
      page.element("td", [("class", "n")], seconds(rep.timeUp))
      page.open("td", [("class", "barcell")])
      bar(&page, "bar down", share: rep.timeDown / longest)
      bar(&page, "bar up", share: rep.timeUp / longest)
      page.close("td")
      if sided { page.element("td", [], rep.side ?? "") }
      page.element(
        "td", [],
        (rep.partial ? "partial" : "full") + (rep.backfilled ? ", backfilled" : ""))
      page.element("td", [], rep.cue ?? "")
      page.close("tr")
    }
    page.close("tbody")
    page.close("table")
    page.open("p", [("class", "legend")])
    page.raw("<span class=\"bar\" style=\"width:18px\"></span> range of motion ")
    page.raw("<span class=\"bar partial\" style=\"width:18px\"></span> partial ")
    page.raw("<span class=\"bar down\" style=\"width:18px\"></span> time down ")
    page.raw("<span class=\"bar up\" style=\"width:18px\"></span> time up")
    page.close("p")
    if common == nil {
      page.element(
        "p", [("class", "note")],
        "These reps were counted on signals in different units; the comparisons below mix them.")
    }
    if let analysis = set.analysis {
      sides(analysis.sides, units: units, into: &page)
      trend(analysis.trend, reps: set.reps.count, units: units, into: &page)
    }
  }

  private static func bar(_ page: inout Markup, _ className: String, share: Double) {
    let width = Markup.number(
      max(0, min(1, share))
        * (className.contains("down")
          || className.contains("up") ? 80 : 160))
    page.raw("<span class=\"\(className)\" style=\"width:\(width)px\"></span>")
  }

  /// Left against right: reps, and the median range and times of each side.
  static func sides(_ sides: [SideSummary], units: String, into page: inout Markup) {
    guard sides.count > 1 else { return }
    page.element("h3", [], "Left against right")
    page.open("table")
    page.open("tr")
    for header in ["side", "reps", "median range", "median down", "median up"] {
      page.element("th", [], header)
    }
    page.close("tr")
    for side in sides {
      page.open("tr")
      page.element("td", [], side.side)
      page.element("td", [("class", "n")], "\(side.reps)")
      page.element(
        "td", [("class", "n")],
        RangeOfMotionText.amount(side.medianRange, units: units, named: true))
      page.element("td", [("class", "n")], seconds(side.medianTimeDown))
      page.element("td", [("class", "n")], seconds(side.medianTimeUp))
      page.close("tr")
    }
    page.close("table")
    let ranges = sides.map(\.medianRange)
    if let low = ranges.min(), let high = ranges.max(), high > 0 {
      let shallow = sides.first { $0.medianRange == low }!.side
      let deep = sides.first { $0.medianRange == high }!.side
      let gap = Int(((1 - low / high) * 100).rounded())
      page.element(
        "p", [],
        gap < 5
          ? "Both sides move alike (within 5% of each other)."
          : "The \(shallow) side moves \(gap)% less than the \(deep).")
    }
  }

  /// From the first third of the set to the last: range and time per rep.
  static func trend(_ trend: Trend?, reps: Int, units: String, into page: inout Markup) {
    page.open("p")
    guard let trend else {
      page.escaped("Trend: too few reps (\(reps)) to tell; four or more are needed.")
      page.close("p")
      return
    }
    page.raw("Trend, first third of the set against the last: ")
    page.escaped(
      "range " + RangeOfMotionText.amount(trend.firstRange, units: units) + " → "
        + RangeOfMotionText.amount(trend.lastRange, units: units, named: true) + " ("
        + percent(trend.lastRange / max(trend.firstRange, 1e-9) - 1) + "), "
        + seconds(trend.firstDuration) + " → " + seconds(trend.lastDuration) + " a rep ("
        + percent(trend.lastDuration / max(trend.firstDuration, 1e-9) - 1) + "). ")
    if trend.tiring {
      let how = [trend.slower ? "slower" : nil, trend.shallower ? "shallower" : nil]
        .compactMap { $0 }.joined(separator: " and ")
      page.element("span", [("class", "tiring")], "Tiring: reps got \(how).")
    } else {
      page.element("span", [("class", "steady")], "Steady.")
    }
    page.close("p")
  }

  static func seconds(_ value: Double) -> String {
    Markup.number(value, decimals: 2, fixed: true) + " s"
  }

  static func percent(_ change: Double) -> String {
    let value = Int((change * 100).rounded())
    return (value > 0 ? "+" : value < 0 ? "−" : "±") + "\(abs(value))%"
  }

  /// A rep in one line, for its mark's tooltip.
  static func describe(_ rep: RepMark) -> String {
    var text =
      "Rep \(rep.count) at \(Markup.clock(rep.end, tenths: true)): range "
      + Markup.number(rep.rangeOfMotion, decimals: 2) + ", " + seconds(rep.timeDown) + " down, "
      + seconds(rep.timeUp) + " up"
    if let side = rep.side { text += ", \(side) side" }
    text += rep.partial ? ", partial" : ", full"
    if rep.backfilled { text += ", backfilled (counted on recognition)" }
    if let cue = rep.cue { text += ". Cue: \(cue)" }
    return text
  }
}

/// The movements of a set that did not count, each with the engine's reason and the cue given.
enum RefusalList {
  static func draw(_ set: SetReport, into page: inout Markup) {
    guard !set.refusals.isEmpty else { return }
    page.element("h3", [], "Not counted (\(set.refusals.count))")
    page.open("table")
    page.open("tr")
    for header in ["at", "reason", "range", "cue"] {
      page.element("th", [], header)
    }
    page.close("tr")
    for refusal in set.refusals {
      page.open("tr")
      page.element("td", [("class", "n")], Markup.clock(refusal.end, tenths: true))
      page.element("td", [], reason(refusal))
      page.element(
        "td", [("class", "n")],
        RangeOfMotionText.amount(
          refusal.rangeOfMotion, units: set.units(ofSignal: refusal.signal), named: true))
      page.element("td", [], refusal.cue ?? "")
      page.close("tr")
    }
    page.close("table")
  }

  /// The engine's reason in words.
  static func reason(_ refusal: RefusalMark) -> String {
    switch refusal.reason {
    case "too_small": return "too small: turned back before it was a rep"
    case "partial": return "partial: short of a full rep (strict counting)"
    case "too_fast": return "too quick to be a rep"
    case "too_slow": return "too slow: held at the bottom too long"
    case "interrupted":
      switch refusal.detail {
      case "anchor"?: return "interrupted: a joint that stays put left its place"
      case "travel"?: return "interrupted: the person walked"
      case "gap"?: return "interrupted: nobody in view"
      case "end"?: return "interrupted: the recording ended mid-rep"
      default: return "interrupted"
      }
    case "out_of_sight": return "a joint it is counted from went out of sight"
    default: return refusal.reason.replacingOccurrences(of: "_", with: " ")
    }
  }

  /// A word or two under the mark.
  static func shortReason(_ refusal: RefusalMark) -> String {
    switch refusal.reason {
    case "too_small": "small"
    case "too_fast": "quick"
    case "too_slow": "slow"
    case "interrupted": refusal.detail ?? "interrupted"
    case "out_of_sight": "unseen"
    default: refusal.reason.replacingOccurrences(of: "_", with: " ")
    }
  }

  static func describe(_ refusal: RefusalMark) -> String {
    "Not counted at \(Markup.clock(refusal.end, tenths: true)): \(reason(refusal)); range "
      + Markup.number(refusal.rangeOfMotion, decimals: 2)
      + (refusal.backfilled ? " (backfilled)" : "")
      + (refusal.cue.map { ". Cue: \($0)" } ?? "")
  }
}
