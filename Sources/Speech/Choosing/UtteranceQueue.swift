/// What is waiting to be said, oldest first, with what has gone stale taken out.
///
/// A count is dropped once a count two reps newer of its exercise has been heard; a set's end
/// drops its pending counts and its start (the end says the name and the total); a cue or a
/// start is dropped after waiting `SpeechPolicy.maximumWait`; a cue heard again replaces the
/// pending copy. A set's end is never dropped: it is the set's result. So the queue stays short
/// however far behind the speaker is: at most one pending count per exercise beyond the newest,
/// each cue once, and one end per set.
///
/// The queue has no clock of its own: `offer` stamps what it hears with the caller's time and
/// `next(now:)` judges age at the caller's time, so the same rules serve the stream's clock
/// (a WAV) and real time (the sound device), and tests need neither.
public struct UtteranceQueue: Sendable {
  public let policy: SpeechPolicy
  /// The pending utterances, oldest first.
  public private(set) var pending: [Utterance] = []
  /// How many utterances were dropped as stale.
  public private(set) var dropped = 0
  /// The newest count heard per exercise in its current set.
  private var newestCount: [String: Int] = [:]

  public init(policy: SpeechPolicy = SpeechPolicy()) { self.policy = policy }

  public var isEmpty: Bool { pending.isEmpty }
  /// When the oldest pending utterance was heard.
  public var oldestHeard: Double? { pending.first?.heard }

  /// Takes an event heard at `heard`: queues what it says, and drops what it makes stale.
  public mutating func offer(_ event: SpeechEvent, heard: Double) {
    guard let utterance = Utterance(event, heard: heard) else { return }
    let exercise = utterance.exercise
    switch utterance.kind {
    case .setStarted:
      newestCount[exercise] = nil
    case .count(let count):
      let newest = max(newestCount[exercise] ?? count, count)
      newestCount[exercise] = newest
      let stale = newest - policy.staleCountLag  // this count and older are out of date
      drop { $0.exercise == exercise && $0.count.map { $0 <= stale } == true }
      if count <= stale {  // heard already stale: an older count arriving after a newer one
        dropped += 1
        return
      }
    case .cue:
      drop { $0.kind == .cue && $0.text == utterance.text }
    case .setEnded:
      newestCount[exercise] = nil
      drop { $0.exercise == exercise && ($0.kind == .setStarted || $0.count != nil) }
    }
    pending.append(utterance)
  }

  /// The next utterance to say at `now`, removed from the queue, after dropping cues and starts
  /// that have waited too long. Nil when nothing is pending or the oldest was heard after
  /// `now`.
  public mutating func next(now: Double) -> Utterance? {
    let maximumWait = policy.maximumWait
    drop { $0.expires && now - $0.heard > maximumWait }
    guard let first = pending.first, first.heard <= now else { return nil }
    pending.removeFirst()
    return first
  }

  private mutating func drop(where stale: (Utterance) -> Bool) {
    let before = pending.count
    pending.removeAll(where: stale)
    dropped += before - pending.count
  }
}

extension Utterance {
  fileprivate var count: Int? {
    if case .count(let count) = kind { count } else { nil }
  }

  /// Cues and set starts lose their point with time; counts are judged by newer counts, and a
  /// set's end never goes stale.
  fileprivate var expires: Bool { kind == .cue || kind == .setStarted }
}
