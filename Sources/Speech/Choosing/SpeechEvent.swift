/// What speech hears of a workout: the moments that have words, each at its stream time.
///
/// Speech knows nothing of the runtime that makes these moments, so an app that speaks links
/// neither the network nor the runtime through this module: whoever runs a session turns its
/// events into these (the command line does, in `SpeechEvent+Runtime.swift`), and leaves out
/// what is never said (predictions, presence, refused reps, the summary, bad lines, and the
/// sets of a label that is not an exercise, such as `other`).
public enum SpeechEvent: Sendable, Equatable {
  /// A set began.
  case exerciseStarted(t: Double, exercise: String)
  /// A rep was counted: its number in the set.
  case rep(t: Double, exercise: String, count: Int)
  /// A form cue.
  case cue(t: Double, exercise: String, message: String)
  /// A set reached its goal.
  case goalReached(t: Double, exercise: String)
  /// A set ended with `reps` reps.
  case exerciseEnded(t: Double, exercise: String, reps: Int)

  /// When it happened, on the stream's clock.
  public var t: Double {
    switch self {
    case .exerciseStarted(let t, _), .rep(let t, _, _), .cue(let t, _, _), .goalReached(let t, _),
      .exerciseEnded(let t, _, _):
      t
    }
  }
}
