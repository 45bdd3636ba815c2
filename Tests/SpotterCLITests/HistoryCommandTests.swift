import Foundation
import History
import Spotter
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The workout history through real processes: many writers at once, a writer killed
/// mid-write, `spotter demo` runs started together, and what `spotter history` prints.
@Suite struct HistoryCommandTests {
  /// `spotter-bench`, built next to `spotter`: its `history-append` and `history-verify` are
  /// the test writers and the whole-session check.
  static let bench =
    (SpotterProcess.binary as NSString).deletingLastPathComponent + "/spotter-bench"

  static func runBench(_ arguments: [String]) throws -> SpotterProcess.Result {
    try SpotterProcess.run(arguments, binary: bench)
  }

  /// 32 processes × 20 sessions, all at once, into one history (an SQLite file or a
  /// PostgreSQL URL): 640 sessions, each whole.
  static func thirtyTwoWritersAtOnce(into history: String) throws {
    let writers = try (0..<32).map { seed in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: bench)
      process.arguments = [
        "history-append", "--history", history, "--sessions", "20", "--seed", "\(seed)",
      ]
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      return process
    }
    for writer in writers {
      writer.waitUntilExit()
      #expect(writer.terminationStatus == 0)
    }
    let check = try runBench(["history-verify", "--history", history, "--expect", "640"])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("640 sessions, all whole"))
    let listed = try SpotterProcess.run([
      "history", "--history", history, "--json", "--limit", "1000",
    ])
    #expect(listed.stdout.split(separator: "\n").count == 640)
  }

  @Test func thirtyTwoProcessesAppendingAtOnceLeaveEverySessionWhole() throws {
    try Self.thirtyTwoWritersAtOnce(into: Fixtures.temporaryFolder("history") + "/h.sqlite")
  }

  @Test func aWriterKilledMidWriteLeavesADatabaseWithEveryCommittedSession() throws {
    let history = Fixtures.temporaryFolder("history") + "/h.sqlite"
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: Self.bench)
    writer.arguments = ["history-append", "--history", history, "--sessions", "1000000"]
    let out = Pipe()
    writer.standardOutput = out
    try writer.run()
    // Each uid is printed after its transaction committed; kill once 50 are out.
    var printed = Data()
    while printed.filter({ $0 == UInt8(ascii: "\n") }).count < 50 {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      printed.append(chunk)
    }
    kill(writer.processIdentifier, SIGKILL)
    writer.waitUntilExit()
    let committed = String(decoding: printed, as: UTF8.self).split(separator: "\n")
      .filter { $0.hasPrefix("bench-") }.dropLast()  // the last line may be cut short
    #expect(committed.count >= 40)
    let list = Fixtures.file(named: "committed.txt", committed.joined(separator: "\n") + "\n")
    let integrity = Process()
    integrity.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    integrity.arguments = [history, "PRAGMA integrity_check"]
    let answer = Pipe()
    integrity.standardOutput = answer
    try integrity.run()
    integrity.waitUntilExit()
    let text = String(decoding: answer.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    let check = try Self.runBench(["history-verify", "--history", history, "--committed", list])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
  }

  /// The issue's case: twelve demos started at once used to leave 5 of their 12 records.
  @Test func twelveDemosAtOnceStoreTwelveSessions() throws {
    let history = Fixtures.temporaryFolder("history") + "/h.sqlite"
    let demos = try (1...12).map { seed in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: SpotterProcess.binary)
      process.arguments = [
        "demo", "--seed", "\(seed)", "--history", history, "--weights",
        repositoryRoot + "/Weights/default.spotter",
      ]
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      return process
    }
    for demo in demos {
      demo.waitUntilExit()
      #expect(demo.terminationStatus == 0)
    }
    let listed = try SpotterProcess.run([
      "history", "--history", history, "--csv", "--limit", "100",
    ])
    let sources = Set(
      listed.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[2] })
    #expect(sources.count == 12, "\(listed.stdout)")
  }

  /// Without --history, `spotter history` reads the history `spotter demo` wrote: the one
  /// under $XDG_DATA_HOME.
  @Test func historyReadsTheDefaultHistoryTheDemoWrote() throws {
    let data = Fixtures.temporaryFolder("history-default")
    let environment = ["XDG_DATA_HOME": data]
    let demo = try SpotterProcess.run(
      ["demo", "--no-report", "--weights", repositoryRoot + "/Weights/default.spotter"],
      environment: environment)
    #expect(demo.status == 0, "\(demo.stderr)")
    let listed = try SpotterProcess.run(["history", "--csv"], environment: environment)
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.contains("spotter demo (seed 1)"), "\(listed.stdout)")
  }

  /// A history with known sessions, in a fresh file.
  static func knownHistory() throws -> String {
    let path = Fixtures.temporaryFolder("history") + "/known.sqlite"
    let store = try HistoryStore(.sqlite(path: path))
    let date = ISO8601DateFormatter().date(from: "2025-06-11T12:00:00Z")!
    let squats = SetRecord(
      exercise: "squat", start: 2, end: 12,
      reps: [
        RepRecord(
          t: 4, duration: 2, timeDown: 1.25, timeUp: 0.75, rangeOfMotion: 80, backfilled: true),
        RepRecord(
          t: 7, duration: 2.5, timeDown: 1.5, timeUp: 1, rangeOfMotion: 45, side: "left",
          partial: true),
      ])
    try store.append([
      HistoryEntry(
        SessionRecord(
          date: date, source: "gym, camera 2", person: "ana", sets: [squats],
          totals: [ExerciseTotal(name: "squat", reps: 2, activeSeconds: 10)]),
        uid: "known-1")
    ])
    try store.append([
      HistoryEntry(
        SessionRecord(
          date: date.addingTimeInterval(86_400), source: "spotter demo (seed 1)",
          totals: [
            ExerciseTotal(name: "squat", reps: 10, activeSeconds: 31.5),
            ExerciseTotal(name: "push_up", reps: 8, activeSeconds: 20),
          ]), uid: "known-2")
    ])
    return path
  }

  @Test func historyListsRecentSessionsAsTextJSONAndCSV() throws {
    let history = try Self.knownHistory()
    let text = try SpotterProcess.run(["history", "--history", history])
    #expect(text.status == 0)
    let lines = text.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("    id  date"))
    #expect(lines[1].hasPrefix("     2  2025-06-1"))
    #expect(lines[1].hasSuffix("—           squat 10 (32s), push_up 8 (20s)"))
    #expect(lines[2].contains("gym, camera 2") && lines[2].hasSuffix("ana         squat 2 (10s)"))
    let json = try SpotterProcess.run(["history", "--history", history, "--json", "--limit", "1"])
    #expect(
      json.stdout
        == #"{"id":2,"uid":"known-2","date":"2025-06-12T12:00:00Z","source":"spotter demo "#
        + #"(seed 1)","person":null,"exercises":{"squat":{"reps":10,"active_seconds":31.5},"#
        + #""push_up":{"reps":8,"active_seconds":20}}}"# + "\n")
    let csv = try SpotterProcess.run(["history", "--history", history, "--csv", "--person", "ana"])
    #expect(
      csv.stdout
        == "id,date,source,person,exercise,reps,active_seconds\n"
        + "1,2025-06-11T12:00:00Z,\"gym, camera 2\",ana,squat,2,10\n")
  }

  @Test func historyTotalsPerDayAndWeek() throws {
    let history = try Self.knownHistory()
    let week = try SpotterProcess.run([
      "history", "--history", history, "--totals", "week", "--csv",
    ])
    let monday = HistoryStore.localDay(
      of: ISO8601DateFormatter().date(from: "2025-06-11T12:00:00Z")!)
    #expect(LocalDay.name(monday).hasPrefix("2025-06-1"))
    #expect(
      week.stdout
        == "week_of,exercise,sessions,reps,active_seconds\n2025-06-09,push_up,1,8,20\n"
        + "2025-06-09,squat,2,12,41.5\n")
    let day = try SpotterProcess.run([
      "history", "--history", history, "--totals", "day", "--exercise", "squat", "--json",
    ])
    let rows = day.stdout.split(separator: "\n")
    #expect(rows.count == 2)
    #expect(rows[1].hasSuffix(#""exercise":"squat","sessions":1,"reps":10,"active_seconds":31.5}"#))
    let text = try SpotterProcess.run(["history", "--history", history, "--totals", "week"])
    #expect(text.stdout.contains("2025-06-09  squat                    2      12        42s"))
  }

  @Test func historyShowsOneSessionsSetsAndReps() throws {
    let history = try Self.knownHistory()
    let text = try SpotterProcess.run(["history", "--history", history, "--session", "1"])
    #expect(text.status == 0)
    #expect(text.stdout.contains("Session 1: gym, camera 2, 2025-06-1"))
    #expect(text.stdout.contains(", person ana\n  squat: 2 reps, 10s active\n"))
    #expect(text.stdout.contains("Set 1: squat, 2.000–12.000 s, 2 reps"))
    #expect(
      text.stdout.contains(
        "      1     4.00      2.00    1.25    0.75      80.0  —      backfilled"))
    #expect(
      text.stdout.contains("      2     7.00      2.50    1.50    1.00      45.0  left   partial"))
    let json = try SpotterProcess.run(["history", "--history", history, "--session", "1", "--json"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let sets = try #require(object["sets"] as? [[String: Any]])
    let reps = try #require(sets.first?["reps"] as? [[String: Any]])
    #expect(reps.count == 2)
    #expect(reps[1]["side"] as? String == "left" && reps[1]["partial"] as? Bool == true)
    #expect(reps[0]["time_down"] as? Double == 1.25 && reps[0]["backfilled"] as? Bool == true)
    let csv = try SpotterProcess.run(["history", "--history", history, "--session", "1", "--csv"])
    #expect(
      csv.stdout.split(separator: "\n").last
        == "1,squat,2.000,12.000,2,7.000,2.5,1.5,1,45,left,true,false")
    let missing = try SpotterProcess.run(["history", "--history", history, "--session", "9"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("Error: no session 9 in"))
  }

  @Test func historyImportsAnOlderHistoryAndExplainsBadInput() throws {
    let legacy = Fixtures.file(
      named: "old.jsonl",
      #"{"date":"2025-05-01T18:00:00Z","source":"old","exercises":{"squat":{"reps":3,"#
        + #""active_seconds":9}}}"# + "\n")
    let history = Fixtures.temporaryFolder("history") + "/h.sqlite"
    let imported = try SpotterProcess.run([
      "history", "--history", history, "--import", legacy, "--csv",
    ])
    #expect(imported.status == 0)
    #expect(imported.stderr.contains("Imported 1 sessions"))
    #expect(imported.stdout.hasSuffix("old,,squat,3,9\n"))
    let notADatabase = try SpotterProcess.run(["history", "--history", legacy])
    #expect(notADatabase.status == 1)
    #expect(notADatabase.stderr.contains("expected an SQLite workout history"))
    let usage = try SpotterProcess.run(["history", "--history", history, "--totals", "month"])
    #expect(usage.status == 64)
    #expect(usage.stderr.contains("Error: --totals takes day or week, got 'month'"))
    let since = try SpotterProcess.run(["history", "--history", history, "--since", "last tuesday"])
    #expect(since.status == 64)
  }
}
