import Foundation
import Spotter

/// The history's records of a stream's sessions, built from the events sent (README, "Serving
/// many streams"): one for a stream of one person; in a stream of several, one for each person,
/// stored when their summary is sent (`person` the header's with `/id` added, `source` naming
/// the id). A finished record is held until the client has read its summary's bytes
/// (`summary_delivered`), or its connection closes without them.
struct SessionRecords {
  /// Who the header says the stream is (its `person` or `client`).
  private(set) var person: String?
  /// The record of a stream of one person, while its session lasts.
  private(set) var one: SessionRecorder?
  /// The records of the people of a stream of several, by id, while they are followed.
  private var people: [(id: Int, recorder: SessionRecorder)] = []
  /// Finished records, each with the end of its summary's bytes in the stream's output.
  private var undelivered: [(end: Int, uid: String, record: SessionRecord)] = []

  /// The stream's person, once its header came.
  mutating func name(_ person: String?) { self.person = person }

  /// Starts the record of a stream of one person.
  mutating func startOne(source: String) {
    one = SessionRecorder(source: source, person: person)
  }

  /// The one person's record goes on from `record`: a resumed session's sets come first.
  mutating func continueOne(from record: SessionRecord) {
    var record = record
    record.person = record.person ?? person
    one = SessionRecorder(continuing: record)
  }

  /// A set the one person's record did not see (it was under way at the checkpoint resumed)
  /// joins its sets.
  mutating func add(_ set: SetRecord) {
    guard var record = one?.record else { return }
    record.sets.append(set)
    one = SessionRecorder(continuing: record)
  }

  /// The one person's record takes an event of theirs.
  mutating func take(_ event: SpotterEvent) { one?.take(event) }

  /// The record of person `id` of a stream of several takes an event of theirs (started with
  /// their first); with their summary, their finished record comes back.
  mutating func take(_ event: SpotterEvent, person id: Int, stream: String) -> SessionRecord? {
    if !people.contains(where: { $0.id == id }) {
      people.append(
        (
          id,
          SessionRecorder(
            source: "spotter serve, \(stream), person \(id)",
            person: person.map { "\($0)/\(id)" })
        ))
    }
    let index = people.firstIndex { $0.id == id }!
    people[index].recorder.take(event)
    guard case .summary = event else { return nil }
    return people.remove(at: index).recorder.record
  }

  /// Ends the one person's record: what it holds, if the stream had one.
  mutating func endOne() -> SessionRecord? {
    defer { one = nil }
    return one?.record
  }

  /// Holds a finished record until the first `end` bytes of the stream's output are written.
  mutating func hold(_ record: SessionRecord, uid: String, end: Int) {
    undelivered.append((end, uid, record))
  }

  var holdsRecords: Bool { !undelivered.isEmpty }

  /// Hands `store` the records whose summaries are among the first `written` bytes, and with
  /// `closing`, the rest, as not delivered.
  mutating func deliver(
    written: Int, closing: Bool, store: (SessionRecord, _ uid: String) -> Void
  ) {
    while let first = undelivered.first, closing || first.end <= written {
      undelivered.removeFirst()
      var record = first.record
      record.summaryDelivered = first.end <= written
      store(record, first.uid)
    }
  }
}
