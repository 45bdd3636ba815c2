/// The session at a glance: reps, active time, exercises, and every cue and refusal counted.
enum SummarySection {
  static func draw(_ report: SessionReport, colours: PageStyle.Colours, into page: inout Markup) {
    page.element("h2", [("id", "summary")], "Summary")
    let reps = report.totals.reduce(0) { $0 + $1.reps }
    let active = report.totals.reduce(0) { $0 + $1.activeSeconds }
    let cues = report.cues.reduce(0) { $0 + $1.count }
    page.open("div", [("class", "cards")])
    for (value, label) in [
      ("\(reps)", "reps"), (Markup.clock(active), "active (m:ss)"),
      (Markup.clock(report.end - report.start), "session (m:ss)"),
      ("\(report.totals.count)", report.totals.count == 1 ? "exercise" : "exercises"),
      ("\(report.refusalCount)", "not counted"), ("\(cues)", cues == 1 ? "cue" : "cues"),
    ] {
      page.open("div", [("class", "card")])
      page.element("b", [], value)
      page.element("span", [], label)
      page.close("div")
    }
    page.close("div")
    guard !report.totals.isEmpty else {
      page.element("p", [], "No exercise was recognised.")
      return
    }
    page.open("table")
    page.open("tr")
    for header in ["exercise", "sets", "reps", "partial", "backfilled", "not counted", "active"] {
      page.element("th", [], header)
    }
    page.close("tr")
    for total in report.totals {
      let sets = report.sets.filter { $0.exercise == total.exercise }
      let marks = sets.flatMap(\.reps)
      page.open("tr")
      page.open("td")
      page.raw("<span class=\"swatch\" style=\"background:\(colours[total.exercise])\"></span>")
      page.escaped(total.exercise.replacingOccurrences(of: "_", with: " "))
      page.close("td")
      for value in [
        sets.count, total.reps, marks.filter(\.partial).count, marks.filter(\.backfilled).count,
        sets.reduce(0) { $0 + $1.refusals.count },
      ] {
        page.element("td", [("class", "n")], "\(value)")
      }
      page.element("td", [("class", "n")], Markup.clock(total.activeSeconds))
      page.close("tr")
    }
    page.close("table")
    if !report.cues.isEmpty {
      page.element("h3", [], "Cues")
      page.open("ul")
      for cue in report.cues.sorted(by: { $0.count > $1.count }) {
        page.element("li", [], "\(cue.message) (×\(cue.count))")
      }
      page.close("ul")
    }
    let refusals = report.sets.flatMap(\.refusals)
    if !refusals.isEmpty {
      var byReason: [(String, Int)] = []
      for refusal in refusals {
        let reason = RefusalList.reason(refusal)
        if let index = byReason.firstIndex(where: { $0.0 == reason }) {
          byReason[index].1 += 1
        } else {
          byReason.append((reason, 1))
        }
      }
      page.element("h3", [], "Not counted, by reason")
      page.open("ul")
      for (reason, count) in byReason { page.element("li", [], "\(reason) (×\(count))") }
      page.close("ul")
    }
  }
}
