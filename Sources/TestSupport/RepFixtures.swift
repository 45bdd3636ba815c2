import MotionSynth
import Poses
import RepCounting
import Spotter

/// Counts one exercise over recordings the way an app's session for a chosen exercise does
/// (`Runtime.makeSession(counting:)`): the runtime's own front end (person followed, scores
/// scaled, resampled to 30 ticks a second), then the exercise's engine.
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
    let runtime = Runtime(
      classifier: nil, catalogue: ExerciseCatalogue(definitions: [definition]))
    let session = runtime.makeSession(counting: definition)
    var outcome = Outcome(count: 0, reps: [], cues: [])
    func take(_ event: SpotterEvent) {
      switch event {
      case .rep(_, _, let rep, _): outcome.reps.append(rep)
      case .repRejected(_, _, let rejection): outcome.rejections.append(rejection)
      case .cue(_, _, let message): outcome.cues.append(message)
      case .exerciseEnded(_, _, let reps): outcome.count = reps
      default: break
      }
    }
    var frame = PeopleFrame()
    for (index, recorded) in recording.frames.enumerated()
    where recorded.t >= from && recorded.t <= to {
      frame.t = recorded.t
      frame.people.removeAll(keepingCapacity: true)
      let pose = transform(index, recorded.pose)
      if pose.hasPerson { frame.people.append(pose) }
      session.push(frame, emit: take)
    }
    session.finish(emit: take)
    return outcome
  }
}
