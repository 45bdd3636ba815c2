/// When each utterance is said on the stream's own clock: one at a time, each as soon as the
/// one before has ended and it has been heard, stale ones dropped by the queue's rules.
///
/// This is what a sound device would have said, replayed on stream time, so a WAV made from it
/// holds the speech a live run gives, at the moments it gives it, whatever speed the events
/// arrive at. The clock is the newest time the timeline has been told: a frame's time through
/// `advance(to:)`, or an event's `t`. Events are stamped with the clock when heard, not with
/// their own `t`, because an event can be about the past (a set's start, a backfilled rep) and
/// nothing can say it before it was known.
///
/// The speaking itself is the caller's: `say` gets an utterance and its start time and returns
/// its duration in seconds. Utterances heard at the same moment (a rep and its cue, a burst of
/// backfilled reps) are all queued before any of them starts, so the burst's stale counts are
/// dropped rather than said.
public struct StreamTimeline: Sendable {
  public private(set) var queue: UtteranceQueue
  /// The stream's time: the newest time heard.
  public private(set) var now = -Double.infinity
  /// When the utterance being said ends.
  public private(set) var busyUntil = -Double.infinity

  public init(policy: SpeechPolicy = SpeechPolicy()) { queue = UtteranceQueue(policy: policy) }

  /// Moves the clock to `t` (earlier times leave it where it is), saying what starts before.
  public mutating func advance(
    to t: Double, say: (Utterance, _ start: Double) throws -> Double
  ) rethrows {
    try sayPending(before: t, say: say)
    now = max(now, t)
  }

  /// Hears `event` at the clock (moved on to the event's `t` if that is newer).
  public mutating func hear(
    _ event: SpeechEvent, say: (Utterance, _ start: Double) throws -> Double
  ) rethrows {
    try advance(to: event.t, say: say)
    queue.offer(event, heard: now)
  }

  /// Says everything still pending and worth saying, from the clock on; returns when the last
  /// utterance ends (the clock, if nothing is said after it).
  @discardableResult
  public mutating func finish(say: (Utterance, _ start: Double) throws -> Double) rethrows
    -> Double
  {
    try sayPending(before: .infinity, say: say)
    return max(now, busyUntil)
  }

  /// Starts each pending utterance whose start, the later of when the speaker is free and when
  /// it was heard, comes before `limit`.
  private mutating func sayPending(
    before limit: Double, say: (Utterance, Double) throws -> Double
  ) rethrows {
    while let heard = queue.oldestHeard {
      let start = max(busyUntil, heard)
      guard start < limit else { return }
      guard let utterance = queue.next(now: start) else { continue }
      let duration = try say(utterance, start)
      precondition(duration >= 0, "StreamTimeline: '\(utterance.text)' lasts \(duration) s")
      busyUntil = start + duration
    }
  }
}
