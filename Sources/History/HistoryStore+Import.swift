import Foundation
import Randomness
import Spotter

extension HistoryStore {
  /// Imports a JSON Lines history of an older Spotter (one
  /// `{"date":…,"source":…,"exercises":{"squat":{"reps":10,"active_seconds":31.2},…}}` a
  /// line): each line becomes a session with its totals (such a history kept no sets or reps).
  ///
  /// Once: the file's size is recorded with the import, so opening the history again costs one
  /// read; a file that grew since is imported again, and the sessions already stored are
  /// skipped (each line's uid is made from its text and how often that text came before).
  /// The file itself is left as it was. All lines go in one transaction.
  ///
  /// - Returns: the sessions added.
  /// - Throws: `.badImport` naming the first line that is not such a record (nothing is
  ///   imported then), or what the database reports.
  @discardableResult
  public func importJSONLines(_ path: String) throws(HistoryError) -> Int {
    let key = URL(fileURLWithPath: path).standardizedFileURL.path
    guard let data = FileManager.default.contents(atPath: path) else {
      throw HistoryError(
        .badImport, location: path, "cannot read it; expected a readable JSON Lines history")
    }
    if try recordedImportBytes(key) == data.count { return 0 }
    let entries = try Self.legacyEntries(data, path: path)
    return try connection.writing { () throws(HistoryError) in
      if try recordedImportBytes(key) == data.count { return 0 }  // another process did it
      let added = try insert(entries)
      try connection.query(
        """
        INSERT INTO imports (path, bytes, sessions, imported_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes,
          sessions = imports.sessions + excluded.sessions, imported_at = excluded.imported_at
        """,
        [.text(key), SQLValue(data.count), SQLValue(added), .real(Date().timeIntervalSince1970)])
      return added
    }
  }

  private func recordedImportBytes(_ key: String) throws(HistoryError) -> Int? {
    try connection.query("SELECT bytes FROM imports WHERE path = ?", [.text(key)]).first?.first?
      .int
  }

  /// The sessions of a JSON Lines history, each with a uid made from its line.
  static func legacyEntries(_ data: Data, path: String) throws(HistoryError) -> [HistoryEntry] {
    let dates = ISO8601DateFormatter()
    var seen: [String: Int] = [:]
    var entries: [HistoryEntry] = []
    let lines = String(decoding: data, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    for (index, line) in lines.enumerated() {
      let text = line.trimmingCharacters(in: .whitespaces)
      if text.isEmpty { continue }
      func bad(_ what: String) -> HistoryError {
        HistoryError(
          .badImport, location: path,
          "line \(index + 1) \(what); expected a history record such as "
            + #"{"date":"2024-05-01T18:00:00Z","source":"spotter demo","exercises":"#
            + #"{"squat":{"reps":10,"active_seconds":31.2}}}. Nothing was imported"#)
      }
      guard
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
      else { throw bad("is not a JSON object") }
      guard let stamp = object["date"] as? String, let date = dates.date(from: stamp) else {
        throw bad("has no ISO 8601 \"date\"")
      }
      guard let exercises = object["exercises"] as? [String: Any] else {
        throw bad("has no \"exercises\" object")
      }
      var totals: [ExerciseTotal] = []
      for (name, value) in exercises {
        guard let fields = value as? [String: Any], let reps = fields["reps"] as? Int else {
          throw bad("gives \(name) no whole number of \"reps\"")
        }
        let seconds = (fields["active_seconds"] as? Double) ?? 0
        totals.append(ExerciseTotal(name: name, reps: reps, activeSeconds: seconds))
      }
      // In the line's order (a dictionary forgets it): where each name's key stands.
      func place(_ name: String) -> Int {
        text.range(of: JSONText.quote(name) + ":").map {
          text.distance(from: text.startIndex, to: $0.lowerBound)
        } ?? 0
      }
      totals.sort { place($0.name) < place($1.name) }
      let occurrence = seen[text, default: 0]
      seen[text] = occurrence + 1
      let record = SessionRecord(
        date: date, source: object["source"] as? String ?? "", totals: totals)
      entries.append(
        HistoryEntry(record, uid: "jsonl-\(Self.fingerprint(text))-\(occurrence)"))
    }
    return entries
  }

  /// FNV-1a, 64 bits, as hex: the same line gives the same uid in every process and run.
  static func fingerprint(_ text: String) -> String {
    String(StableHash.fnv1a(text), radix: 16)
  }
}
