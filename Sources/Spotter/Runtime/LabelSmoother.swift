import RepCounting

/// Turns a stream of predictions into exercise starts and ends, with enter and exit hysteresis
/// and a dwell, so the exercise never flickers; and asks the set under way's engine before
/// ending it (`SetMovement`), as a person counting would: they keep counting while the movement
/// goes on, whatever a glance suggests, and change their mind only when the movement changes.
///
/// - The classifier's doubts (`exitPredictions` in a row of anything else) end the set only
///   once its movement has stopped, or when nobody is in view for as long (a movement nobody
///   sees does not go on).
/// - Another exercise takes over after `switchDwell` confident predictions in a row in which
///   the engine under way counted no rep and had none under way, or in which the other
///   exercise's own engine sees its movement in the recent frames (the caller's
///   `secondOpinion`: a curl's engine counts the curls a push-up's takes for a rep or two).
/// - A set whose movement has stopped ends though its label stays (`exitPredictions` in a row
///   with nothing moving, once its reps have a pace); its label is then held until the
///   classifier sees something else, or its engine counts again.
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
  /// Predictions in a row with too little of a person in view to classify.
  private var absentStreak = 0
  /// Where the classifier first doubted the set for `exitPredictions` in a row while its
  /// movement kept it, if no rep came since: where the set ends, whatever ends it later.
  private var heldDoubtSince: Double?
  /// Predictions in a row with the set under way's movement stopped, since `stillSince`.
  private var stillStreak = 0
  private var stillSince = 0.0
  /// Predictions in a row of the confident candidate since the engine under way last counted a
  /// rep.
  private var quietStreak = 0
  private var quietSince = 0.0
  /// Predictions until the second opinion may be asked again, after it said no (it replays the
  /// kept frames: once per `switchDwell` predictions is enough).
  private var secondOpinionRest = 0
  /// A label that may not start again until a prediction of something else (a set ended by its
  /// goal while the person finishes the movement).
  private(set) var held: Int?
  /// A look-alike the engines settled against at the start of the set under way: its
  /// predictions count as the set's own until the set ends.
  private var settledAgainst: Int?

  init(options: SessionOptions, otherLabel: Int?) {
    self.options = options
    self.otherLabel = otherLabel
  }

  /// What one prediction changed: the exercise under way ended, another started, or both (a
  /// switch: the end first).
  struct Changes {
    var ended: (label: Int, at: Double)?
    /// The set ended because its movement stopped while the classifier kept its label: the
    /// label is held until the classifier sees something else, or its engine counts again.
    var endedStill = false
    var started: (label: Int, at: Double)?
  }

  /// Takes one prediction (nil: too little of a person to classify) at time `t`, with what the
  /// engine of the set under way sees of its movement then. `secondOpinion(label)`: whether
  /// `label`'s engine sees its movement in the recent frames (asked only when a switch to it
  /// waits on the engine under way).
  mutating func observe(
    label: Int?, confidence: Float, t: Double, movement: SetMovement = .still,
    secondOpinion: (Int) -> Bool = { _ in false }
  ) -> Changes {
    var changes = Changes()
    let label = active != nil && label != nil && label == settledAgainst ? active : label
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
    // Towards an end: anything but the active exercise, confidently or not, once its movement
    // has stopped; or its movement stopped for good.
    if let active {
      if label == active {
        exitStreak = 0
      } else {
        if exitStreak == 0 { exitSince = t }
        exitStreak += 1
      }
      absentStreak = label == nil ? absentStreak + 1 : 0
      if movement.goesOn || !movement.paced {
        stillStreak = 0
      } else {
        if stillStreak == 0 { stillSince = t }
        stillStreak += 1
      }
      if confident && label != active {
        if streak == 1 || movement.lastRep >= quietSince || movement.repUnderWay {
          quietStreak = 1
          quietSince = t
        } else {
          quietStreak += 1
        }
      } else {
        quietStreak = 0
      }
      if let since = heldDoubtSince, movement.lastRep > since { heldDoubtSince = nil }
      if exitStreak >= options.exitPredictions && movement.goesOn && heldDoubtSince == nil {
        heldDoubtSince = max(exitSince, movement.lastRep)
      }
      let doubted =
        exitStreak >= options.exitPredictions
        && (!movement.goesOn || absentStreak >= options.exitPredictions)
      if secondOpinionRest > 0 { secondOpinionRest -= 1 }
      var switched = quietStreak >= options.switchDwell
      if !switched && confident && label != active && streak >= options.switchDwell
        && secondOpinionRest == 0
      {
        switched = secondOpinion(label!)
        if !switched { secondOpinionRest = options.switchDwell }
      }
      let stopped = stillStreak >= options.exitPredictions
      if doubted || switched || stopped {
        let at = switched ? candidateSince : doubted ? exitSince : stillSince
        changes.ended = (active, min(at, heldDoubtSince ?? at))
        if stopped && !doubted && !switched {
          held = active
          changes.endedStill = true
        }
        self.active = nil
        clearSetState()
      }
    }
    if self.active == nil, let candidate, streak >= options.dwell {
      self.active = candidate
      clearSetState()
      changes.started = (candidate, candidateSince)
    }
    return changes
  }

  /// Forgets what was counted towards ending the set under way: a set that ends or starts
  /// begins none of it.
  private mutating func clearSetState() {
    exitStreak = 0
    absentStreak = 0
    stillStreak = 0
    quietStreak = 0
    secondOpinionRest = 0
    heldDoubtSince = nil
    settledAgainst = nil
  }

  /// The set of `label` goes on after all (its engine counted a rep after the smoother ended
  /// it), or starts in place of a look-alike (`settledAgainst`) that the engines settled
  /// against: it is under way.
  mutating func resume(_ label: Int, settledAgainst lookAlike: Int? = nil) {
    active = label
    held = nil
    candidate = nil
    streak = 0
    clearSetState()
    settledAgainst = lookAlike
  }

  /// Ends the set of `label` (the one under way if nil) from outside (its goal was reached): it
  /// may start again only after the classifier has seen something else.
  mutating func endAndHold(_ label: Int? = nil) {
    held = label ?? active
    active = nil
    candidate = nil
    streak = 0
    clearSetState()
  }

  /// Whether the classifier doubts the set under way now (`exitPredictions` in a row of
  /// something else) while its movement keeps it.
  var doubtsSetUnderWay: Bool {
    active != nil && heldDoubtSince != nil && exitStreak >= options.exitPredictions
  }

  /// Since when the classifier has doubted the exercise under way (nil while it agrees).
  var doubtedSince: Double? {
    active != nil && exitStreak > 0 ? min(exitSince, heldDoubtSince ?? exitSince) : heldDoubtSince
  }

  /// Ends whatever is under way; returns whether something was.
  mutating func finish() -> Bool {
    defer { active = nil }
    return active != nil
  }
}
