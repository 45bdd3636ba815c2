import Poses
import Spotter

/// What a caller of `classify` or `count` adds to the session they run: a live session's
/// history, latencies and page hear every event, its events' lines carry the capture time of
/// the frame that decided them, and its summary the frames the detector dropped. A session of a
/// file needs none of it (the default).
struct EventTaps {
  /// Hears each event, with its person's id when the stream follows several.
  var observe: (Int?, SpotterEvent) -> Void = { _, _ in }
  /// Fields added to an event's NDJSON line, after the runtime's own (`,"key":value` each,
  /// or nothing).
  var fields: (SpotterEvent) -> String = { _ in "" }
  /// What the stream lost on the way, for its summary.
  var counters: () -> StreamCounters = { StreamCounters() }

  /// The event's NDJSON line, with `fields` after the runtime's own.
  func jsonLine(_ event: SpotterEvent, person: Int?) -> String {
    let line = event.jsonLine(person: person)
    let added = fields(event)
    return added.isEmpty ? line : line.dropLast() + added + "}"
  }

  /// Runs `source` through `session` to its end (bad lines reported, the stream going on), then
  /// finishes it with `counters`: `Session.run`, with what the stream lost in its summary.
  func run(
    _ source: any PoseSource, through session: Session,
    emit: (_ person: Int?, SpotterEvent) -> Void, afterFrame: () throws -> Void
  ) throws {
    try session.run(source, emit: emit, afterFrame: afterFrame, counters: counters)
  }
}
