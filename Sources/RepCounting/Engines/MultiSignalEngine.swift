import Poses

/// Counts one exercise with several signals at once: the definition's own and its `alternatives`
/// (Sources/RepCounting/README.md), for movements that no one signal sees from every camera.
///
/// A knee raised towards a camera in front barely changes its height in the picture, and the
/// thigh's lean, which shows the raise plainly from the side or at an angle, does not change from
/// the front at all. Each signal counts on its own engine; the exercise's count is the highest of
/// theirs, so the signal that sees the movement sets the count, and a rep both see counts once.
/// Measured on synthetic knee raises, the highest count came closer than the union of reps matched
/// by time (a phantom from the blind signal fills a gap of the other).
///
/// A rep is reported when it raises the count, with the measurements (and units) of the signal that
/// counted it. Cues that belong to no rep (partial, too fast) come only from the signal that leads,
/// the one that last raised the count (the definition's own before any rep), so the blind signal's
/// "that one did not count" does not contradict the other's rep.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class MultiSignalEngine: RepEngine {
  let definition: ExerciseDefinition
  @exclusivity(unchecked) private(set) var count = 0
  private let engines: [SignalEngine]
  @exclusivity(unchecked) private var leader = 0  // the engine that last raised the count

  init(_ definition: ExerciseDefinition) {
    self.definition = definition
    engines = [SignalEngine(definition)] + definition.alternativeDefinitions.map(SignalEngine.init)
    for (index, engine) in engines.enumerated() { engine.signalIndex = index }
  }

  func process(_ pose: Pose, t: Double, bodySize: Float, emit: (RepEvent) -> Void) {
    for index in engines.indices {
      engines[index].process(pose, t: t, bodySize: bodySize) { forward($0, from: index, emit) }
    }
  }

  /// An engine's event: a rep when it raises the count; a cue or refusal from the leader only.
  private func forward(_ event: RepEvent, from index: Int, _ emit: (RepEvent) -> Void) {
    switch event {
    case .rep(var rep):
      guard engines[index].count > count else { return }
      count += 1
      leader = index
      rep.count = count
      emit(.rep(rep))
    case .cue, .rejected:
      if index == leader { emit(event) }
    }
  }

  @exclusivity(unchecked) var onSample: ((SignalSample) -> Void)? {
    didSet { for engine in engines { engine.onSample = onSample } }
  }

  @exclusivity(unchecked) var scaleIsPerFrame = false {
    didSet { for engine in engines { engine.scaleIsPerFrame = scaleIsPerFrame } }
  }

  func reset() { restart { $0.reset() } }

  func startSet() { restart { $0.startSet() } }

  /// Each signal's engine restarted by `how`, and no reps of the whole.
  private func restart(_ how: (SignalEngine) -> Void) {
    for engine in engines { how(engine) }
    count = 0
    leader = 0
  }

  /// The movement goes on while any signal sees it; the last rep and the pace are the
  /// leader's, the signal that sets the count.
  func movement(at t: Double) -> SetMovement {
    var movement = engines[leader].movement(at: t)
    for engine in engines where !movement.goesOn {
      movement.goesOn = engine.movement(at: t).goesOn
    }
    return movement
  }

  func interrupt(at t: Double, because reason: Interruption, emit: (RepEvent) -> Void) {
    for index in engines.indices {
      engines[index].interrupt(at: t, because: reason) { forward($0, from: index, emit) }
    }
  }
}
