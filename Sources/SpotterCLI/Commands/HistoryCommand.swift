import ArgumentParsing
import Foundation
import History
import Poses
import Spotter

/// `spotter history`: the workout history, as text, JSON Lines or CSV. Three views: recent
/// sessions (the default), totals per exercise per day or week (`--totals`), and one session's
/// sets and reps (`--session`).
enum HistoryCommand {
  static let command = Command(
    name: "history",
    summary: "Show the workout history: recent sessions, totals per day or week, one session.",
    options: [
      .value(
        "history", "FILE|URL", "The history: an SQLite file or a postgresql:// URL.",
        default: HistoryLocation.standardDescription),
      .value("limit", "N", "Recent sessions to show.", default: "20"),
      .value(
        "totals", "day|week", "Totals per exercise per local day, or per week (Monday first)."),
      .value("session", "ID", "One session's sets and reps (IDs are in the first column)."),
      .value("since", "WHEN", "Only from this date (2024-05-01) or span ago (7d, 4w) on."),
      .value("exercise", "NAME", "Only sessions with this exercise, and only its totals."),
      .value("person", "ID", "Only the sessions of this person or client id."),
      .flag("json", "Print JSON: one object per line (one object for --session)."),
      .flag("csv", "Print CSV with a header row."),
      .value(
        "import", "FILE", "Import a JSON Lines history of an older Spotter, then show it."),
    ],
    discussion: """
      The history is written by 'spotter serve' and 'spotter demo'. A history.jsonl beside the
      history file (same name, .jsonl) is imported once when the history is opened; --import
      brings in any other. Days are the recording machine's local days.
      """,
    run: run
  )

  /// Opens the history named on a command line (`--history`), or the standard one: errors
  /// become failures with a hint.
  static func open(_ text: String?) throws -> HistoryStore {
    let location = text.map(HistoryLocation.init) ?? .standard
    do {
      return try HistoryStore(location)
    } catch {
      let hint: String? =
        switch error.kind {
        case .connection: "check the URL and that the PostgreSQL server is up."
        case .busy: "another process is writing to it; try again."
        case .notADatabase: "give --history another file name."
        default: nil
        }
      throw CLIError.failure("workout history \(error)", hint: hint)
    }
  }

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let json = arguments.flag("json")
    let csv = arguments.flag("csv")
    if json && csv { throw CLIError.usage("--json and --csv: choose one", command: command) }
    let format: Format = json ? .json : (csv ? .csv : .text)
    var filter = HistoryFilter(
      exercise: arguments.string("exercise"), person: arguments.string("person"))
    if let since = arguments.string("since") { filter.since = try parseSince(since) }
    let period = try arguments.string("totals").map { text in
      guard let period = HistoryPeriod(rawValue: text) else {
        throw CLIError.usage("--totals takes day or week, got '\(text)'", command: command)
      }
      return period
    }
    let sessionID = try arguments.int("session", range: 1...Int.max)
    let limit = try arguments.int("limit", range: 1...1_000_000)!
    let store = try open(arguments.values["history"])
    let output = TextOutput.standardOutput()
    do {
      if let file = arguments.string("import") {
        let added = try store.importJSONLines(file)
        Terminal.error("Imported \(added) sessions from \(file) into \(store.location).")
      }
      if let sessionID {
        guard let session = try store.session(id: sessionID) else {
          throw CLIError.failure(
            "no session \(sessionID) in \(store.location)",
            hint: "'spotter history' lists the sessions with their ids.")
        }
        HistoryText.session(session, format: format, output: output)
      } else if let period {
        HistoryText.totals(
          try store.totals(per: period, filter), period: period, format: format, output: output)
      } else {
        HistoryText.sessions(
          try store.recentSessions(limit: limit, filter), format: format, output: output)
      }
    } catch let error as HistoryError {
      throw CLIError.failure("workout history \(error)", hint: nil)
    }
    try output.flush()
    return 0
  }

  /// `2024-05-01` (local midnight), or `7d` / `4w` before now.
  static func parseSince(_ text: String) throws -> Date {
    if let unit = text.last, unit == "d" || unit == "w", let count = Int(text.dropLast()),
      count >= 0
    {
      return Date().addingTimeInterval(-Double(count * (unit == "d" ? 1 : 7)) * 86_400)
    }
    let parser = DateFormatter()
    parser.locale = Locale(identifier: "en_US_POSIX")
    parser.timeZone = .current
    parser.dateFormat = "yyyy-MM-dd"
    guard let date = parser.date(from: text) else {
      throw CLIError.usage(
        "--since takes a date (2024-05-01) or a span ago (7d, 4w), got '\(text)'",
        command: command)
    }
    return date
  }

  enum Format { case text, json, csv }
}

