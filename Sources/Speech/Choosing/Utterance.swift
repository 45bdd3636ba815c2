/// One thing to say: its words, which set it belongs to, and when the speaker heard of it.
public struct Utterance: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// A set began: its exercise's name ("squat").
    case setStarted
    /// A rep was counted: its number ("4").
    case count(Int)
    /// A form cue: its message.
    case cue
    /// A set ended: the exercise and its reps ("squat: 12 reps").
    case setEnded
  }

  public var kind: Kind
  public var exercise: String
  public var text: String
  /// When the speaker heard the event, on the speaker's clock (the stream's time for a WAV,
  /// real time for the sound device). Staleness is measured from here.
  public var heard: Double
}

// In an extension, so that the struct keeps its memberwise init, which this init calls.
extension Utterance {
  /// What is said for `event`, or nil for a cue without words.
  public init?(_ event: SpeechEvent, heard: Double) {
    switch event {
    case .exerciseStarted(_, let exercise):
      self.init(kind: .setStarted, exercise: exercise, text: Self.name(exercise), heard: heard)
    case .rep(_, let exercise, let count):
      self.init(kind: .count(count), exercise: exercise, text: "\(count)", heard: heard)
    case .cue(_, let exercise, let message):
      guard !message.isEmpty else { return nil }
      self.init(kind: .cue, exercise: exercise, text: message, heard: heard)
    case .goalReached(_, let exercise):
      self.init(kind: .cue, exercise: exercise, text: "Goal reached", heard: heard)
    case .exerciseEnded(_, let exercise, let reps):
      let text = "\(Self.name(exercise)): \(reps) \(reps == 1 ? "rep" : "reps")"
      self.init(kind: .setEnded, exercise: exercise, text: text, heard: heard)
    }
  }

  /// A label as words: `push_up` is said "push up".
  public static func name(_ label: String) -> String {
    label.replacingOccurrences(of: "_", with: " ")
  }
}
