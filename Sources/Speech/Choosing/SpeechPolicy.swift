/// When a pending utterance is no longer worth saying.
///
/// A person mid-set wants the count they are on, not a backlog: when speech falls behind
/// (reps quicker than words, or a burst of backfilled reps when an exercise is recognised), the
/// speaker skips what is out of date instead of queueing it up.
public struct SpeechPolicy: Sendable, Equatable {
  /// A count this many reps behind the newest count of its exercise is dropped. 2, as the
  /// issue puts it: "a count that is already two reps old is not read out". One rep behind is
  /// still said, so a speaker that lags by a word still says every count when it can.
  public var staleCountLag = 2
  /// A cue, or the name of a set that has just started, is dropped once it has waited this
  /// many seconds. 4 s is about two reps at an everyday tempo (1.5–2 s a rep): the same horizon
  /// as a count's, after which advice about a rep no longer matches what the person is doing.
  public var maximumWait: Double = 4

  public init() {}
}