/// How `spotter history` writes each view.
enum HistoryText {
  static func sessions(
    _ sessions: [StoredSession], format: HistoryCommand.Format, output: TextOutput
  ) {
    switch format {
    case .json:
      for session in sessions {
        output.writeLine(
          "{" + header(session).joined(separator: ",") + ",\"exercises\":"
            + JSONText.exercises(session.record.totals) + "}")
      }
    case .csv:
      output.writeLine("id,date,source,person,exercise,reps,active_seconds")
      for session in sessions {
        let start = [
          "\(session.id)", isoDate(session.record.date), csvField(session.record.source),
          csvField(session.record.person ?? ""),
        ]
        let totals = session.record.totals.isEmpty ? [nil] : session.record.totals.map { $0 }
        for total in totals {
          let rest =
            total.map { [csvField($0.name), "\($0.reps)", JSONText.number($0.activeSeconds)] }
            ?? ["", "", ""]
          output.writeLine((start + rest).joined(separator: ","))
        }
      }
    case .text:
      guard !sessions.isEmpty else {
        output.writeLine("No sessions.")
        return
      }
      output.writeLine(
        pad("id", 6, right: true) + "  " + pad("date", 16) + "  " + pad("source", 30) + "  "
          + pad("person", 10) + "  exercises")
      for session in sessions {
        let record = session.record
        let exercises = record.totals.map {
          "\($0.name) \($0.reps) (\(clock($0.activeSeconds)))"
        }
        output.writeLine(
          pad("\(session.id)", 6, right: true) + "  " + pad(localTime(record.date), 16) + "  "
            + pad(record.source, 30) + "  " + pad(record.person ?? "—", 10) + "  "
            + (exercises.isEmpty ? "—" : exercises.joined(separator: ", ")))
      }
    }
  }

  static func totals(
    _ totals: [PeriodTotal], period: HistoryPeriod, format: HistoryCommand.Format,
    output: TextOutput
  ) {
    let key = period == .day ? "day" : "week_of"
    switch format {
    case .json:
      for total in totals {
        output.writeLine(
          "{\"\(key)\":\"\(LocalDay.name(total.firstDay))\",\"exercise\":"
            + "\(JSONText.quote(total.exercise)),\"sessions\":\(total.sessions),"
            + "\"reps\":\(total.reps),\"active_seconds\":\(JSONText.number(total.activeSeconds))}")
      }
    case .csv:
      output.writeLine("\(key),exercise,sessions,reps,active_seconds")
      for total in totals {
        output.writeLine(
          "\(LocalDay.name(total.firstDay)),\(csvField(total.exercise)),\(total.sessions),"
            + "\(total.reps),\(JSONText.number(total.activeSeconds))")
      }
    case .text:
      guard !totals.isEmpty else {
        output.writeLine("No sessions.")
        return
      }
      output.writeLine(
        pad(period == .day ? "day" : "week of", 10) + "  " + pad("exercise", 16) + "  "
          + pad("sessions", 8, right: true) + "  " + pad("reps", 6, right: true) + "  "
          + pad("active", 9, right: true))
      for total in totals {
        output.writeLine(
          pad(LocalDay.name(total.firstDay), 10) + "  " + pad(total.exercise, 16) + "  "
            + pad("\(total.sessions)", 8, right: true) + "  "
            + pad("\(total.reps)", 6, right: true) + "  "
            + pad(clock(total.activeSeconds), 9, right: true))
      }
    }
  }

