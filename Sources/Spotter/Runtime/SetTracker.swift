import Poses
import RepCounting

/// A person's sets: which exercise is under way and its engine, the start (with backfill from
/// the kept ticks), live reps, goals, the end, and the totals. The classifier's changes come
/// in through `start` and `classifierEnded`; a chosen exercise starts at the first tick. Each
/// call says whether a goal was reached, so the caller can hold the classifier's smoother:
/// nothing here calls back into the session.
///
/// A set with reps that the classifier ends is not over at once: its end (at its last rep) is
/// told only once `mergeWindow` has passed with no rep and no start of the same exercise. A rep
/// meanwhile (the engine under way keeps watching), or the classifier starting the exercise
/// again, and the set goes on, its count too: a slow set read as something else at its top, or
/// a set broken by a glance of the classifier, stays one set. Another exercise starting tells
/// the end first.
struct SetTracker: SetView {
  /// The definition of each label an engine can count.
  private let definitions: [String: ExerciseDefinition]
  /// An exercise's engine, made the first time its set starts (`engine(for:)`): about 31 KB
  /// each, and a session meets few of the exercises it could (README, "Serving many streams").
  /// An engine is fed only while its set is under way, watched or backfilled, so one made
  /// at its first start is the engine one made with the session would be then: the counts
  /// are the same.
  private(set) var counters: [String: RepCounter] = [:]
  /// Hears each engine's signal and levels, with its label (`PersonSession.onSignalSample`).
  var onSignalSample: ((String, SignalSample) -> Void)? {
    didSet {
      for (label, counter) in counters { hook(counter, label) }
    }
  }
  /// The exercise chosen for the session (its definition's name), if not the classifier's.
  private let chosen: String?
  /// A chosen exercise's set ended at its goal: nothing after it is counted.
  private var chosenSetOver = false
  private let goals: [Goal]
  /// Half the classifier's window, in seconds: how far a prediction lags the change it shows.
  private let halfWindow: Double
  /// The last `historySeconds` of ticks, for backfill (none for a chosen exercise).
  private var history: FixedRing<(t: Double, pose: Pose)>
  /// The exercise under way: its label, engine and when it began.
  private(set) var activeLabel: String?
  private var counter: RepCounter?
  private var activeSince = 0.0
  /// Per exercise, the last tick its engine was given, so backfill never counts a stretch
  /// twice for the same exercise (a stretch another exercise's engine saw, when the classifier
  /// was wrong at first, is replayed).
  private var countedUntil: [String: Double] = [:]
  /// The last tick the engine under way was given, written to `countedUntil` when its
  /// exercise ends: a plain store each tick instead of a dictionary's hashing of the label.
  private var activeCountedUntil: Double?
  /// When the last exercise ended, and the end of the last rep counted.
  private var lastEnd = -Double.infinity
  private var lastRepEnd = -Double.infinity
  /// The set under way was ended by the classifier: it ended at `at`, the same exercise
  /// starting by `mergeUntil` is the same set, and its end is told once the stream reaches
  /// `tellAt` (when a restart by then would have been recognised), unless it goes on.
  private var pendingEnd:
    (at: Double, mergeUntil: Double, tellAt: Double, watch: Bool, repDuration: Double?)?
  /// What the engine under way reported while the set's end waited: told if a rep like the
  /// set's shows that it goes on, forgotten if the end is told.
  private var provisional: [RepEvent] = []
  /// The engine under way counted a rep like the set's while its end waited.
  private var resumedNow = false
  /// While the classifier doubts the set under way though its movement keeps it: the set's
  /// typical rep duration when the doubt began (infinity before any rep: nothing is like it).
  private var doubtedRepDuration: Double?
  /// Reps told for the set under way: its reps are numbered by the set, so a rep that came
  /// while its end waited and was forgotten leaves no gap.
  private var setReps = 0
  /// A set that ended because its movement stopped while the classifier kept its label: its
  /// engine goes on watching (counting nothing), and the set starts again at its first rep.
  private var watched: (label: String, counter: RepCounter, confidence: Float)?
  /// The confidence the set under way started with.
  private var activeConfidence: Float = 0
  /// How long the classifier takes to recognise a restart after it began: half its window,
  /// then `dwell` predictions.
  private let recognitionLag: Double
  /// Engines for the second opinion (`repsSeen(by:)`), made the first time an exercise is
  /// tried.
  private var trials: [String: RepCounter] = [:]
  /// What backfill counted, held until the start is reported.
  private var backfill: [RepEvent] = []
  /// Someone else has taken the stream over since the engines learned from the person they
  /// knew.
  private var enginesKnowAnotherPerson = false
  private var positionsAreLost = false
  private(set) var totals = SessionTotals()
  /// The last tick's time.
  private(set) var lastTime = 0.0

