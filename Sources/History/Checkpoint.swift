import Foundation
import Spotter

/// A live session's progress, kept in the history (`checkpoints`) so that another daemon can
/// resume it when its own dies: the sets finished so far, the reps of the set under way, and
/// the stream time `t` the resumed session counts on from. Its client resends the frames after
/// `t`: a new session counts the set under way again from them, so no rep is lost or counted
/// twice; the reps of `underWay` are kept for a client that cannot resend (README, "Resuming a
/// session").
public struct Checkpoint: Sendable, Equatable {
  /// The live session's uid: its record is stored under it.
  public var uid: String
  public var t: Double
  /// When, where from and whose, and the sets finished before `t`.
  public var record: SessionRecord
  /// The set under way when the checkpoint was taken (its reps so far), if any.
  public var underWay: SetRecord?

  public init(uid: String, t: Double, record: SessionRecord, underWay: SetRecord? = nil) {
    self.uid = uid
    self.t = t
    self.record = record
    self.underWay = underWay
  }

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

  /// The JSON kept in `checkpoints.record`. Metrics that are not numbers (NaN) are `null`.
  var json: String {
    var object: [String: Any] = [
      "date": record.date.timeIntervalSince1970, "source": record.source,
      "sets": record.sets.map(Self.object),
    ]
    if let person = record.person { object["person"] = person }
    if let underWay { object["under_way"] = Self.object(underWay) }
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  init?(uid: String, t: Double, json: String) {
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
      let date = object["date"] as? Double, let source = object["source"] as? String,
      let sets = object["sets"] as? [[String: Any]]
    else { return nil }
    self.uid = uid
    self.t = t
    record = SessionRecord(
      date: Date(timeIntervalSince1970: date), source: source,
      person: object["person"] as? String, sets: sets.compactMap(Self.set))
    underWay = (object["under_way"] as? [String: Any]).flatMap(Self.set)
  }

  private static func object(_ set: SetRecord) -> [String: Any] {
    [
      "exercise": set.exercise, "start": set.start, "end": set.end,
      "reps": set.reps.map { rep -> [Any] in
        [
          number(rep.t), number(rep.duration), number(rep.timeDown), number(rep.timeUp),
          number(rep.rangeOfMotion), rep.side ?? NSNull(), rep.partial, rep.backfilled,
        ]
      },
    ]
  }

  private static func number(_ value: Double) -> Any { value.isFinite ? value : NSNull() }

  private static func set(_ object: [String: Any]) -> SetRecord? {
    guard let exercise = object["exercise"] as? String, let start = object["start"] as? Double,
      let end = object["end"] as? Double, let reps = object["reps"] as? [[Any]]
    else { return nil }
    func number(_ value: Any) -> Double { value as? Double ?? .nan }
    return SetRecord(
      exercise: exercise, start: start, end: end,
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
  /// transaction. A session resumed already keeps the checkpoint it was resumed from.
  public func save(_ checkpoints: [Checkpoint]) throws(HistoryError) {
    guard !checkpoints.isEmpty else { return }
    let now = Date().timeIntervalSince1970
    try connection.writing { () throws(HistoryError) in
      for checkpoint in checkpoints {
        try connection.query(
          """
          INSERT INTO checkpoints (uid, t, record, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (uid) DO UPDATE SET t = excluded.t, record = excluded.record,
            updated_at = excluded.updated_at WHERE checkpoints.resumed_as IS NULL
          """, [.text(checkpoint.uid), .real(checkpoint.t), .text(checkpoint.json), .real(now)])
      }
    }
  }

  /// Stores, as finished sessions, the checkpoints of sessions that were neither updated nor
  /// resumed since `before`: their daemon died and their client never came back. The set
  /// under way ends at its last rep. Checkpoints resumed before then are forgotten. Returns
  /// how many were stored; in one transaction, so that of two daemons doing this at once, one
  /// stores each.
  @discardableResult
  public func adoptCheckpoints(before: Date) throws(HistoryError) -> Int {
    try connection.writing { () throws(HistoryError) -> Int in
      try connection.query(
        "DELETE FROM checkpoints WHERE updated_at < ? AND resumed_as IS NOT NULL",
        [.real(before.timeIntervalSince1970)])
      let rows = try connection.query(
        "DELETE FROM checkpoints WHERE updated_at < ? AND resumed_as IS NULL "
          + "RETURNING uid, t, record", [.real(before.timeIntervalSince1970)])
      let entries = rows.compactMap { row -> HistoryEntry? in
        guard let uid = row[0].string,
          let checkpoint = Checkpoint(uid: uid, t: row[1].double, json: row[2].string ?? "")
        else { return nil }
        return HistoryEntry(checkpoint.lastWord, uid: uid)
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
        guard let checkpoint = Checkpoint(uid: uid, t: row[0].double, json: row[1].string ?? "")
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
