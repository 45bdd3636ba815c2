import Speech

/// Events as a workout makes them, written short: `rep(3, at: 4.2)` is squat rep 3 ending at
/// 4.2 s.
enum Events {
  static func start(_ exercise: String = "squat", at t: Double) -> SpeechEvent {
    .exerciseStarted(t: t, exercise: exercise)
  }

  static func rep(_ count: Int, _ exercise: String = "squat", at t: Double) -> SpeechEvent {
    .rep(t: t, exercise: exercise, count: count)
  }

  static func cue(_ message: String, _ exercise: String = "squat", at t: Double) -> SpeechEvent {
    .cue(t: t, exercise: exercise, message: message)
  }

  static func end(_ reps: Int, _ exercise: String = "squat", at t: Double) -> SpeechEvent {
    .exerciseEnded(t: t, exercise: exercise, reps: reps)
  }
}

/// A timeline run with utterances lasting `seconds(text)`: what was said, and when.
struct Said: Equatable, CustomStringConvertible {
  var text: String
  var start: Double
  var end: Double
  /// When the utterance was heard (not compared: the tests say when things start).
  var heard = 0.0

  static func == (a: Said, b: Said) -> Bool {
    a.text == b.text && abs(a.start - b.start) < 1e-9 && abs(a.end - b.end) < 1e-9
  }

  init(text: String, start: Double, end: Double, heard: Double = 0) {
    self.text = text
    self.start = start
    self.end = end
    self.heard = heard
  }

  var description: String { "\(text)@\(start)" }

  /// Plays `events` through a timeline, each heard at its own `t`; utterances last 1 s unless
  /// `seconds` says otherwise.
  static func timeline(
    _ events: [SpeechEvent], seconds: @escaping (String) -> Double = { _ in 1 }
  ) -> (said: [Said], dropped: Int) {
    timeline(events.map { (nil, $0) }, seconds: seconds)
  }

  /// Plays `(frame time, event)` pairs through a timeline: the clock is moved to the frame's
  /// time (when given) before the event is heard, as the CLI does for each frame.
  static func timeline(
    _ steps: [(Double?, SpeechEvent)], seconds: @escaping (String) -> Double = { _ in 1 }
  ) -> (said: [Said], dropped: Int) {
    var timeline = StreamTimeline()
    var said: [Said] = []
    let say = { (utterance: Utterance, start: Double) -> Double in
      let duration = seconds(utterance.text)
      said.append(
        Said(text: utterance.text, start: start, end: start + duration, heard: utterance.heard))
      return duration
    }
    for (frame, event) in steps {
      if let frame { timeline.advance(to: frame, say: say) }
      timeline.hear(event, say: say)
    }
    timeline.finish(say: say)
    return (said, timeline.queue.dropped)
  }
}