  /// Sets of the classifier's `labels`, each counted by its definition in `catalogue`.
  init(
    labels: [String], options: SessionOptions, catalogue: ExerciseCatalogue, halfWindow: Double,
    tickRate: Double
  ) {
    chosen = nil
    goals = options.goals
    self.halfWindow = halfWindow
    recognitionLag = halfWindow + Double(options.dwell * options.stride) / tickRate
    history = FixedRing(
      capacity: max(1, Int(options.historySeconds * tickRate)), repeating: (0, .nobody))
    backfill.reserveCapacity(16)
    provisional.reserveCapacity(32)
    countedUntil.reserveCapacity(labels.count)
    var definitions: [String: ExerciseDefinition] = [:]
    for label in labels {
      if let definition = catalogue.definition(forLabel: label) { definitions[label] = definition }
    }
    self.definitions = definitions
    counters.reserveCapacity(definitions.count)
  }

  /// Sets of one chosen exercise, counted by `definition` from the first tick.
  init(counting definition: ExerciseDefinition, options: SessionOptions) {
    chosen = definition.name
    goals = options.goals
    halfWindow = 0
    recognitionLag = 0
    history = FixedRing(capacity: 1, repeating: (0, .nobody))
    definitions = [definition.name: definition]
    _ = engine(for: definition.name)
    totals.include(definition.name)  // the summary names it even if nobody was ever seen
  }

  /// `label`'s engine, made the first time it is asked for; nil for a label no definition
  /// counts (`other`).
  private mutating func engine(for label: String) -> RepCounter? {
    if let counter = counters[label] { return counter }
    guard let definition = definitions[label] else { return nil }
    let counter = RepCounter(definition)
    counter.positionsAreLost = positionsAreLost
    hook(counter, label)
    counters[label] = counter
    if let joint = definition.rangeJoint { totals.measureRanges(of: label, joint: joint) }
    return counter
  }

  private func hook(_ counter: RepCounter, _ label: String) {
    counter.engine.onSample = onSignalSample.map { hook in { hook(label, $0) } }
  }

  /// Reps of the exercise under way.
  var currentReps: Int { setReps }

  /// A set the classifier ended is the same set if its exercise starts again this long after:
  /// two of its typical reps, at most `longestMerge`.
  static func mergeWindow(_ movement: SetMovement) -> Double {
    min(2 * (movement.repDuration ?? 0), longestMerge)
  }
  static let longestMerge = 10.0

  /// What the engine under way sees of its movement at `t`, with this set's last rep (nothing
  /// moving without one, or while the set's end waits to be told).
  func movement(at t: Double) -> SetMovement {
    guard let counter, pendingEnd == nil else { return .still }
    var movement = counter.engine.movement(at: t)
    if movement.lastRep > lastRepEnd && !movement.repUnderWay {
      // Reps the engine counted and the set did not tell (unlike its own) are no sign of it.
      movement.goesOn = movement.period.map { t - lastRepEnd <= 2 * $0 } ?? false
    }
    movement.lastRep = lastRepEnd
    return movement
  }

  /// A stopped set is watched only while the classifier keeps its label (`held`): once it
  /// sees something else, the exercise starts as any other.
  private mutating func watchOnly(_ held: String?) {
    if let watched, watched.label != held { self.watched = nil }
  }

  /// The watched engine takes a tick; at a rep its exercise starts again, with its backfill
  /// from where that rep began.
  private mutating func watch(
    _ watched: (label: String, counter: RepCounter, confidence: Float), _ pose: Pose, t: Double,
    emit: (SpotterEvent) -> Void
  ) -> TickOutcome {
    var repStart: Double?
    watched.counter.process(pose, t: t) { event in
      if case .rep(let rep) = event { repStart = rep.start }
    }
    guard let repStart else { return .nothing }
    self.watched = nil
    let goal = start(
      watched.label, at: t, confidence: watched.confidence, reachingBackTo: repStart, emit: emit)
    return goal ? .goalReached(watched.label) : .resumed(watched.label)
  }

