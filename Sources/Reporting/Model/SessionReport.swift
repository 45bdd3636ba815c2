import Foundation

/// Everything `spotter report` shows about one session, in stream seconds: the page is drawn
/// from it and `--json` writes it, so the two always hold the same data.
///
/// Built by `ReportRecorder` from what a session says as it runs (its events, its engines'
/// signal samples and the poses themselves); nothing here is recomputed from the pose file.
public struct SessionReport: Codable, Equatable, Sendable {
  /// What the poses came from: a file name, `spotter demo (seed 1)`.
  public var source: String
  /// When the report was made (wall clock), if the maker gave one.
  public var date: Date?
  /// The stream's first and last tick.
  public var start: Double
  public var end: Double
  /// The classifier's labels, in its order (empty when counting without a classifier).
  public var labels: [String]
  /// When the runtime saw enough of a person to classify (`presence` events), or, without a
  /// classifier, when anybody was detected at all.
  public var presence: [TimeSpan]
  /// Every window's probabilities, in `labels` order.
  public var predictions: [Prediction]
  /// The exercises the smoother chose, in order, `other` stretches included.
  public var sets: [SetReport]
  /// Per exercise, as the session's summary gives them.
  public var totals: [ExerciseSummary]
  /// Every cue said, with how often.
  public var cues: [CueCount]
  /// Frames of the video the poses were detected in, when they came from one.
  public var video: ReportVideo?

  public init(
    source: String, date: Date? = nil, start: Double, end: Double, labels: [String] = [],
    presence: [TimeSpan] = [], predictions: [Prediction] = [], sets: [SetReport] = [],
    totals: [ExerciseSummary] = [], cues: [CueCount] = [], video: ReportVideo? = nil
  ) {
    self.source = source
    self.date = date
    self.start = start
    self.end = end
    self.labels = labels
    self.presence = presence
    self.predictions = predictions
    self.sets = sets
    self.totals = totals
    self.cues = cues
    self.video = video
  }

  /// Reps counted in the whole session.
  public var repCount: Int { sets.reduce(0) { $0 + $1.reps.count } }
  /// Movements seen and not counted, in the whole session.
  public var refusalCount: Int { sets.reduce(0) { $0 + $1.refusals.count } }
}

/// A stretch of stream time.
public struct TimeSpan: Codable, Equatable, Sendable {
  public var start: Double
  public var end: Double

  public init(start: Double, end: Double) {
    self.start = start
    self.end = end
  }

  public var duration: Double { end - start }
}

/// One window's prediction: probabilities in the report's label order.
public struct Prediction: Codable, Equatable, Sendable {
  public var t: Double
  public var probabilities: [Float]
}

/// One exercise segment, from `exercise_started` to `exercise_ended`, with what its rep engine
/// saw and decided.
public struct SetReport: Codable, Equatable, Sendable {
  public var exercise: String
  public var start: Double
  public var end: Double
  /// Whether a rep engine counted it (false for `other`, and labels without a definition).
  public var counted: Bool
  /// The history the engine replayed when the exercise was recognised: from the oldest tick
  /// replayed to the newest, which is when it was recognised.
  public var backfill: TimeSpan?
  /// The signals the engine reads, frame by frame (several for a definition with
  /// alternatives; none for a staged engine without a `measure`).
  public var signals: [SignalTrace] = []
  public var reps: [RepMark] = []
  public var refusals: [RefusalMark] = []
  /// Cues that belong to no rep or refusal (a joint out of sight).
  public var cues: [CueMark] = []
  /// Rep figures, trend and sides, once the set is over.
  public var analysis: SetAnalysis?

  /// Where the set's pictures begin and end: the set, and the history replayed for it.
  public var span: TimeSpan {
    var from = start
    var to = end
    if let backfill { from = min(from, backfill.start) }
    for trace in signals {
      if let first = trace.t.first { from = min(from, first) }
      if let last = trace.t.last { to = max(to, last) }
    }
    return TimeSpan(start: from, end: max(to, from))
  }
}

extension SetReport {
  /// The units of the signal `index` (the main signal's when nil or not found).
  public func units(ofSignal index: Int?) -> String {
    (signals.first { $0.index == index } ?? signals.first)?.units ?? ""
  }