  static func session(_ session: StoredSession, format: HistoryCommand.Format, output: TextOutput) {
    let record = session.record
    switch format {
    case .json:
      let sets = record.sets.map { set in
        let reps = set.reps.map { rep in
          "{\"t\":\(JSONText.time(rep.t)),\"duration\":\(JSONText.number(rep.duration)),"
            + "\"time_down\":\(JSONText.number(rep.timeDown)),"
            + "\"time_up\":\(JSONText.number(rep.timeUp)),"
            + "\"range_of_motion\":\(JSONText.number(rep.rangeOfMotion)),"
            + "\"side\":\(rep.side.map(JSONText.quote) ?? "null"),"
            + "\"partial\":\(rep.partial),\"backfilled\":\(rep.backfilled)}"
        }
        return
          "{\"exercise\":\(JSONText.quote(set.exercise)),\"start\":\(JSONText.time(set.start)),"
          + "\"end\":\(JSONText.time(set.end)),\"active_seconds\":"
          + "\(JSONText.number(set.activeSeconds)),\"reps\":[\(reps.joined(separator: ","))]}"
      }
      output.writeLine(
        "{" + header(session).joined(separator: ",") + ",\"exercises\":"
          + JSONText.exercises(record.totals) + ",\"sets\":[" + sets.joined(separator: ",") + "]}")
    case .csv:
      output.writeLine(
        "set,exercise,set_start,set_end,rep,t,duration,time_down,time_up,range_of_motion,side,"
          + "partial,backfilled")
      for (index, set) in record.sets.enumerated() {
        for (number, rep) in set.reps.enumerated() {
          output.writeLine(
            [
              "\(index + 1)", csvField(set.exercise), JSONText.time(set.start),
              JSONText.time(set.end), "\(number + 1)", JSONText.time(rep.t),
              JSONText.number(rep.duration), JSONText.number(rep.timeDown),
              JSONText.number(rep.timeUp), JSONText.number(rep.rangeOfMotion),
              csvField(rep.side ?? ""), "\(rep.partial)", "\(rep.backfilled)",
            ].joined(separator: ","))
        }
      }
    case .text:
      output.writeLine(
        "Session \(session.id): \(record.source), \(localTime(record.date))"
          + (record.person.map { ", person \($0)" } ?? ""))
      for total in record.totals {
        output.writeLine(
          "  \(total.name): \(total.reps) reps, \(clock(total.activeSeconds)) active")
      }
      if record.sets.isEmpty { output.writeLine("  (no sets or reps kept for this session)") }
      for (index, set) in record.sets.enumerated() {
        output.writeLine(
          "Set \(index + 1): \(set.exercise), \(JSONText.time(set.start))–"
            + "\(JSONText.time(set.end)) s, \(set.count) reps")
        guard !set.reps.isEmpty else { continue }
        output.writeLine("    rep        t  duration    down      up     range  side   flags")
        for (number, rep) in set.reps.enumerated() {
          let flags = [rep.partial ? "partial" : nil, rep.backfilled ? "backfilled" : nil]
            .compactMap { $0 }.joined(separator: " ")
          output.writeLine(
            String(
              format: "    %3d  %7.2f  %8.2f  %6.2f  %6.2f  %8.1f  %@  %@", number + 1, rep.t,
              rep.duration, rep.timeDown, rep.timeUp, rep.rangeOfMotion,
              pad(rep.side ?? "—", 5), flags
            ).replacingOccurrences(of: " +$", with: "", options: .regularExpression))
        }
      }
    }
  }

  private static func header(_ session: StoredSession) -> [String] {
    [
      "\"id\":\(session.id)", "\"uid\":\(JSONText.quote(session.uid))",
      "\"date\":\"\(isoDate(session.record.date))\"",
      "\"source\":\(JSONText.quote(session.record.source))",
      "\"person\":\(session.record.person.map(JSONText.quote) ?? "null")",
    ] + (session.record.summaryDelivered.map { ["\"summary_delivered\":\($0)"] } ?? [])
  }

  private static func isoDate(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

  private static let localFormatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = .current
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter
  }()

  private static func localTime(_ date: Date) -> String { localFormatter.string(from: date) }

  /// `1m 05s`, `42s`.
  private static func clock(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded())
    return whole >= 60 ? String(format: "%dm %02ds", whole / 60, whole % 60) : "\(whole)s"
  }

  private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    guard text.count < width else { return text }
    let space = String(repeating: " ", count: width - text.count)
    return right ? space + text : text + space
  }

  private static func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      return text
    }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
