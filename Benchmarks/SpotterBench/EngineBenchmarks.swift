import MotionSynth
import Poses
import RepCounting

/// The rep engines alone, no network: what counting costs per frame, the figure the engines'
/// changes are held to (issue #37: within 1.5 times of what it was).
enum EngineBenchmarks {
  /// Every built-in definition's `RepCounter` over one synthetic recording of all twelve
  /// exercises (six reps each, one person, a side-on camera), resampled to 30 frames a second
  /// as the runtime feeds them. A new counter per definition each iteration, as a new set
  /// gets; a unit is one frame through one counter.
  static func engines() throws -> Measurement {
    let plan = WorkoutPlan(
      items: ExerciseMotion.allCases.map { .exercise($0, reps: 6, partialReps: 0) })
    var options = RecordingOptions()
    options.camera = .side
    options.fps = 30
    let recording = Recorder.record(plan, options: options, seed: 1)
    var resampler = Resampler()
    var ticks: [(t: Double, pose: Pose)] = []
    for frame in recording.frames {
      resampler.push(t: frame.t, pose: frame.pose) { ticks.append((t: $1, pose: $0)) }
    }
    let definitions = try ExerciseCatalogue.load().definitions
    func countAll() -> Int {
      var reps = 0
      for definition in definitions {
        let counter = RepCounter(definition)
        for tick in ticks { counter.process(tick.pose, t: tick.t) { _ in } }
        reps += counter.count
      }
      return reps
    }
    // Checked before it is timed: engines that counted nothing would time an idle path. (How
    // well they count is `make eval`'s to say, not a benchmark's.)
    precondition(countAll() >= 6 * ExerciseMotion.allCases.count, "the engines count no reps")
    return measure(
      "rep engines alone: a frame through one counter",
      units: Double(ticks.count * definitions.count),
      unit: "frames", samples: 9, sampleSeconds: 0.5
    ) { Double(countAll()) }
  }
}
