import ArgumentParsing
import Foundation
import History

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench history-append` and `history-verify`: many processes writing one history at
/// once, and a check that every stored session is whole. The tests run them as real processes
/// (32 appenders at once; an appender killed with SIGKILL mid-write).
enum HistoryTools {
  static let append = Command(
    name: "history-append",
    summary: "Append synthetic sessions to a history, one transaction each (a test writer).",
    options: [
      .value("history", "FILE|URL", "The history to append to."),
      .value("sessions", "N", "Sessions to append.", default: "20"),
      .value("seed", "N", "Which synthetic sessions (a process's own seed).", default: "1"),
    ],
    discussion: "Prints each session's uid once its transaction has committed.",
    run: { arguments in
      let store = try HistoryStore(HistoryLocation(try arguments.required("history")))
      let seed = try arguments.int("seed", range: 0...1_000_000)!
      for index in 0..<(try arguments.int("sessions", range: 0...100_000_000)!) {
        let uid = SyntheticSessions.uid(seed: seed, index: index)
        try store.append([
          HistoryEntry(SyntheticSessions.record(seed: seed, index: index), uid: uid)
        ])
        print(uid)
        fflush(nil)  // the uid is out as soon as it is stored
      }
      return 0
    })

  static let verify = Command(
    name: "history-verify",
    summary: "Check that every session in a history of synthetic sessions is whole.",
    options: [
      .value("history", "FILE|URL", "The history to check."),
      .value("expect", "N", "Fail unless the history holds exactly N sessions."),
      .value("committed", "FILE", "Uids (one a line) that must all be stored."),
    ],
    run: { arguments in
      let store = try HistoryStore(HistoryLocation(try arguments.required("history")))
      let (sessions, problems) = try check(
        store, expect: try arguments.int("expect", range: 0...Int.max),
        committed: arguments.string("committed"))
      for problem in problems.prefix(20) { print(problem) }
      print(
        "\(sessions) sessions, \(problems.isEmpty ? "all whole" : "\(problems.count) problems")")
      return problems.isEmpty ? 0 : 1
    })

  /// Rebuilds each stored session from its source and compares it whole: date, person,
  /// totals, sets and every rep. Returns the session count and what was wrong.
  static func check(_ store: HistoryStore, expect: Int?, committed: String?) throws -> (
    Int, [String]
  ) {
    var problems: [String] = []
    let listed = try store.recentSessions(limit: Int.max)
    var uids = Set<String>()
    for summary in listed {
      uids.insert(summary.uid)
      guard let stored = try store.session(id: summary.id) else {
        problems.append("session \(summary.id) is listed but cannot be read")
        continue
      }
      guard let (seed, index) = SyntheticSessions.parse(stored.record.source) else {
        problems.append("session \(summary.id): unknown source \(stored.record.source)")
        continue
      }
      if stored.uid != SyntheticSessions.uid(seed: seed, index: index) {
        problems.append("session \(summary.id): uid \(stored.uid) for \(stored.record.source)")
      }
      if stored.record != SyntheticSessions.record(seed: seed, index: index) {
        problems.append("session \(summary.id) (\(stored.record.source)) is not whole")
      }
    }
    if uids.count != listed.count { problems.append("a uid is stored twice") }
    if let expect, listed.count != expect {
      problems.append("\(listed.count) sessions stored, expected \(expect)")
    }
    if let committed {
      let text = try String(contentsOfFile: committed, encoding: .utf8)
      for uid in text.split(separator: "\n") where !uids.contains(String(uid)) {
        problems.append("committed session \(uid) is missing")
      }
    }
    return (listed.count, problems)
  }
}
