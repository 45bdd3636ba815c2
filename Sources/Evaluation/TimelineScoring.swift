import Foundation
import Poses
import Spotter

/// Whole annotated recordings run through a `Session`, as `spotter classify` runs them, and
/// the timeline scored against the annotations: which sets were found, how close their
/// reported start and end came to the truth, whether their reps were counted exactly, and
/// what was counted that the recording does not have.
public struct TimelineReport: Sendable {
  /// How close a boundary must be to count as on time, in seconds.
  public let tolerance: Double
  public private(set) var files = 0
  public private(set) var sets = 0
  /// Sets with a segment of their label overlapping them.
  public private(set) var found = 0
  /// Found as one segment whose start and end are both within `tolerance` of the truth.
  public private(set) var onTime = 0
  public private(set) var countedExactly = 0
  /// The sum over sets of |reps counted − reps done| (reps of overlapping segments of the label).
  public private(set) var repErrors = 0
  /// Reported minus true boundaries of found sets, seconds.
  public private(set) var startErrors: [Double] = []
  public private(set) var endErrors: [Double] = []
  /// Segments of an exercise the recording does not have there, and their reps.
  public private(set) var strayExercises = 0
  public private(set) var strayReps = 0
  /// Recordings with at least one such segment.
  public private(set) var strayRecordings = 0
  public private(set) var perLabel: [String: (sets: Int, onTime: Int, exact: Int)] = [:]
  /// Per set with annotated reps: the reps of every exercise the runtime reported over it,
  /// whichever it thought the set was (each reported segment goes to the set it overlaps
  /// most). What a user of `spotter classify` sees as the count.
  public private(set) var runtimeReps: [RepScore] = []

  public init(tolerance: Double = 1) {
    self.tolerance = tolerance
  }

  /// A reported exercise segment.
  public struct Segment: Equatable, Sendable {
    public var exercise: String
    public var start: Double
    public var end: Double
    public var reps: Int
  }

  /// The exercise segments in a stream of events.
  public static func segments(_ events: [SpotterEvent]) -> [Segment] {
    var open: [String: Double] = [:]
    var segments: [Segment] = []
    for event in events {
      switch event {
      case .exerciseStarted(let t, let exercise, _): open[exercise] = t
      case .exerciseEnded(let t, let exercise, let reps):
        segments.append(Segment(exercise: exercise, start: open[exercise] ?? t, end: t, reps: reps))
        open[exercise] = nil
      default: break
      }
    }
    return segments
  }

  /// Adds one recording: its events, and its annotations (`other` ones are not sets).
  public mutating func add(events: [SpotterEvent], truth: [Annotation]) {
    files += 1
    let segments = Self.segments(events)
    var matched = Set<Int>()
    for set in truth where set.label != "other" {
      let (start, end) = (set.startTime ?? 0, set.endTime ?? .infinity)
      sets += 1
      perLabel[set.label, default: (0, 0, 0)].sets += 1
      let overlapping = segments.indices.filter {
        segments[$0].exercise == set.label && segments[$0].start < end && segments[$0].end > start
      }
      guard let first = overlapping.first, let last = overlapping.last else {
        repErrors += set.reps ?? 0
        continue
      }
      found += 1
      matched.formUnion(overlapping)
      let startError = segments[first].start - start
      let endError = segments[last].end - end
      startErrors.append(startError)
      endErrors.append(endError)
      if overlapping.count == 1 && abs(startError) <= tolerance && abs(endError) <= tolerance {
        onTime += 1
        perLabel[set.label]!.onTime += 1
      }
      if let reps = set.reps {
        let counted = overlapping.reduce(0) { $0 + segments[$1].reps }
        repErrors += abs(counted - reps)
        if counted == reps {
          countedExactly += 1
          perLabel[set.label]!.exact += 1
        }
      }
    }
    let strays = segments.indices.filter { !matched.contains($0) }
    strayExercises += strays.count
    strayReps += strays.reduce(0) { $0 + segments[$1].reps }
    if !strays.isEmpty { strayRecordings += 1 }
    scoreRuntimeReps(segments, truth: truth)
  }

  private mutating func scoreRuntimeReps(_ segments: [Segment], truth: [Annotation]) {
    let sets = truth.filter { $0.label != "other" && $0.reps != nil }
    var counted = [Int](repeating: 0, count: sets.count)
    for segment in segments {
      var best: (set: Int, overlap: Double)?
      for (index, set) in sets.enumerated() {
        let overlap =
          min(segment.end, set.endTime ?? .infinity) - max(segment.start, set.startTime ?? 0)
        if overlap > 0 && overlap > (best?.overlap ?? 0) { best = (index, overlap) }
      }
      if let best { counted[best.set] += segment.reps }
    }
    for (index, set) in sets.enumerated() {
      runtimeReps.append(
        RepScore(file: set.fileName, label: set.label, truth: set.reps!, counted: counted[index]))
    }
  }

  /// The median and 90th percentile of |errors|.
  public static func spread(_ errors: [Double]) -> (median: Double, p90: Double)? {
    guard !errors.isEmpty else { return nil }
    let sorted = errors.map(abs).sorted()
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)])
  }
}

public enum TimelineScoring {
  /// Runs a pose file through a new session of `runtime`: every event, the summary last.
  /// `prepare` sees each decoded frame first, and may change it or drop it by returning false
  /// (`spotter eval --workouts --shake`, `--frame-rate`).
  public static func run(
    _ path: String, runtime: Runtime, prepare: ((inout PeopleFrame) -> Bool)? = nil
  ) throws -> [SpotterEvent] {
    var events: [SpotterEvent] = []
    try runtime.makeSession().run(try PoseFiles.open(path, prepare: prepare)) {
      events.append($0)
    }
    return events
  }
}