  /// Whether the signal `index` moves down first (−1) or up (+1).
  public func direction(ofSignal index: Int?) -> Int {
    (signals.first { $0.index == index } ?? signals.first)?.direction ?? -1
  }

  /// The units every rep's range is in; nil when reps were counted on signals in different
  /// units (a knee raise's height in body sizes, and its lean in degrees).
  public var repUnits: String? {
    let all = Set(reps.map { units(ofSignal: $0.signal) })
    return all.count > 1 ? nil : all.first ?? units(ofSignal: nil)
  }
}

/// One signal a rep engine reads, with the levels it judged it against, frame by frame, in the
/// signal's own units and direction (columns of equal length: `t[i]` goes with `value[i]`).
public struct SignalTrace: Codable, Equatable, Sendable {
  /// 0 for the definition's signal, 1… for its alternatives.
  public var index: Int
  /// What is measured, in words: `hip height above ankle`.
  public var name: String
  /// `°` or `body sizes`.
  public var units: String
  /// −1 when a rep moves the signal down first (a squat's hip height), +1 when up, 0 when the
  /// engine does not say (a staged engine's measure).
  public var direction: Int
  public var t: [Double]
  /// The smoothed signal.
  public var value: [Double]
  /// The level a rep is measured from.
  public var top: [Double]
  /// Where the signal must get to for a rep to start.
  public var countLevel: [Double]
  /// The person's typical range so far (nil before it is known).
  public var typicalRange: [Double?]

  public init(index: Int, name: String, units: String, direction: Int) {
    self.index = index
    self.name = name
    self.units = units
    self.direction = direction
    t = []
    value = []
    top = []
    countLevel = []
    typicalRange = []
  }

  /// Whether the engine judges the signal against levels (a staged engine's measure has none:
  /// its top and count level are the value itself).
  public var hasLevels: Bool {
    zip(value, countLevel).contains { $0 != $1 }
  }
}

/// A counted rep, as the `rep` event told it, and where it happened on its signal.
public struct RepMark: Codable, Equatable, Sendable {
  public var count: Int
  public var start: Double
  public var end: Double
  /// When the signal was farthest from its top: the bottom of a squat.
  public var bottom: Double
  /// In the signal's units.
  public var rangeOfMotion: Double
  public var timeDown: Double
  public var timeUp: Double
  public var partial: Bool
  public var side: String?
  public var cue: String?
  /// Counted from history when the exercise was recognised.
  public var backfilled: Bool
  /// The signal (`SignalTrace.index`) whose movement matches the rep's range.
  public var signal: Int?

  public init(
    count: Int, start: Double, end: Double, bottom: Double, rangeOfMotion: Double,
    timeDown: Double, timeUp: Double, partial: Bool, side: String?, cue: String?,
    backfilled: Bool, signal: Int?
  ) {
    self.count = count
    self.start = start
    self.end = end
    self.bottom = bottom
    self.rangeOfMotion = rangeOfMotion
    self.timeDown = timeDown
    self.timeUp = timeUp
    self.partial = partial
    self.side = side
    self.cue = cue
    self.backfilled = backfilled
    self.signal = signal
  }

  public var duration: Double { end - start }
}

/// A movement the engine saw and did not count, as the `rep_rejected` event told it.
public struct RefusalMark: Codable, Equatable, Sendable {
  /// `too_small`, `partial`, `too_fast`, `too_slow`, `interrupted`, `out_of_sight`.
  public var reason: String
  public var start: Double
  public var end: Double
  public var rangeOfMotion: Double
  /// What interrupted it: `anchor`, `travel`, `gap`, `end`.
  public var detail: String?
  public var cue: String?
  public var backfilled: Bool
  public var signal: Int?
}

/// A cue given on its own, at a moment.
public struct CueMark: Codable, Equatable, Sendable {
  public var t: Double
  public var message: String
}

/// A cue and how many times it was said.
public struct CueCount: Codable, Equatable, Sendable {
  public var message: String
  public var count: Int
}

/// One exercise's totals over the session.
public struct ExerciseSummary: Codable, Equatable, Sendable {
  public var exercise: String
  public var reps: Int
  public var activeSeconds: Double
}
