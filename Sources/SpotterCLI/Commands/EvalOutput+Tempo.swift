import Evaluation
import Foundation

/// `spotter eval --tempo`: rep counting by tempo band, as text and as JSON.
extension EvalOutput {
  /// The tempo table: a row per band with clips, then all of them; `exact` is the share of
  /// clips counted exactly (in JSON, `exact` is their number, beside `clips`). Silent misses read
  /// "missed n of done" over the clips with rep bounds, "—" where no clip has any (and a line
  /// says why).
  static func tempoTable(_ table: TempoTable) -> String {
    var lines = [
      padded("Rep counting by tempo", 22)
        + "clips (videos)  counted / done  rel.MAE  within one  exact   silent misses"
    ]
    for row in table.rows {
      let clips = "\(row.clips) (\(row.files))"
      let reps = "\(row.counted) / \(row.done)"
      let misses = row.silentMisses.map { "missed \($0.missed) of \($0.done)" } ?? "—"
      lines.append(
        padded(row.band?.title ?? "all", 22) + padded(clips, 16) + padded(reps, 16)
          + String(
            format: "%.3f    %@     %@  ", row.error.mae, percent(row.error.withinOne),
            percent(Double(row.exact) / Double(row.clips)))
          + misses)
    }
    if table.rows.isEmpty {
      lines.append("(no clip has reps done: no tempo to score)")
    }
    lines.append("(seconds a rep: the annotated clip time ÷ the reps done in it)")
    if !table.rows.isEmpty && !table.measuresSilentMisses {
      lines.append(
        "(silent misses —: no clip has rep_bounds; without the time of each rep done, a rep "
          + "passed over in silence cannot be found)")
    }
    return lines.joined(separator: "\n")
  }

  static func tempoObject(_ table: TempoTable) -> [[String: Any]] {
    table.rows.map { row in
      var object: [String: Any] = [
        "band": row.band?.key ?? "all", "clips": row.clips, "videos": row.files,
        "counted": row.counted, "done": row.done, "exact": row.exact,
      ]
      object.merge(errorObject(row.error).filter { $0.key != "clips" }) { current, _ in current }
      if let misses = row.silentMisses {
        object["silent_misses"] = ["missed": misses.missed, "done": misses.done]
      }
      return object
    }
  }
}
