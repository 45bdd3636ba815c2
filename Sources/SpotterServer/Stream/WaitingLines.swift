import Poses

/// The lines a connection read and its stream has not yet handled, with their numbers and
/// kinds (pointing into the connection's `LineSplitter` until it releases them), and the
/// frame decoded from one.
///
/// A stream handles all its connection read before the next connection is served, so the
/// daemon's streams share one: buffers that stay in cache, not a cold pair for every
/// connection and frame. A stream may stop part-way, after a command the daemon answers at
/// once (`{"cmd":"stats"}`), and go on from `next`: the reply takes the command's place among
/// the events.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class WaitingLines {
  @exclusivity(unchecked) private(set) var lines:
    [(line: LineSplitter.Line, number: Int, kind: LineKind)] = []
  /// The first line not yet handled.
  @exclusivity(unchecked) var next = 0
  /// Frame lines before this index are late (beyond the backlog), once handling has begun.
  @exclusivity(unchecked) var keepFrom = 0
  /// When they were read (Unix seconds): a resumed stream's replay lasts at least
  /// `ResumeLedger.replaySeconds`.
  @exclusivity(unchecked) var readAt = 0.0
  /// A frame decoded in place (the decoder keeps state between frames).
  @exclusivity(unchecked) var frame = PeopleFrame()

  init() { lines.reserveCapacity(64) }

  var isEmpty: Bool { lines.isEmpty }
  /// Whether handling has begun: the backlog is reckoned once, over every line read.
  var isStarted: Bool { next > 0 }
  var isHandled: Bool { next == lines.count }

  /// Takes the whole lines `splitter` holds, telling each line's kind once, as it arrives.
  func take(from splitter: LineSplitter) {
    while let line = splitter.next() {
      let kind: LineKind
      if case .text(let text) = line { kind = LineKind(text) } else { kind = .other }
      lines.append((line, splitter.lineNumber, kind))
    }
  }

  /// Forgets the lines (handled, or their connection is gone), keeping the room they took.
  func clear() {
    lines.removeAll(keepingCapacity: true)
    next = 0
    keepFrom = 0
  }
}
