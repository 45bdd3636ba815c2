/// Turns a stream of predictions into exercise starts and ends, with enter and exit hysteresis
/// and a dwell, so the exercise never flickers.
struct LabelSmoother {
  let options: SessionOptions
  let otherLabel: Int?
  /// The exercise under way, if any (a label index).
  private(set) var active: Int?
  private var candidate: Int?
  private var streak = 0
  private var candidateSince = 0.0
  private var exitStreak = 0
  private var exitSince = 0.0
  /// A label that may not start again until a prediction of something else (a set ended by its
  /// goal while the person finishes the movement).
  private var held: Int?

  init(options: SessionOptions, otherLabel: Int?) {
    self.options = options
    self.otherLabel = otherLabel
  }

  /// What one prediction changed: the exercise under way ended, another started, or both (a
  /// switch: the end first).
  struct Changes {
    var ended: (label: Int, at: Double)?
    var started: (label: Int, at: Double)?
  }

  /// Takes one prediction (nil: too little of a person to classify) at time `t`.
  mutating func observe(label: Int?, confidence: Float, t: Double) -> Changes {
    var changes = Changes()
    if held != nil && label != held { held = nil }
    let confident =
      label != nil && label != otherLabel && label != held && confidence >= options.enterConfidence
      && confidence >= options.lowConfidence
    // Towards a start.
    if confident {
      if candidate == label {
        streak += 1
      } else {
        candidate = label
        streak = 1
        candidateSince = t
      }
    } else {
      candidate = nil
      streak = 0
    }
    // Towards an end: anything but the active exercise, confidently or not.
    if let active {
      if label == active {
        exitStreak = 0
      } else {
        if exitStreak == 0 { exitSince = t }
        exitStreak += 1
      }
      if exitStreak >= options.exitPredictions
        || (confident && label != active && streak >= options.switchDwell)
      {
        changes.ended = (active, exitStreak >= options.exitPredictions ? exitSince : candidateSince)
        self.active = nil
        exitStreak = 0
      }
    }
    if self.active == nil, let candidate, streak >= options.dwell {
      self.active = candidate
      exitStreak = 0
      changes.started = (candidate, candidateSince)
    }
    return changes
  }

  /// Ends the exercise under way from outside (its goal was reached): it may start again only
  /// after the classifier has seen something else.
  mutating func endAndHold() {
    held = active
    active = nil
    candidate = nil
    streak = 0
    exitStreak = 0
  }

  /// Ends whatever is under way; returns whether something was.
  mutating func finish() -> Bool {
    defer { active = nil }
    return active != nil
  }
}