  /// The reps `label`'s engine, not the one under way, counts when it replays the kept ticks
  /// (the last `historySeconds`): how much of its movement it sees there. The classifier's
  /// second opinion, asked when it hesitates between look-alikes at a start, or predicts
  /// another exercise confidently while the engine under way still counts. The replay runs on
  /// an engine of its own (`trials`), started from nothing: it neither learns from the
  /// person's engines nor teaches them, so what a session counts never depends on what it
  /// tried (a session resumed from a checkpoint counts as the one it continues).
  mutating func repsSeen(by label: String) -> Int {
    guard let definition = definitions[label] else { return 0 }
    let trial = trials[label] ?? RepCounter(definition)
    trials[label] = trial
    trial.reset()
    trial.positionsAreLost = positionsAreLost
    for age in stride(from: history.count - 1, through: 0, by: -1) {
      let (time, pose) = history[age: age]
      trial.process(pose, t: time) { _ in }
    }
    return trial.count
  }

  /// What a tick changed beyond its events.
  enum TickOutcome: Equatable {
    case nothing
    /// A goal was reached: the set of this exercise ended.
    case goalReached(String)
    /// The set the classifier had ended counted a rep: it goes on (or, after its end was told,
    /// starts again).
    case resumed(String)
  }

  /// The totals so far, with the set under way.
  var summary: [ExerciseTotal] {
    totals.summary(
      active: activeLabel.map { ($0, setReps, lastTime - activeSince) })
  }

  /// Counts sets finished in an earlier session in the totals.
  mutating func carry(_ sets: [SetRecord]) { totals.carry(sets) }

  /// Someone else took the stream over: the engines forget the person they knew at the next
  /// start.
  mutating func takenOver() { enginesKnowAnotherPerson = true }

  /// The frames are normalised to their own box: the engines are told, once.
  mutating func losePositions() {
    guard !positionsAreLost else { return }
    positionsAreLost = true
    for counter in counters.values { counter.positionsAreLost = true }
  }

  /// One live tick: kept for backfill, counted by the engine under way (a chosen exercise's
  /// starts with the first); a set whose end waits goes on at a rep, or is told ended once its
  /// window has passed.
  mutating func tick(_ pose: Pose, t: Double, emit: (SpotterEvent) -> Void) -> TickOutcome {
    lastTime = t
    if let chosen, counter == nil, !chosenSetOver {
      _ = start(chosen, at: t, confidence: 1, emit: emit)
    }
    if chosen == nil { history.append((t, pose)) }
    if let watched { return watch(watched, pose, t: t, emit: emit) }
    guard let label = activeLabel, let counter else { return .nothing }
    counter.process(pose, t: t) { engineEvent($0, of: label, emit: emit) }
    if chosen == nil { activeCountedUntil = t }
    if checkGoal(at: t, emit: emit) { return .goalReached(label) }
    if resumedNow {
      resumedNow = false
      return .resumed(label)
    }
    if let pending = pendingEnd, t >= pending.tellAt { tellEnd(at: pending.at, emit: emit) }
    return .nothing
  }

  /// An event of the engine under way: told at once; or, while the classifier doubts the set
  /// or its end waits, held until a rep like the set's (within half to twice its reps'
  /// duration) shows that the set goes on, and then told, but for reps unlike the set's (an
  /// arm lowered after jumping jacks, a bench press's arms taken for a squat's hips).
  private mutating func engineEvent(
    _ event: RepEvent, of label: String, emit: (SpotterEvent) -> Void
  ) {
    guard let typical = doubtedRepDuration ?? pendingEnd.map({ $0.repDuration ?? .infinity })
    else {
      return repEvent(for: label, event, backfilled: false, emit: emit)
    }
    provisional.append(event)
    guard case .rep(let rep) = event, Self.isLike(rep, typical) else { return }
    if pendingEnd != nil {
      pendingEnd = nil
      resumedNow = true
    }
    tellProvisional(of: label, keepingRepsLike: typical, emit: emit)
  }

  /// Tells the held events, but for reps unlike those of `typical` duration (all with nil).
  private mutating func tellProvisional(
    of label: String, keepingRepsLike typical: Double?, emit: (SpotterEvent) -> Void
  ) {
    for held in provisional {
      if case .rep(let earlier) = held, !Self.isLike(earlier, typical) { continue }
      repEvent(for: label, held, backfilled: false, emit: emit)
    }
    provisional.removeAll(keepingCapacity: true)
  }

