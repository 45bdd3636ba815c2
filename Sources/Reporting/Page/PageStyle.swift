/// The page's look: its style sheet and the colour of each exercise.
///
/// Everything is inline and uses the reader's own fonts (`system-ui`), so the page reads the same
/// offline, and prints: sets do not break across pages and colours are kept.
enum PageStyle {
  /// A colour for each label, told apart on screen and on paper (Tableau's ten, then three more);
  /// `other` and anything past them is grey.
  static let palette = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#2f4b7c", "#a05195", "#d45087", "#665191",
  ]
  static let grey = "#c4c4c4"

  /// Colours by label, in the order the report names them (the classifier's labels, then the
  /// exercises it did not know), so an exercise has one colour in every chart of the page.
  struct Colours {
    private var byLabel: [String: String] = [:]

    init(_ report: SessionReport) {
      var names = report.labels.filter { $0 != "other" }
      for set in report.sets where !names.contains(set.exercise) { names.append(set.exercise) }
      for (index, name) in names.enumerated() where index < palette.count {
        byLabel[name] = palette[index]
      }
    }

    subscript(label: String) -> String { byLabel[label] ?? grey }
  }

  static let css = """
    :root { --ink: #1d2330; --muted: #5f6b7a; --line: #d9dee5; --rep: #2a9d4a;
      --partial: #e39b00; --refused: #d7263d; --down: #4e79a7; --up: #76b7b2; }
    * { box-sizing: border-box; }
    body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
      color: var(--ink); margin: 0 auto; max-width: 1000px; padding: 16px 20px 40px; }
    h1 { font-size: 22px; margin: 0 0 2px; }
    h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid var(--line);
      padding-bottom: 4px; }
    h3 { font-size: 14px; margin: 14px 0 4px; }
    p { margin: 4px 0; }
    .meta, .note, figcaption, .legend { color: var(--muted); font-size: 12px; }
    .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0; }
    .card { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px;
      min-width: 120px; }
    .card b { display: block; font-size: 20px; }
    .card span { color: var(--muted); font-size: 12px; }
    table { border-collapse: collapse; margin: 6px 0; font-size: 13px; }
    th, td { padding: 2px 8px; text-align: left; border-bottom: 1px solid #eef0f3;
      vertical-align: middle; }
    th { color: var(--muted); font-weight: 600; }
    td.n { text-align: right; font-variant-numeric: tabular-nums; }
    svg { display: block; width: 100%; height: auto; font-family: inherit; }
    svg text { font-size: 11px; fill: var(--ink); }
    svg .muted { fill: var(--muted); }
    svg text.halo { paint-order: stroke; stroke: #fff; stroke-width: 3px;
      stroke-linejoin: round; }
    .grid { stroke: #eef0f3; stroke-width: 1; }
    .axis { stroke: #9aa3ad; stroke-width: 1; }
    .signal { fill: none; stroke: var(--ink); stroke-width: 1.4; }
    .top { fill: none; stroke: #8d96a0; stroke-width: 1; stroke-dasharray: 5 3; }
    .count { fill: none; stroke: var(--partial); stroke-width: 1.2; }
    .typical { fill: none; stroke: var(--down); stroke-width: 1.2; stroke-dasharray: 1.5 2.5; }
    .rep circle { fill: var(--rep); stroke: #fff; stroke-width: 1; }
    .rep.partial circle { fill: var(--partial); }
    .rep.backfilled circle { fill: #fff; stroke: var(--rep); stroke-width: 2; }
    .rep.backfilled.partial circle { stroke: var(--partial); }
    .rep text { font-size: 9px; text-anchor: middle; }
    .refusal path { stroke: var(--refused); stroke-width: 2.2; fill: none; }
    .refusal text { font-size: 9px; fill: var(--refused); text-anchor: middle; }
    .cue text { font-size: 11px; font-weight: 700; fill: #7a4fb5; text-anchor: middle; }
    .span-rep { fill: var(--rep); opacity: .35; }
    .span-rep.partial { fill: var(--partial); }
    .span-refused { fill: var(--refused); opacity: .3; }
    .bar { display: inline-block; height: 10px; border-radius: 2px; background: var(--rep);
      vertical-align: middle; }
    .bar.partial { background: var(--partial); }
    .bar.down { background: var(--down); border-radius: 2px 0 0 2px; }
    .bar.up { background: var(--up); border-radius: 0 2px 2px 0; }
    .barcell { width: 180px; }
    .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
      margin: 0 4px 0 10px; vertical-align: -1px; }
    .key { display: inline-block; width: 18px; height: 0; margin: 0 4px 0 10px;
      vertical-align: 3px; border-top: 2px solid var(--ink); }
    .key.top { border-top: 1px dashed #8d96a0; }
    .key.count { border-top-color: var(--partial); }
    .key.typical { border-top: 2px dotted var(--down); }
    .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%;
      margin: 0 4px 0 10px; background: var(--rep); vertical-align: -1px; }
    .dot.partial { background: var(--partial); }
    .dot.backfilled { background: #fff; border: 2px solid var(--rep); }
    .cross { color: var(--refused); font-weight: 700; margin: 0 4px 0 10px; }
    .figures { display: flex; flex-wrap: wrap; gap: 18px; }
    .figures figure { margin: 0; }
    .figures svg { width: 260px; }
    .stills { display: flex; flex-wrap: wrap; gap: 10px; }
    .stills figure, .figures figure.still { margin: 0; }
    svg.still { background: #222; border-radius: 3px; }
    .pair { display: flex; gap: 6px; }
    .pair span { display: block; text-align: center; }
    .stills figcaption, .pair .muted { font-size: 11px; color: var(--muted); }
    .set { break-inside: avoid; page-break-inside: avoid; }
    .tiring { color: var(--refused); font-weight: 600; }
    .steady { color: var(--rep); font-weight: 600; }
    @media print {
      body { max-width: none; padding: 0; }
      * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
      h2 { break-after: avoid; }
    }
    """
}
