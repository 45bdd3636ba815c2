import Spotter

/// What a stream sends its client, as bytes appended to the caller's buffer (a connection's
/// bytes not yet written), within the output limit (README, "Serving many streams": a client
/// that does not read loses events, and nobody else waits).
///
/// Past `limit` bytes waiting, the events of the moment (predictions, presence, cues, rejected
/// reps) are dropped first; the workout's own (sets, reps, goals, errors) up to twice the
/// limit; the events that end a session never (`finishing`): the client learns from them what
/// it lost. Lines of the stream's own (`session`, `checkpoint`, a reply) are never dropped:
/// past the limit, the stream reads no more lines while replies wait (`takesLines`).
struct EventOutput {
  /// Bytes waiting beyond which events are dropped.
  let limit: Int
  /// Bytes appended so far.
  private(set) var bytesAppended = 0
  /// Events dropped so far (the summary's `dropped_events`).
  private(set) var droppedEvents = 0
  /// The session is being finished: its last events are never dropped.
  var finishing = false

  init(limit: Int) { self.limit = limit }

  /// Writes the event's line into `output` (as bytes, with no string made), or counts it
  /// dropped when the client is that far behind.
  mutating func append(_ event: SpotterEvent, person: Int?, to output: inout [UInt8]) {
    guard finishing || output.count < limit || (output.count < 2 * limit && event.isLasting)
    else {
      droppedEvents += 1
      return
    }
    let before = output.count
    event.appendJSON(person: person, to: &output)
    output.append(0x0A)
    bytesAppended += output.count - before
  }

  /// Writes a line of the stream's own: never dropped.
  mutating func write(_ line: String, to output: inout [UInt8]) {
    output.append(contentsOf: line.utf8)
    output.append(0x0A)
    bytesAppended += line.utf8.count + 1
  }
}

extension SpotterEvent {
  /// Part of the workout's story (a set, a rep, a goal, an error), not of the moment.
  fileprivate var isLasting: Bool {
    switch self {
    case .prediction, .presence, .cue, .repRejected: false
    default: true
    }
  }
}