  /// What the classifier says after a prediction: whether it doubts the set under way while
  /// its movement keeps it (then the engine's reps must be like the set's to be told), and
  /// which label it holds (`watchOnly`). When it agrees again, what was held is told.
  mutating func hear(doubts: Bool, held: String?, emit: (SpotterEvent) -> Void) {
    watchOnly(held)
    guard let label = activeLabel, let counter else { return }
    if doubts && doubtedRepDuration == nil {
      doubtedRepDuration = counter.engine.movement(at: lastTime).repDuration ?? .infinity
    } else if !doubts && doubtedRepDuration != nil {
      doubtedRepDuration = nil
      if pendingEnd == nil { tellProvisional(of: label, keepingRepsLike: nil, emit: emit) }
    }
  }

  /// Whether a rep is like a set's whose reps take `duration`.
  private static func isLike(_ rep: Rep, _ duration: Double?) -> Bool {
    guard let duration else { return true }
    return (0.5 * duration...2 * duration).contains(rep.duration)
  }

  /// `label` starts at `t`, as the classifier saw it with `confidence`: its engine replays the
  /// kept ticks first (backfill). Returns whether a backfilled rep reached a goal.
  mutating func start(
    _ label: String, at t: Double, confidence: Float, reachingBackTo since: Double? = nil,
    emit: (SpotterEvent) -> Void
  ) -> Bool {
    if let pending = pendingEnd {
      // The same exercise again soon enough (it began about half a window before the
      // classifier saw it): the same set goes on, with what its engine saw meanwhile.
      if label == activeLabel && t - halfWindow <= pending.mergeUntil {
        pendingEnd = nil
        tellProvisional(of: label, keepingRepsLike: pending.repDuration ?? .infinity, emit: emit)
        return false
      }
      tellEnd(at: pending.at, emit: emit)
    }
    watched = nil
    activeLabel = label
    activeSince = t
    activeConfidence = confidence
    totals.include(label)
    guard let counter = engine(for: label) else {  // `other`, or no definition: nothing to count
      emit(.exerciseStarted(t: t, exercise: label, confidence: Double(confidence)))
      return false
    }
    // The person's earlier sets of this exercise taught the engine how they move; after someone
    // else took the stream over, no engine knows the person followed now.
    if enginesKnowAnotherPerson {
      enginesKnowAnotherPerson = false
      for known in counters.values { known.reset() }
    }
    counter.startSet()
    self.counter = counter
    // Backfill: the engine replays the buffered history first, oldest tick first, from the
    // oldest frame the first confident window saw (earlier frames are the activity before),
    // but not ticks an engine has already seen (after a switch back, the reps of the earlier
    // stretch were counted there), nor those of the set before (up to its end).
    backfill.removeAll(keepingCapacity: true)
    setReps = 0
    lastRepEnd = -.infinity
    let reach = since ?? (t - 2 * halfWindow)
    for age in stride(from: history.count - 1, through: 0, by: -1) {
      let (time, pose) = history[age: age]
      guard time > countedUntil[label, default: -.infinity], time >= reach, time > lastEnd else {
        continue
      }
      counter.process(pose, t: time) { backfill.append($0) }
      activeCountedUntil = time
    }
    // The first confident window saw the set in its newer half, so the set began about half a
    // window before; or earlier, with the first rep backfill found.
    activeSince = max(t - halfWindow, lastEnd)
    for case .rep(let rep) in backfill {
      activeSince = max(min(activeSince, rep.start), lastEnd)
      break
    }
    emit(.exerciseStarted(t: activeSince, exercise: label, confidence: Double(confidence)))
    for index in backfill.indices {
      repEvent(for: label, backfill[index], backfilled: true, emit: emit)
    }
    return checkGoal(at: max(t, lastRepEnd), emit: emit)  // a backfilled rep may have reached it
  }

  /// The stream ends: the engine under way closes its last rep, and the set ends: where the
  /// classifier ended it, or where it began to doubt it (`doubtedSince`, while the movement
  /// kept it), else with the stream.
  mutating func finish(doubtedSince: Double?, emit: (SpotterEvent) -> Void) {
    watched = nil
    guard let label = activeLabel, let counter else {
      end(at: lastTime, byClassifier: false, emit: emit)
      return
    }
    counter.finish(at: lastTime) { engineEvent($0, of: label, emit: emit) }
    resumedNow = false
    if checkGoal(at: lastTime, emit: emit) { return }  // the last rep may have reached it
    if pendingEnd == nil, let doubtedSince {
      classifierEnded(at: doubtedSince, watch: false, emit: emit)
    }
    if let pending = pendingEnd { return tellEnd(at: pending.at, emit: emit) }
    end(at: lastTime, byClassifier: false, emit: emit)
  }

