import Foundation
import Spotter

/// A live session's progress, kept in the history (`checkpoints`) so that another daemon can
/// resume it when its own dies: the sets finished so far, the reps of the set under way, and
/// the stream time `t` the resumed session counts on from. Its client resends the frames after
/// `t`: a new session counts the set under way again from them, so no rep is lost or counted
/// twice; the reps of `underWay` are kept for a client that cannot resend (README, "Resuming a
/// session").
///
/// What a checkpoint costs must not grow with its session: a finished set is stored once, in
/// the first checkpoint whose write succeeds after it ended. A checkpoint written carries the
/// sets from `firstSet` on (those its session has not heard were stored, `setsThrough`); one
/// read back (`HistoryStore.claim`, `adoptCheckpoints`) carries them all.
public struct Checkpoint: Sendable, Equatable {
  /// The live session's uid: its record is stored under it.
  public var uid: String
  public var t: Double
  /// When, where from and whose, and the sets finished before `t` from `firstSet` on.
  public var record: SessionRecord
  /// The set under way when the checkpoint was taken (its reps so far), if any.
  public var underWay: SetRecord?
  /// The position among the session's finished sets of `record.sets`' first: the sets before
  /// it were stored with earlier checkpoints.
  public var firstSet: Int

  public init(
    uid: String, t: Double, record: SessionRecord, underWay: SetRecord? = nil, firstSet: Int = 0
  ) {
    self.uid = uid
    self.t = t
    self.record = record
    self.underWay = underWay
    self.firstSet = firstSet
  }

  /// The sets stored once this checkpoint is: every finished set before this position.
  public var setsThrough: Int { firstSet + record.sets.count }

  /// What a resume found.
  public enum Claim: Sendable, Equatable {
    /// The checkpoint, now the resuming session's.
    case resumed(Checkpoint)
    /// Resumed already (by the session with this uid): a session is resumed once.
    case resumedAlready(by: String)
    /// Stored whole already: its daemon ended it.
    case finished
    /// No such session.
    case unknown
  }

  /// The session as its checkpoint left it, finished: the set under way ends at its last
  /// rep, and the totals are the sets' sums. Its summary never reached the client.
  public var lastWord: SessionRecord {
    var finished = record
    if var set = underWay, let last = set.reps.last {
      set.end = last.t
      finished.sets.append(set)
    }
    finished.totals = []
    for set in finished.sets {
      if let index = finished.totals.firstIndex(where: { $0.name == set.exercise }) {
        finished.totals[index].reps += set.count
        finished.totals[index].activeSeconds += set.activeSeconds
      } else {
        finished.totals.append(
          ExerciseTotal(name: set.exercise, reps: set.count, activeSeconds: set.activeSeconds))
      }
    }
    finished.summaryDelivered = false
    return finished
  }

  /// The JSON kept in `checkpoints.record`: when, where from, whose, and the set under way.
  /// The finished sets are rows of their own (`checkpoint_sets`, `setJSON`). Written here,
  /// not by `JSONSerialization`: a daemon writes one at every rep of every session, and
  /// Foundation's bridging of a dictionary cost more than the rest of the checkpoint.
  /// Numbers keep every digit (Swift's shortest exact form); those that are not (NaN) are
  /// `null`.
  var json: String {
    var text = "{\"date\":" + Self.number(record.date.timeIntervalSince1970)
    text += ",\"source\":" + JSONText.quote(record.source)
    if let person = record.person { text += ",\"person\":" + JSONText.quote(person) }
    if let underWay {
      text += ",\"under_way\":"
      Self.append(underWay, to: &text)
    }
    return text + "}"
  }

  /// A finished set's JSON, kept in `checkpoint_sets.record`.
  static func setJSON(_ set: SetRecord) -> String {
    var text = ""
    append(set, to: &text)
    return text
  }

  /// `{"exercise":…,"start":…,"end":…,"reps":[[t, duration, time down, time up, range of
  /// motion, side, partial, backfilled], …]}`.
  private static func append(_ set: SetRecord, to text: inout String) {
    text += "{\"exercise\":" + JSONText.quote(set.exercise) + ",\"start\":" + number(set.start)
    text += ",\"end\":" + number(set.end) + ",\"reps\":["
    for (index, rep) in set.reps.enumerated() {
      if index > 0 { text += "," }
      text += "[" + number(rep.t) + "," + number(rep.duration) + "," + number(rep.timeDown)
      text += "," + number(rep.timeUp) + "," + number(rep.rangeOfMotion) + ","
      text += rep.side.map(JSONText.quote) ?? "null"
      text += (rep.partial ? ",true" : ",false") + (rep.backfilled ? ",true]" : ",false]")
    }
    text += "]}"
  }

  private static func number(_ value: Double) -> String { value.isFinite ? "\(value)" : "null" }

  /// A checkpoint read back: its row's JSON and its finished sets' (in order). A row written
  /// before the sets had rows of their own holds them in its JSON: they come first.
  init?(uid: String, t: Double, json: String, sets setTexts: [String] = []) {
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
      let date = object["date"] as? Double, let source = object["source"] as? String
    else { return nil }
    var sets = (object["sets"] as? [[String: Any]] ?? []).compactMap(Self.set)
    // A set row that cannot be read is left out, not the whole checkpoint with it.
    sets += setTexts.compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]).flatMap(Self.set)
    }
    self.uid = uid
    self.t = t
    firstSet = 0
    record = SessionRecord(
      date: Date(timeIntervalSince1970: date), source: source,
      person: object["person"] as? String, sets: sets)
    underWay = (object["under_way"] as? [String: Any]).flatMap(Self.set)
  }

  private static func set(_ object: [String: Any]) -> SetRecord? {
    guard let exercise = object["exercise"] as? String, let reps = object["reps"] as? [[Any]]
    else { return nil }
    func number(_ value: Any?) -> Double { value as? Double ?? .nan }
    return SetRecord(
      exercise: exercise, start: number(object["start"]), end: number(object["end"]),
      reps: reps.filter { $0.count == 8 }.map { rep in
        RepRecord(
          t: number(rep[0]), duration: number(rep[1]), timeDown: number(rep[2]),
          timeUp: number(rep[3]), rangeOfMotion: number(rep[4]), side: rep[5] as? String,
          partial: rep[6] as? Bool ?? false, backfilled: rep[7] as? Bool ?? false)
      })
  }
}

