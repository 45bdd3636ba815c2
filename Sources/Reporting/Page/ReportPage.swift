import Foundation

/// The report as one self-contained HTML page: inline CSS and SVG, no script, nothing fetched
/// from anywhere, so it reads offline, mails as one file and prints.
///
/// Top to bottom: the summary, the timeline, then each counted set: its signals with the
/// engine's levels and a mark on every rep and refusal, what did not count and why, the reps as
/// a table with bars, left against right, the trend, and stick figures of a typical rep and of
/// the worst.
public enum ReportPage {
  public static func html(_ report: SessionReport) -> String {
    var page = Markup(
      capacity: 64 * 1024 + report.sets.reduce(0) { $0 + $1.signals.count } * 32_768)
    let colours = PageStyle.Colours(report)
    page.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
    page.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
    page.element("title", [], "Spotter report: \(report.source)")
    page.raw("\n<style>\n" + PageStyle.css + "</style>\n</head>\n<body>\n")
    header(report, into: &page)
    SummarySection.draw(report, colours: colours, into: &page)
    page.raw("\n")
    timeline(report, colours: colours, into: &page)
    if let video = report.video {
      page.raw("\n")
      VideoFrames.overview(video, into: &page)
    }
    var number = 0
    for set in report.sets where set.counted {
      number += 1
      page.raw("\n")
      SetSection.draw(
        set, number: number, colour: colours[set.exercise], video: report.video, into: &page)
    }
    page.raw("\n<footer><p class=\"note\">Made by spotter report. Times are stream time (m:ss) ")
    page.raw("from the start of the poses. Hover a mark for its details.</p></footer>\n")
    page.raw("</body>\n</html>\n")
    return page.text
  }

  /// Stream seconds as the page writes them, `m:ss` (`m:ss.s` with `tenths`), for a command
  /// line that speaks of the same session in the same words.
  public static func clock(_ seconds: Double, tenths: Bool = false) -> String {
    Markup.clock(seconds, tenths: tenths)
  }

  private static func header(_ report: SessionReport, into page: inout Markup) {
    page.open("header")
    page.element("h1", [], "Spotter session report")
    var meta = report.source + " · " + Markup.clock(report.end - report.start) + " of poses"
    if let date = report.date {
      let format = ISO8601DateFormatter()
      format.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime]
      meta += " · " + format.string(from: date).replacingOccurrences(of: "T", with: " ")
    }
    page.element("p", [("class", "meta")], meta)
    page.close("header")
  }

  private static func timeline(
    _ report: SessionReport, colours: PageStyle.Colours, into page: inout Markup
  ) {
    page.element("h2", [("id", "timeline")], "Timeline")
    let chart = TimelineChart(report: report, colours: colours)
    chart.draw(into: &page)
    page.open("p", [("class", "legend")])
    if !report.labels.isEmpty {
      page.escaped("Classifier band, each window's probabilities stacked:")
      for group in chart.bandGroups() {
        let name = group.count == 1 ? report.labels[group[0]] : "the other labels"
        let colour = group.count == 1 ? colours[name] : PageStyle.grey
        page.raw("<span class=\"swatch\" style=\"background:\(colour)\"></span>")
        page.escaped(name.replacingOccurrences(of: "_", with: " "))
      }
      page.raw("<br/>")
    }
    page.escaped(
      "Sets: the exercises the smoother chose, from start to end. Backfilled: the history "
        + "the rep engine replayed when the set was recognised (reps counted then are hollow). "
        + "Reps: a tick per rep (pale when backfilled), red below for movements not counted.")
    page.close("p")
  }
}

/// One counted set: heading, signals chart, refusals, rep table, trend, figures.
enum SetSection {
  static func draw(
    _ set: SetReport, number: Int, colour: String, video: ReportVideo? = nil,
    into page: inout Markup
  ) {
    let name = set.exercise.replacingOccurrences(of: "_", with: " ")
    page.open("section", [("class", "set"), ("id", "set-\(number)")])
    page.open("h2")
    page.raw("<span class=\"swatch\" style=\"background:\(colour);margin-left:0\"></span>")
    page.escaped(
      "\(number). \(name), \(Markup.clock(set.start, tenths: true))–"
        + "\(Markup.clock(set.end, tenths: true)): \(set.reps.count) "
        + (set.reps.count == 1 ? "rep" : "reps"))
    page.close("h2")
    var notes: [String] = []
    if let backfill = set.backfill {
      let counted = set.reps.filter(\.backfilled).count
      notes.append(
        "Recognised at \(Markup.clock(backfill.end, tenths: true)); the engine then replayed "
          + "the history from \(Markup.clock(backfill.start, tenths: true)) and counted "
          + "\(counted) \(counted == 1 ? "rep" : "reps") from it.")
    }
    if set.signals.count > 1 {
      notes.append(
        "The engine reads \(set.signals.count) signals and counts with whichever sees the "
          + "movement; each mark is on the signal that moved as the rep did.")
    }
    for note in notes { page.element("p", [("class", "note")], note) }
    SetChart(set: set, colour: colour).draw(into: &page)
    legend(set, into: &page)
    RefusalList.draw(set, into: &page)
    page.element("h3", [], "Reps")
    RepTable.draw(set, into: &page)
    if let analysis = set.analysis, analysis.typical != nil || analysis.worst != nil {
      page.element("h3", [], "The body")
      page.open("div", [("class", "figures")])
      for (figures, title) in [(analysis.typical, "Typical rep"), (analysis.worst, "Worst rep")] {
        guard let figures else { continue }
        let rep = set.reps.first { $0.count == figures.count }
        let direction = set.direction(ofSignal: rep?.signal)
        StickFigure.draw(figures, title: title, direction: direction, into: &page)
        if let video {
          VideoFrames.rep(
            figures, title: title, names: StickFigure.names(direction: direction), video: video,
            into: &page)
        }
      }
      page.close("div")
      page.element(
        "p", [("class", "note")],
        "Drawn from the poses as the detector gave them; the person's left in blue, right in "
          + "orange." + (video == nil ? "" : " Beside each rep, the video at the same moments."))
    }
    page.close("section")
  }

  private static func legend(_ set: SetReport, into page: inout Markup) {
    page.open("p", [("class", "legend")])
    page.raw("<span class=\"key\"></span>signal")
    if set.signals.contains(where: \.hasLevels) {
      page.raw("<span class=\"key top\"></span>top a rep is measured from")
      page.raw("<span class=\"key count\"></span>level a rep must reach")
      page.raw("<span class=\"key typical\"></span>typical full rep (learned)")
    }
    page.raw("<br/><span class=\"dot\"></span>rep")
    page.raw("<span class=\"dot partial\"></span>partial rep")
    page.raw("<span class=\"dot backfilled\"></span>backfilled rep")
    page.raw("<span class=\"cross\">×</span>not counted")
    if !set.cues.isEmpty {
      page.raw("<span class=\"cross\" style=\"color:#7a4fb5\">!</span>cue")
    }
    page.close("p")
  }
}
