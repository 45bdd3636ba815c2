import MotionSynth
import Poses
import RepCounting

/// Runs a rep counter over recordings the way the runtime feeds it: resampled to 30 fps.
public enum RepFixtures {
  public struct Outcome {
    public var count: Int
    public var reps: [Rep]
    public var cues: [String]
    public var rejections: [Rejection] = []
  }

  /// Counts `definition` over the frames of `recording` between `start` and `end` (by default
  /// the first segment labelled with the definition's label: the set, as eval hands it over).
  public static func count(
    _ definition: ExerciseDefinition, in recording: Recording, from start: Double? = nil,
    to end: Double? = nil,
    transform: (Int, Pose) -> Pose = { $1 }
  ) -> Outcome {
    let set = recording.segments.first { $0.label == definition.label }
    let (from, to) = (start ?? set?.start ?? 0, end ?? set?.end ?? .infinity)
    let counter = RepCounter(definition)
    var resampler = Resampler()
    var outcome = Outcome(count: 0, reps: [], cues: [])
    func take(_ event: RepEvent) {
      switch event {
      case .rep(let rep):
        outcome.reps.append(rep)
        if let cue = rep.cue { outcome.cues.append(cue) }
      case .cue(let message, _): outcome.cues.append(message)
      case .rejected(let rejection):
        outcome.rejections.append(rejection)
        if let cue = rejection.cue { outcome.cues.append(cue) }
      }
    }
    var lastTick: Double?
    for (index, frame) in recording.frames.enumerated() where frame.t >= from && frame.t <= to {
      resampler.push(t: frame.t, pose: transform(index, frame.pose)) { pose, t in
        counter.process(pose, t: t, emit: take)
        lastTick = t
      }
    }
    if let lastTick { counter.finish(at: lastTick, emit: take) }
    outcome.count = counter.count
    return outcome
  }
}