extension HistoryStore {
  /// Keeps each checkpoint (the last of a session replaces its earlier one), in one
  /// transaction: its row, and a row for each finished set it carries that is not stored yet
  /// (`firstSet` on; one stored already is left as it is). A session resumed already keeps
  /// the checkpoint it was resumed from. Returns the checkpoints kept: not those of sessions
  /// resumed already, whose clients must not be told a resume point the history does not hold.
  @discardableResult
  public func save(_ checkpoints: [Checkpoint]) throws(HistoryError) -> [Checkpoint] {
    guard !checkpoints.isEmpty else { return [] }
    let now = Date().timeIntervalSince1970
    return try connection.writing { () throws(HistoryError) -> [Checkpoint] in
      var kept: [Checkpoint] = []
      for checkpoint in checkpoints {
        let row = try connection.query(
          """
          INSERT INTO checkpoints (uid, t, record, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (uid) DO UPDATE SET t = excluded.t, record = excluded.record,
            updated_at = excluded.updated_at WHERE checkpoints.resumed_as IS NULL
          RETURNING uid
          """, [.text(checkpoint.uid), .real(checkpoint.t), .text(checkpoint.json), .real(now)])
        guard !row.isEmpty else { continue }
        kept.append(checkpoint)
        for (offset, set) in checkpoint.record.sets.enumerated() {
          try connection.query(
            """
            INSERT INTO checkpoint_sets (uid, position, record) VALUES (?, ?, ?)
            ON CONFLICT (uid, position) DO NOTHING
            """,
            [
              .text(checkpoint.uid), SQLValue(checkpoint.firstSet + offset),
              .text(Checkpoint.setJSON(set)),
            ])
        }
      }
      return kept
    }
  }

  /// The finished sets kept for session `uid`'s checkpoint, as JSON, in order.
  func checkpointSets(of uid: String) throws(HistoryError) -> [String] {
    try connection.query(
      "SELECT record FROM checkpoint_sets WHERE uid = ? ORDER BY position", [.text(uid)]
    ).map { $0[0].string ?? "" }
  }

  /// Stores, as finished sessions, the checkpoints of sessions that were neither updated nor
  /// resumed since `before`: their daemon died and their client never came back. The set
  /// under way ends at its last rep. Checkpoints resumed before then are forgotten. Returns
  /// how many were stored; in one transaction, so that of two daemons doing this at once, one
  /// stores each.
  @discardableResult
  public func adoptCheckpoints(before: Date) throws(HistoryError) -> Int {
    try connection.writing { () throws(HistoryError) -> Int in
      let cutoff = SQLValue.real(before.timeIntervalSince1970)
      try connection.query(
        "DELETE FROM checkpoint_sets WHERE uid IN (SELECT uid FROM checkpoints "
          + "WHERE updated_at < ? AND resumed_as IS NOT NULL)", [cutoff])
      try connection.query(
        "DELETE FROM checkpoints WHERE updated_at < ? AND resumed_as IS NOT NULL", [cutoff])
      let rows = try connection.query(
        "DELETE FROM checkpoints WHERE updated_at < ? AND resumed_as IS NULL "
          + "RETURNING uid, t, record", [cutoff])
      var entries: [HistoryEntry] = []
      for row in rows {
        guard let uid = row[0].string else { continue }
        let sets = try checkpointSets(of: uid)
        try connection.query("DELETE FROM checkpoint_sets WHERE uid = ?", [.text(uid)])
        guard
          let checkpoint = Checkpoint(
            uid: uid, t: row[1].double, json: row[2].string ?? "", sets: sets)
        else { continue }
        entries.append(HistoryEntry(checkpoint.lastWord, uid: uid))
      }
      return try insert(entries)
    }
  }

  /// Takes the checkpoint of session `uid` for the session `resumer`, once: in one
  /// transaction, so that of two daemons resuming it at once, one gets it.
  public func claim(_ uid: String, for resumer: String) throws(HistoryError) -> Checkpoint.Claim {
    try connection.writing { () throws(HistoryError) -> Checkpoint.Claim in
      let claimed = try connection.query(
        "UPDATE checkpoints SET resumed_as = ? WHERE uid = ? AND resumed_as IS NULL "
          + "RETURNING t, record", [.text(resumer), .text(uid)])
      if let row = claimed.first {
        guard
          let checkpoint = Checkpoint(
            uid: uid, t: row[0].double, json: row[1].string ?? "", sets: try checkpointSets(of: uid)
          )
        else {
          throw HistoryError(
            .database, location: "\(location)",
            "the checkpoint of the session to resume is not one this Spotter can read")
        }
        return .resumed(checkpoint)
      }
      if let row = try connection.query(
        "SELECT resumed_as FROM checkpoints WHERE uid = ?", [.text(uid)]
      ).first {
        return .resumedAlready(by: row[0].string ?? "")
      }
      let stored = try connection.query("SELECT 1 FROM sessions WHERE uid = ?", [.text(uid)])
      return stored.isEmpty ? .unknown : .finished
    }
  }
}