  /// The classifier ended the set under way at `t` (where it first saw something else): a set
  /// with reps is told ended only once `mergeWindow` has passed from now with no restart of its
  /// exercise and no rep; one without reps ends now. It ended half a window before the
  /// classifier saw it, but not before its last rep, nor after the two periods of the set's
  /// pace that its movement was kept for (the classifier may have doubted long after the person
  /// stopped, while the movement went on). `watch`: its movement stopped while the classifier
  /// kept its label (`watched`); then it ended at its last rep.
  mutating func classifierEnded(at t: Double, watch: Bool, emit: (SpotterEvent) -> Void) {
    guard let counter, setReps > 0 else {
      let stopped = activeLabel.flatMap { label in counter.map { (label, $0, activeConfidence) } }
      end(at: t, byClassifier: true, emit: emit)
      if watch { watched = stopped }
      return
    }
    let movement = counter.engine.movement(at: lastTime)
    let kept = lastRepEnd + 2 * (movement.period ?? 0)
    let mergeUntil = lastTime + Self.mergeWindow(movement)
    pendingEnd = (
      watch ? lastRepEnd : max(lastRepEnd, min(t - halfWindow, kept)), mergeUntil,
      mergeUntil + recognitionLag, watch, movement.repDuration
    )
  }

  /// Tells the end of a set the classifier ended. The ticks its engine watched after its last
  /// rep are left for the backfill of a set of the same exercise.
  private mutating func tellEnd(at t: Double, emit: (SpotterEvent) -> Void) {
    let watch = pendingEnd?.watch ?? false
    pendingEnd = nil
    provisional.removeAll(keepingCapacity: true)
    activeCountedUntil = activeCountedUntil.map { min($0, t) }
    let stopped = activeLabel.flatMap { label in counter.map { (label, $0, activeConfidence) } }
    end(at: t, byClassifier: false, emit: emit)
    if watch { watched = stopped }
  }

  /// Ends the set under way when it reaches its goal (reps, backfilled ones too, or time); the
  /// exercise may start again once the classifier has seen something else.
  private mutating func checkGoal(at t: Double, emit: (SpotterEvent) -> Void) -> Bool {
    guard let label = activeLabel, let counter, !goals.isEmpty else { return false }
    for goal in goals where goal.applies(to: label) {
      guard goal.isReached(reps: setReps, seconds: t - activeSince) else { continue }
      emit(.goalReached(t: t, exercise: label, goal: goal.description))
      totals.goalReached(label)
      end(at: t, byClassifier: false, emit: emit)
      if chosen != nil { chosenSetOver = true }
      return true
    }
    return false
  }

  /// Ends the exercise under way at `t`: the end of the stream, or where the classifier first
  /// saw something else. Then its window had the set in its older half, so the set ended about
  /// half a window before; but not before the last rep was done.
  mutating func end(at t: Double, byClassifier: Bool, emit: (SpotterEvent) -> Void) {
    pendingEnd = nil
    resumedNow = false
    doubtedRepDuration = nil
    provisional.removeAll(keepingCapacity: true)
    guard let label = activeLabel else { return }
    if let counted = activeCountedUntil { countedUntil[label] = counted }
    activeCountedUntil = nil
    // Never before the set's last rep ended: its frames are this set's, and the next set's
    // backfill starts after them (one movement is never counted by two exercises).
    let t = max(byClassifier ? min(t, max(t - halfWindow, lastRepEnd, activeSince)) : t, lastRepEnd)
    lastEnd = t
    let reps = setReps
    emit(.exerciseEnded(t: t, exercise: label, reps: reps))
    totals.ended(label, reps: reps, seconds: t - activeSince)
    activeLabel = nil
    counter = nil
  }

  private mutating func repEvent(
    for label: String, _ event: RepEvent, backfilled: Bool, emit: (SpotterEvent) -> Void
  ) {
    var event = event
    if case .rep(var rep) = event {
      setReps += 1
      rep.count = setReps
      event = .rep(rep)
      lastRepEnd = max(lastRepEnd, rep.end)
      totals.rep(of: label, angles: rep.angles)
    }
    SpotterEvent.events(of: event, exercise: label, backfilled: backfilled, emit: emit)
  }
}
