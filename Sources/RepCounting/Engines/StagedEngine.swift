import Poses

/// Counts reps as an ordered cycle of stages, like QuickPose's FitCount custom exercises.
///
/// Each stage is a set of joint-angle or orientation ranges (alternatives OR'd, requirements
/// within one AND'ed). The engine starts once the first stage holds, steps to the next stage
/// when that one has held for `hold_frames` frames, and counts a rep when the cycle comes back
/// to the first stage. A rep less than `cooldown_seconds` after the previous one is "too fast":
/// not counted, cued. A return to the first stage before the cycle is through is a partial rep.
/// With `smoothing` below 1, joint positions pass through an EMA first, so jitter on a hidden
/// joint's guess does not flick a stage on and off.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class StagedEngine: RepEngine {
  let definition: ExerciseDefinition
  @exclusivity(unchecked) private(set) var count = 0
  private let stages: [[[CompiledRequirement]]]
  private let holdFrames: [Int]
  private let cooldown: Double
  private let minConfidence: Float
  @exclusivity(unchecked) private var measure: SignalReader?
  @exclusivity(unchecked) private var rules: FormRules

  /// The stage reached last; nil until the first stage has held.
  @exclusivity(unchecked) private var current: Int?
  @exclusivity(unchecked) private var candidateFrames = 0
  @exclusivity(unchecked) private var candidate = -1
  @exclusivity(unchecked) private var leftFirstStage = 0.0
  @exclusivity(unchecked) private var middleReached = 0.0
  @exclusivity(unchecked) private var lastRep = -Double.infinity
  /// When the reps ended and how long they took, for the set's movement.
  @exclusivity(unchecked) private var pace = RepPace(
    memory: StagedEngine.paceMemory, longestPeriod: StagedEngine.longestPeriod)
  /// How long ago a rep still tells the person's pace, and the slowest pace of one set.
  static let paceMemory = 30.0
  static let longestPeriod = 8.0
  @exclusivity(unchecked) private var low = Double.infinity
  @exclusivity(unchecked) private var high = -Double.infinity
  private let alpha: Float
  @exclusivity(unchecked) private var smoothed = Pose()

  struct CompiledRequirement: Sendable {
    let references: [JointReference]
    let isAngle: Bool
    let low: Double
    let high: Double

    /// Whether the requirement holds; nil when a joint it needs is missing or unsure.
    func holds(_ pose: Pose, minConfidence: Float) -> Bool? {
      var points: (Joint, Joint, Joint) = (.missing, .missing, .missing)
      for (index, reference) in references.enumerated() {
        guard let point = reference.point(in: pose, side: nil, minConfidence: minConfidence) else {
          return nil
        }
        switch index {
        case 0: points.0 = point
        case 1: points.1 = point
        default: points.2 = point
        }
      }
      let value =
        isAngle
        ? SignalReader.angle(points.0, points.1, points.2)
        : SignalReader.orientation(points.0, points.1)
      // A range whose minimum is above its maximum wraps through 0°.
      return low <= high ? (value >= low && value <= high) : (value >= low || value <= high)
    }
  }

  /// - Precondition: the definition's engine is the staged engine.
  init(_ definition: ExerciseDefinition) {
    guard case .staged(let counting) = definition.counting else {
      preconditionFailure("\(definition.name) is not counted by stages")
    }
    self.definition = definition
    let stageList = counting.stages
    stages = stageList.map { stage in
      stage.any.map { requirements in
        requirements.map { requirement in
          let names = requirement.angle ?? requirement.orientation!
          return CompiledRequirement(
            references: names.map { JointReference(name: $0)! }, isAngle: requirement.angle != nil,
            low: requirement.range[0], high: requirement.range[1])
        }
      }
    }
    holdFrames = stageList.map { $0.holdFrames ?? 2 }
    cooldown = counting.cooldownSeconds ?? 0
    minConfidence = Float(definition.minConfidence)
    measure = counting.measure.map {
      SignalReader(spec: $0, references: ExerciseCatalogue.references(of: $0))
    }
    rules = FormRules(definition, direction: .down)
    alpha = Float(counting.smoothing ?? 1)
  }

  /// Stages read angles, which need no body size.
  @exclusivity(unchecked) var scaleIsPerFrame = false
  /// Stages have no count level: samples carry the measure, when the definition has one.
  @exclusivity(unchecked) var onSample: ((SignalSample) -> Void)?

  /// The measure's range over the cycle under way (0 without a measure).
  private var measuredRange: Double { high >= low ? high - low : 0 }

  func interrupt(at t: Double, because reason: Interruption, emit: (RepEvent) -> Void) {
    if let current, current > 0 {
      emit(
        .rejected(
          Rejection(
            reason: reason.rejection, start: leftFirstStage, end: t,
            rangeOfMotion: measuredRange, detail: reason == .outOfSight ? nil : reason.rawValue)))
    }
    current = nil
    candidate = -1
    candidateFrames = 0
  }

  /// Stages learn nothing from the reps: a new set starts afresh.
  func startSet() { reset() }

  func reset() {
    count = 0
    current = nil
    candidate = -1
    candidateFrames = 0
    lastRep = -.infinity
    pace.removeAll()
    smoothed = Pose()
  }

  /// The movement goes on within two periods of the reps' pace, or while a cycle is under way
  /// (past the first stage) for no longer than the person's reps take.
  func movement(at t: Double) -> SetMovement {
    let underWay = (current ?? 0) > 0 ? leftFirstStage : nil
    return pace.movement(at: t, rhythmPeriod: nil, underWaySince: underWay)
  }

  /// Each confident joint eased towards its new position; an unsure one keeps its confidence
  /// (so the stages see it as unsure) and restarts from where it is seen next.
  private func smooth(_ pose: Pose) -> Pose {
    guard alpha < 1 else { return pose }
    for index in pose.joints.indices {
      let joint = pose.joints[index]
      let previous = smoothed.joints[index]
      if joint.confidence >= minConfidence && previous.confidence >= minConfidence {
        smoothed.joints[index] = Joint(
          x: previous.x + alpha * (joint.x - previous.x),
          y: previous.y + alpha * (joint.y - previous.y),
          confidence: joint.confidence)
      } else {
        smoothed.joints[index] = joint
      }
    }
    return smoothed
  }

  /// Whether a stage holds: some alternative has no failed requirement and at least one that
  /// held. A requirement whose joints are hidden (the far leg, seen from the side) neither
  /// holds nor fails, so a stage is judged on what the camera sees.
  private func holds(_ stage: Int, _ pose: Pose) -> Bool {
    for alternative in stages[stage] {
      var seen = false
      var failed = false
      for requirement in alternative {
        switch requirement.holds(pose, minConfidence: minConfidence) {
        case true?: seen = true
        case false?: failed = true
        case nil: break
        }
      }
      if seen && !failed { return true }
    }
    return false
  }

  func process(_ raw: Pose, t: Double, bodySize: Float, emit: (RepEvent) -> Void) {
    let pose = smooth(raw)
    let value = measure?.value(pose, bodySize: bodySize, minConfidence: minConfidence)
    if let onSample, let value {
      onSample(
        SignalSample(
          t: t, signal: 0, value: value, top: value, countLevel: value, typicalRange: nil))
    }
    if let current, current > 0 {
      rules.observe(pose, main: value, bodySize: bodySize, minConfidence: minConfidence)
      if let value {
        low = min(low, value)
        high = max(high, value)
      }
    }
    guard let current else {
      if advance(to: 0, pose) { self.current = 0 }
      return
    }
    let next = (current + 1) % stages.count
    // Back at the first stage before the cycle is through: the cycle was not completed.
    if current > 0, next != 0, advance(to: 0, pose) {
      emit(
        .rejected(
          Rejection(
            reason: .tooSmall, start: leftFirstStage, end: t, rangeOfMotion: measuredRange,
            cue: definition.partial?.cue)))
      self.current = 0
      return
    }
    guard advance(to: next, pose) else { return }
    self.current = next
    if next == 1 {
      leftFirstStage = t
      middleReached = t
      low = .infinity
      high = -.infinity
      rules.beginRep()
    }
    if next == stages.count / 2 || (stages.count == 2 && next == 1) { middleReached = t }
    guard next == 0 else { return }
    let duration = t - leftFirstStage
    if t - lastRep < cooldown {
      emit(
        .rejected(
          Rejection(
            reason: .tooFast, start: leftFirstStage, end: t, rangeOfMotion: measuredRange,
            cue: definition.tooFastCue)))
      return
    }
    lastRep = t
    pace.add(end: t, duration: duration)
    count += 1
    emit(
      .rep(
        Rep(
          count: count, start: leftFirstStage, end: t, rangeOfMotion: measuredRange,
          timeDown: middleReached - leftFirstStage, timeUp: t - middleReached,
          cue: rules.cue(duration: duration, start: nil, extreme: nil, range: nil))))
  }

  /// Whether `stage` has now held for its hold frames (counting this frame).
  private func advance(to stage: Int, _ pose: Pose) -> Bool {
    guard holds(stage, pose) else {
      if candidate == stage { candidateFrames = 0 }
      return false
    }
    if candidate != stage {
      candidate = stage
      candidateFrames = 0
    }
    candidateFrames += 1
    guard candidateFrames >= holdFrames[stage] else { return false }
    candidate = -1
    candidateFrames = 0
    return true
  }
}
