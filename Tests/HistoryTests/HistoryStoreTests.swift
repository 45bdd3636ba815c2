import Foundation
import Spotter
import Synchronization
import TestSupport
import Testing

@testable import History

/// The history store in process, on SQLite: what goes in comes back whole, totals add up per
/// day and week, the schema is versioned, a JSON Lines history is imported once, and the
/// writer stores or reports every session it is given.
@Suite struct HistoryStoreTests {
  static func path(_ name: String = "history.sqlite") -> String {
    Fixtures.temporaryFolder("history") + "/" + name
  }

  /// Local noon of a day `daysAgo` before a fixed Wednesday (2025-06-11): far from midnight,
  /// so the local day is the same in every time zone's offset.
  static func noon(daysAgo: Int) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let base = calendar.date(from: DateComponents(year: 2025, month: 6, day: 11, hour: 12))!
    return calendar.date(byAdding: .day, value: -daysAgo, to: base)!
  }

  static func record(
    _ exercise: String, reps: Int, daysAgo: Int, person: String? = nil
  ) -> SessionRecord {
    var set = SetRecord(exercise: exercise, start: 3, end: 3 + 2 * Double(reps))
    for index in 0..<reps {
      let t: Double = 5 + 2 * Double(index)
      let range: Double = 70 + Double(index)
      set.reps.append(
        RepRecord(
          t: t, duration: 1.9, timeDown: 1.1, timeUp: 0.8, rangeOfMotion: range,
          side: index % 2 == 0 ? "left" : nil, partial: index == 1, backfilled: index == 0))
    }
    return SessionRecord(
      date: noon(daysAgo: daysAgo), source: "test", person: person, sets: [set],
      totals: [ExerciseTotal(name: exercise, reps: reps, activeSeconds: set.activeSeconds)])
  }

  static let records: [SessionRecord] = [
    record("squat", reps: 10, daysAgo: 0, person: "ana"),
    record("push_up", reps: 1, daysAgo: 3),
    SessionRecord(date: noon(daysAgo: 9), source: "nothing recognised"),
    SessionRecord(
      date: noon(daysAgo: 1), source: "two sets, \"quoted\", ünïcode", person: "42",
      sets: [
        record("lunge", reps: 3, daysAgo: 1).sets[0], record("squat", reps: 40, daysAgo: 1).sets[0],
      ],
      totals: [
        ExerciseTotal(name: "lunge", reps: 3, activeSeconds: 6),
        ExerciseTotal(name: "squat", reps: 40, activeSeconds: 80),
      ]),
  ]

  @Test(arguments: records.indices) func aSessionComesBackWhole(index: Int) throws {
    let store = try HistoryStore(.sqlite(path: Self.path()))
    let entry = try store.append(Self.records[index])
    let listed = try store.recentSessions(limit: 10)
    #expect(listed.count == 1)
    let stored = try #require(try store.session(id: listed[0].id))
    #expect(stored.uid == entry.uid)
    #expect(stored.record == Self.records[index])
    #expect(listed[0].record.totals == Self.records[index].totals)
    #expect(try store.session(id: listed[0].id + 1) == nil)
  }

  @Test func aSessionAppendedTwiceUnderOneUidIsStoredOnce() throws {
    let store = try HistoryStore(.sqlite(path: Self.path()))
    let entry = HistoryEntry(Self.records[0])
    #expect(try store.append([entry]) == 1)
    #expect(try store.append([entry, HistoryEntry(Self.records[1])]) == 1)
    #expect(try store.sessionCount() == 2)
  }

  @Test func recentSessionsAreNewestFirstAndFiltered() throws {
    let store = try HistoryStore(.sqlite(path: Self.path()))
    try store.append(Self.records.map { HistoryEntry($0) })
    let all = try store.recentSessions(limit: 10)
    #expect(all.map(\.record.date) == Self.records.map(\.date).sorted(by: >))
    #expect(try store.recentSessions(limit: 2).count == 2)
    let squats = try store.recentSessions(limit: 10, HistoryFilter(exercise: "squat"))
    #expect(squats.map(\.record.source) == ["test", "two sets, \"quoted\", ünïcode"])
    let recent = try store.recentSessions(limit: 10, HistoryFilter(since: Self.noon(daysAgo: 2)))
    #expect(recent.count == 2)
    #expect(try store.recentSessions(limit: 10, HistoryFilter(person: "42")).count == 1)
  }

  @Test func totalsAddUpPerDayAndPerWeek() throws {
    let store = try HistoryStore(.sqlite(path: Self.path()))
    try store.append(Self.records.map { HistoryEntry($0) })
    try store.append(Self.record("squat", reps: 5, daysAgo: 0))
    let today = HistoryStore.localDay(of: Self.noon(daysAgo: 0))
    let days = try store.totals(per: .day)
    #expect(
      days == [
        PeriodTotal(
          firstDay: today - 3, exercise: "push_up", sessions: 1, reps: 1, activeSeconds: 2),
        PeriodTotal(
          firstDay: today - 1, exercise: "lunge", sessions: 1, reps: 3, activeSeconds: 6),
        PeriodTotal(
          firstDay: today - 1, exercise: "squat", sessions: 1, reps: 40, activeSeconds: 80),
        PeriodTotal(
          firstDay: today, exercise: "squat", sessions: 2, reps: 15, activeSeconds: 30),
      ])
    #expect(LocalDay.name(today) == "2025-06-11")
    // 2025-06-11 is a Wednesday: its week began on Monday 2025-06-09, three days back still
    // falls in the week before.
    let weeks = try store.totals(per: .week)
    #expect(weeks.map { LocalDay.name($0.firstDay) } == ["2025-06-02", "2025-06-09", "2025-06-09"])
    #expect(weeks.map(\.reps) == [1, 3, 55])
    #expect(weeks.map(\.sessions) == [1, 1, 3])
    let squats = try store.totals(
      per: .week, HistoryFilter(since: Self.noon(daysAgo: 0), exercise: "squat"))
    #expect(squats.map(\.reps) == [15])
    for period in HistoryPeriod.allCases {
      #expect(
        try store.totals(per: period, HistoryFilter(), fromSessions: true)
          == store.totals(per: period))
    }
    #expect(try store.totals(per: .day, HistoryFilter(person: "ana")).map(\.reps) == [10])
  }

  @Test func aNewHistoryIsAtTheLatestSchemaAndANewerOneIsRefused() throws {
    let path = Self.path()
    let store = try HistoryStore(.sqlite(path: path))
    #expect(try HistorySchema.version(store.connection) == HistorySchema.latest)
    try store.connection.query(
      "INSERT INTO spotter_schema (version) VALUES (?)", [SQLValue(HistorySchema.latest + 1)])
    let error = try #require(throws: HistoryError.self) { try HistoryStore(.sqlite(path: path)) }
    #expect(error.kind == .newerSchema)
    #expect(error.description.contains("version \(HistorySchema.latest + 1)"))
  }

  @Test func aVersionOneHistoryIsMigratedWithItsTotalsKept() throws {
    let path = Self.path()
    let store = try HistoryStore(.sqlite(path: path))
    try store.append(Self.records.map { HistoryEntry($0) })
    let expected = try store.totals(per: .day)
    // Back to version 1: no daily totals, checkpoints (nor their sets) or deliveries yet.
    try store.connection.query("DROP TABLE daily_totals", [])
    try store.connection.query("DROP TABLE checkpoints", [])
    try store.connection.query("DROP TABLE checkpoint_sets", [])
    try store.connection.query("ALTER TABLE sessions DROP COLUMN summary_delivered", [])
    try store.connection.query("DELETE FROM spotter_schema WHERE version > 1", [])
    let migrated = try HistoryStore(.sqlite(path: path))
    #expect(try HistorySchema.version(migrated.connection) == HistorySchema.latest)
    #expect(try migrated.totals(per: .day) == expected)
    #expect(try migrated.sessionCount() == Self.records.count)
  }

  @Test func aFileThatIsNotAHistoryIsNamedAsSuch() throws {
    let path = Fixtures.file(named: "h.sqlite", #"{"date":"2025-01-01T00:00:00Z"}"# + "\n")
    let error = try #require(throws: HistoryError.self) { try HistoryStore(.sqlite(path: path)) }
    #expect(error.kind == .notADatabase)
    #expect(error.description.contains("expected an SQLite workout history"))
  }

  /// Lines as the JSON Lines history wrote them (the same line twice is two sessions).
  static let legacyLines = [
    #"{"date":"2025-05-01T18:00:00Z","source":"spotter demo (seed 1)","exercises":"#
      + #"{"squat":{"reps":10,"active_seconds":31.2},"bicep_curl":{"reps":8,"active_seconds":20}}}"#,
    #"{"date":"2025-05-02T07:30:00Z","source":"spotter serve, connection 3","exercises":{}}"#,
    #"{"date":"2025-05-02T07:30:00Z","source":"spotter serve, connection 3","exercises":{}}"#,
  ]

  @Test func aJSONLinesHistoryBesideTheDatabaseIsImportedOnceWithNothingLost() throws {
    let folder = Fixtures.temporaryFolder("history")
    let legacy = folder + "/history.jsonl"
    try (Self.legacyLines.joined(separator: "\n") + "\n").write(
      toFile: legacy, atomically: true, encoding: .utf8)
    let location = HistoryLocation.sqlite(path: folder + "/history.sqlite")
    var store = try HistoryStore(location)
    var sessions = try store.recentSessions(limit: 10)
    #expect(sessions.count == 3)
    let first = try #require(sessions.last)
    #expect(first.record.date == ISO8601DateFormatter().date(from: "2025-05-01T18:00:00Z"))
    #expect(first.record.source == "spotter demo (seed 1)")
    #expect(
      first.record.totals == [
        ExerciseTotal(name: "squat", reps: 10, activeSeconds: 31.2),
        ExerciseTotal(name: "bicep_curl", reps: 8, activeSeconds: 20),
      ])
    store = try HistoryStore(location)
    #expect(try store.sessionCount() == 3)
    // An older Spotter appended one more: only that one comes in.
    let handle = try #require(FileHandle(forWritingAtPath: legacy))
    handle.seekToEndOfFile()
    handle.write(
      Data((Self.legacyLines[0].replacingOccurrences(of: "05-01", with: "05-03") + "\n").utf8))
    try handle.close()
    store = try HistoryStore(location)
    sessions = try store.recentSessions(limit: 10)
    #expect(sessions.count == 4)
    #expect(FileManager.default.fileExists(atPath: legacy))
  }

  @Test func aBadLineInAnImportNamesTheLineAndImportsNothing() throws {
    let legacy = Fixtures.file(
      named: "old.jsonl", Self.legacyLines[0] + "\n" + #"{"date":"yesterday"}"# + "\n")
    let store = try HistoryStore(.sqlite(path: Self.path()))
    let error = try #require(throws: HistoryError.self) { try store.importJSONLines(legacy) }
    #expect(error.kind == .badImport)
    #expect(error.description.contains("line 2 has no ISO 8601 \"date\""))
    #expect(try store.sessionCount() == 0)
  }

  @Test func theWriterStoresEverySessionItIsGivenBeforeFinishing() throws {
    let path = Self.path()
    let writer = HistoryWriter(store: try HistoryStore(.sqlite(path: path))) { _ in }
    for index in 0..<200 {
      #expect(writer.submit(Self.record("squat", reps: index % 7, daysAgo: 0)))
    }
    writer.finish()
    #expect(writer.current == HistoryWriter.Counters(written: 200, failures: 0, queued: 0))
    #expect(try HistoryStore(.sqlite(path: path)).sessionCount() == 200)
    #expect(!writer.submit(Self.records[0]))  // finished: refused, and counted
    #expect(writer.current.failures == 1)
  }

  @Test func aWriteThatFailsIsReportedAndCountedNotDropped() throws {
    let path = Self.path()
    let writer = HistoryWriter(store: try HistoryStore(.sqlite(path: path))) { message in
      Self.reports.withLock { $0.append(message) }
    }
    // Another process breaks the history under the writer: every insert now fails.
    try HistoryStore(.sqlite(path: path)).connection.query("DROP TABLE reps", [])
    for index in 0..<3 {
      var record = Self.record("squat", reps: 2, daysAgo: 0)
      record.source = "doomed \(index)"
      writer.submit(record)
    }
    writer.finish()
    #expect(writer.current.failures == 3)
    #expect(writer.current.written == 0)
    let reports = Self.reports.withLock { $0 }
    for index in 0..<3 {
      #expect(
        reports.contains { $0.contains("doomed \(index)") && $0.contains("was not stored") },
        "\(reports)")
    }
  }

  @Test func theSpoolGivesSessionsBackWholeInTheOrderTheyCameAndForgetsThem() throws {
    let spool = try HistorySpool(folder: Fixtures.temporaryFolder("spool"))
    let entries = (0..<5).map { HistoryEntry(Self.record("squat", reps: $0 + 1, daysAgo: 0)) }
    try spool.add(Array(entries[..<3]))
    try spool.add(Array(entries[3...]))
    let oldest = try spool.oldest(4)
    #expect(oldest.map(\.entry) == Array(entries[..<4]))
    #expect(try spool.oldest(4, skipping: [oldest[0].id]).map(\.entry) == Array(entries[1...]))
    try spool.remove(ids: oldest.prefix(2).map(\.id))
    #expect(try spool.count() == 3)
    #expect(try spool.oldest(10).map(\.entry) == Array(entries[2...]))
    // What is left adds up in the spool's own totals (an operator may read it as a history).
    let totals = try HistoryStore(.sqlite(path: spool.path)).totals(per: .day)
    #expect(totals.map(\.reps) == [3 + 4 + 5])
  }

  @Test func aCheckpointIsResumedOnceOrStoredWhenNobodyComesForIt() throws {
    let store = try HistoryStore(.sqlite(path: Self.path()))
    let done = Self.record("squat", reps: 3, daysAgo: 0)
    var underWay = Self.record("lunge", reps: 2, daysAgo: 0).sets[0]
    underWay.end = 0
    let checkpoint = Checkpoint(
      uid: "a", t: 12.5, record: SessionRecord(date: done.date, source: "s", sets: done.sets),
      underWay: underWay)
    try store.save([checkpoint, Checkpoint(uid: "b", t: 1, record: checkpoint.record)])
    #expect(try store.claim("a", for: "a2") == .resumed(checkpoint))
    #expect(try store.claim("a", for: "a3") == .resumedAlready(by: "a2"))
    #expect(try store.claim("zz", for: "a4") == .unknown)
    // "a2" ends and is stored; "a" itself, sent late by a daemon that was alive after all, is
    // not: "a2" holds its sets.
    try store.append([HistoryEntry(done, uid: "a2")])
    try store.append([HistoryEntry(done, uid: "a")])
    #expect(try store.sessionCount() == 1)
    #expect(try store.claim("a", for: "a5") == .resumedAlready(by: "a2"))
    // Nobody resumed "b", nor updated it: once the resume window is over, it is stored as it
    // was left, once; and "a"'s checkpoint is forgotten.
    #expect(try store.adoptCheckpoints(before: Date().addingTimeInterval(1)) == 1)
    #expect(try store.adoptCheckpoints(before: Date().addingTimeInterval(1)) == 0)
    #expect(try store.claim("b", for: "b2") == .finished)
    #expect(try store.claim("a", for: "a6") == .unknown)
    #expect(try store.sessionCount() == 2)
    // The adopted session: the set under way ends at its last rep, and counts.
    let adopted = try #require(try store.recentSessions(limit: 10).first { $0.uid == "b" })
    #expect(adopted.record.totals.map(\.reps) == [3])
    #expect(adopted.record.summaryDelivered == false)
  }

  /// A checkpoint stores each finished set once, as later checkpoints carry only the sets
  /// after those stored (a set carried again is left as it was); read back, by a resume or an
  /// adoption, it holds them all, in order.
  @Test func aCheckpointsSetsAreStoredOnceAndReadBackWhole() throws {
    let store = try HistoryStore(.sqlite(path: Self.path()))
    let sets = (1...4).map { Self.record("squat", reps: $0, daysAgo: 0).sets[0] }
    let date = Date(timeIntervalSince1970: 1_000_000.25)
    // Written by hand (`Checkpoint.json`): quotes, a backslash and a letter beyond ASCII too.
    let source = #"spotter serve, "connection" 1\ ✓"#
    func checkpoint(_ uid: String, t: Double, from first: Int, through end: Int) -> Checkpoint {
      Checkpoint(
        uid: uid, t: t,
        record: SessionRecord(date: date, source: source, sets: Array(sets[first..<end])),
        firstSet: first)
    }
    try store.save([checkpoint("a", t: 1, from: 0, through: 2)])
    // The second write carries set 1 again (its store was not yet heard of) and set 2.
    try store.save([
      checkpoint("a", t: 2, from: 1, through: 3), checkpoint("b", t: 1, from: 0, through: 4),
    ])
    try store.save([checkpoint("a", t: 3, from: 3, through: 4)])
    let whole = Checkpoint(
      uid: "a", t: 3, record: SessionRecord(date: date, source: source, sets: sets))
    #expect(try store.claim("a", for: "a2") == .resumed(whole))
    // A resumed checkpoint keeps what it was resumed from.
    try store.save([checkpoint("a", t: 4, from: 4, through: 4)])
    #expect(try store.adoptCheckpoints(before: Date().addingTimeInterval(1)) == 1)
    let adopted = try #require(try store.recentSessions(limit: 10).first { $0.uid == "b" })
    #expect(adopted.record.totals.map(\.reps) == [1 + 2 + 3 + 4])
    #expect(try store.claim("a", for: "a3") == .unknown, "forgotten, with its sets")
  }

  static let reports = Mutex<[String]>([])
}
