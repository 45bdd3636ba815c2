import ActionModel
import Speech
import Spotter

/// Speech composed with the runtime: the command line, which has both, turns the session's
/// events into what speech hears, so the `Speech` module needs neither the runtime nor the
/// network behind it.
extension SpeechEvent {
  /// What speech hears of `event`; nil for an event without words (predictions, presence,
  /// refused reps, the summary, bad lines) and for the sets of `other`, which is standing,
  /// walking or resting, not an exercise.
  init?(_ event: SpotterEvent) {
    switch event {
    case .exerciseStarted(let t, let exercise, _) where exercise != Labels.other:
      self = .exerciseStarted(t: t, exercise: exercise)
    case .rep(let t, let exercise, let rep, _):
      self = .rep(t: t, exercise: exercise, count: rep.count)
    case .cue(let t, let exercise, let message):
      self = .cue(t: t, exercise: exercise, message: message)
    case .goalReached(let t, let exercise, _):
      self = .goalReached(t: t, exercise: exercise)
    case .exerciseEnded(let t, let exercise, let reps) where exercise != Labels.other:
      self = .exerciseEnded(t: t, exercise: exercise, reps: reps)
    default:
      return nil
    }
  }
}

extension CueSpeaker {
  /// Hears a session's event: what it says, if it has words; else only its time, which moves
  /// the speaker's clock on.
  func hear(_ event: SpotterEvent) {
    if let spoken = SpeechEvent(event) {
      hear(spoken)
    } else if let t = event.t {
      advance(to: t)
    }
  }
}
