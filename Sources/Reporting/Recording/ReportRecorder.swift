import Foundation
import Poses
import RepCounting
import Spotter

/// Builds a `SessionReport` while a session runs, from what the session says anyway: its
/// events, its engines' signal samples (`Session.onSignalSample`) and its ticks
/// (`Session.onTick`: the poses as the session followed and resampled them).
///
/// It keeps every tick's pose and every sample (a 10-minute session is 18,000 ticks, about
/// 4 MB of poses), because which reps are typical or worst, and where each rep's bottom was,
/// is only known once the set is over. A session that is not reported makes none of this: no
/// recorder, no sample hook.
///
/// A rep engine replays history when its exercise is recognised (backfill): those samples come
/// before the `exercise_started` event, with past times, so samples of an exercise with no set
/// open are held and become the set's backfill when it starts.
public final class ReportRecorder {
  private let source: String
  private let date: Date?
  private let definition: (String) -> ExerciseDefinition?
  private var ticks: [(t: Double, pose: Pose)] = []
  private var labels: [String] = []
  private var predictions: [Prediction] = []
  private var presenceChanges: [(t: Double, present: Bool)] = []
  private var sets: [SetReport] = []
  /// The set under way (an index into `sets`), and samples heard for an exercise with no set
  /// open: a backfill, until its start arrives.
  private var open: Int?
  private var held: [String: [SignalSample]] = [:]
  private var totals: [ExerciseSummary]?
  private var cueCounts: [CueCount] = []
  /// The last rep or refusal's time and cue, so the `cue` event that repeats it is not also
  /// drawn as a cue of its own.
  private var lastCue: (t: Double, message: String)?
  private var firstEventTime: Double?
  private var lastEventTime: Double?

  /// - Parameters:
  ///   - source: what the poses came from, for the page's title.
  ///   - date: when the session was (nil leaves it off the page; tests compare pages).
  ///   - definition: the exercise definition an event's exercise is counted by (its signals'
  ///     names, units and directions); nil for `other`.
  public init(
    source: String, date: Date? = nil, definition: @escaping (String) -> ExerciseDefinition?
  ) {
    self.source = source
    self.date = date
    self.definition = definition
  }

  /// A recorder for a runtime's sessions: each exercise label counted by the catalogue's
  /// definition for it.
  public convenience init(source: String, date: Date? = nil, runtime: Runtime) {
    let catalogue = runtime.catalogue
    self.init(source: source, date: date) { catalogue.definition(forLabel: $0) }
  }

  // MARK: what the session says

  /// One tick of the session (`Session.onTick`): a frame as the session followed and
  /// resampled it.
  public func take(_ pose: Pose, t: Double) {
    ticks.append((t, pose))
  }

  /// One engine's signal sample, with the exercise the engine counts.
  public func take(_ sample: SignalSample, exercise: String) {
    guard sample.value.isFinite, sample.t.isFinite else { return }
    if let open, sets[open].exercise == exercise {
      Self.append(sample, to: &sets[open].signals, definition: definition(exercise))
    } else {
      held[exercise, default: []].append(sample)
    }
  }

  public func take(_ event: SpotterEvent) {
    if let t = event.t {
      firstEventTime = firstEventTime ?? t
      lastEventTime = t
    }
    switch event {
    case .prediction(let t, _, _, _, let probabilities):
      if labels.isEmpty { labels = probabilities.map(\.0) }
      predictions.append(
        Prediction(t: Self.round(t), probabilities: probabilities.map { Float(Self.round($0.1)) }))
    case .presence(let t, let present):
      presenceChanges.append((t, present))
    case .exerciseStarted(let t, let exercise, _):
      close(at: t)
      start(exercise, at: t)
    case .rep(_, let exercise, let rep, let backfilled):
      let index = setIndex(for: exercise, at: rep.end)
      sets[index].reps.append(
        RepMark(
          count: rep.count, start: rep.start, end: rep.end, bottom: rep.start + rep.timeDown,
          rangeOfMotion: rep.rangeOfMotion, timeDown: rep.timeDown, timeUp: rep.timeUp,
          partial: rep.partial, side: rep.side, cue: rep.cue, backfilled: backfilled,
          signal: nil))
      lastCue = rep.cue.map { (rep.end, $0) }
    case .repRejected(_, let exercise, let rejection):
      let index = setIndex(for: exercise, at: rejection.end)
      sets[index].refusals.append(
        RefusalMark(
          reason: rejection.reason.rawValue, start: rejection.start, end: rejection.end,
          rangeOfMotion: rejection.rangeOfMotion, detail: rejection.detail, cue: rejection.cue,
          backfilled: sets[index].backfill.map { rejection.end <= $0.end } ?? false,
          signal: nil))
      lastCue = rejection.cue.map { (rejection.end, $0) }
    case .cue(let t, let exercise, let message):
      count(cue: message)
      if let last = lastCue, last.t == t, last.message == message {
        lastCue = nil
      } else {
        sets[setIndex(for: exercise, at: t)].cues.append(CueMark(t: t, message: message))
      }
    case .goalReached(let t, let exercise, _):
      sets[setIndex(for: exercise, at: t)].cues.append(CueMark(t: t, message: "Goal reached"))
    case .exerciseEnded(let t, _, _):
      close(at: t)
    case .summary(_, let exercises, _):
      totals = exercises.map {
        ExerciseSummary(exercise: $0.name, reps: $0.reps, activeSeconds: $0.activeSeconds)
      }
    case .error:
      break
    }
  }

  // MARK: the report

  /// The report of everything taken so far; a set still open ends at the last tick.
  public func report() -> SessionReport {
    let start = ticks.first?.t ?? firstEventTime ?? 0
    let end = max(ticks.last?.t ?? lastEventTime ?? start, lastEventTime ?? start)
    var sets = self.sets
    if let open {
      sets[open].end = max(sets[open].start, end)
    }
    for index in sets.indices {
      Self.place(&sets[index])
      sets[index].analysis = SetAnalysis.make(reps: sets[index].reps, pose: pose(at:))
    }
    let totals =
      self.totals
      ?? sets.reduce(into: [ExerciseSummary]()) { totals, set in
        guard let index = totals.firstIndex(where: { $0.exercise == set.exercise }) else {
          totals.append(
            ExerciseSummary(
              exercise: set.exercise, reps: set.reps.count, activeSeconds: set.end - set.start))
          return
        }
        totals[index].reps += set.reps.count
        totals[index].activeSeconds += set.end - set.start
      }
    return SessionReport(
      source: source, date: date, start: start, end: end, labels: labels,
      presence: presence(end: end), predictions: predictions, sets: sets, totals: totals,
      cues: cueCounts)
  }

  // MARK: sets

  private func start(_ exercise: String, at t: Double) {
    let definition = definition(exercise)
    var set = SetReport(exercise: exercise, start: t, end: t, counted: definition != nil)
    if let backfill = held.removeValue(forKey: exercise), !backfill.isEmpty {
      for sample in backfill { Self.append(sample, to: &set.signals, definition: definition) }
      set.backfill = TimeSpan(
        start: backfill.map(\.t).min()!, end: backfill.map(\.t).max()!)
    }
    held.removeAll(keepingCapacity: true)
    sets.append(set)
    open = sets.count - 1
  }

  private func close(at t: Double) {
    guard let index = open else { return }
    sets[index].end = max(t, sets[index].start)
    open = nil
  }

  /// The set an engine's event belongs to: the one open, else the last of that exercise, else a
  /// new one (an event with no set around it is still shown).
  private func setIndex(for exercise: String, at t: Double) -> Int {
    if let open, sets[open].exercise == exercise { return open }
    if let last = sets.lastIndex(where: { $0.exercise == exercise }) { return last }
    sets.append(
      SetReport(exercise: exercise, start: t, end: t, counted: definition(exercise) != nil))
    return sets.count - 1
  }

  private func count(cue message: String) {
    if let index = cueCounts.firstIndex(where: { $0.message == message }) {
      cueCounts[index].count += 1
    } else {
      cueCounts.append(CueCount(message: message, count: 1))
    }
  }

  /// Four decimals: a tenth of a millisecond, a ten-thousandth of a body size or a degree,
  /// far below what a detector can tell, and a third the length in the JSON.
  static func round(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

  private static func append(
    _ sample: SignalSample, to traces: inout [SignalTrace], definition: ExerciseDefinition?
  ) {
    let index: Int
    if let found = traces.firstIndex(where: { $0.index == sample.signal }) {
      index = found
    } else {
      traces.append(SignalTrace(sample.signal, of: definition))
      traces.sort { $0.index < $1.index }
      index = traces.firstIndex { $0.index == sample.signal }!
    }
    let value = round(sample.value)
    traces[index].t.append(round(sample.t))
    traces[index].value.append(value)
    traces[index].top.append(sample.top.isFinite ? round(sample.top) : value)
    traces[index].countLevel.append(sample.countLevel.isFinite ? round(sample.countLevel) : value)
    traces[index].typicalRange.append(
      sample.typicalRange.flatMap { $0.isFinite ? round($0) : nil })
  }

  // MARK: placing marks on signals

  /// Gives each rep and refusal the signal that moved as it says (the one that counted it, for
  /// a definition with alternatives) and each rep its bottom on that signal.
  static func place(_ set: inout SetReport) {
    let traces = set.signals
    for index in set.reps.indices {
      let rep = set.reps[index]
      guard let trace = matching(traces, rep.start, rep.end, rep.rangeOfMotion) else { continue }
      set.reps[index].signal = trace.index
      if let bottom = extreme(of: trace, from: rep.start, to: rep.end) {
        set.reps[index].bottom = bottom
      }
    }
    for index in set.refusals.indices {
      let refusal = set.refusals[index]
      set.refusals[index].signal =
        matching(traces, refusal.start, refusal.end, refusal.rangeOfMotion)?.index
    }
  }

  /// The trace whose movement over `start...end` is nearest `range` (by ratio).
  private static func matching(
    _ traces: [SignalTrace], _ start: Double, _ end: Double, _ range: Double
  ) -> SignalTrace? {
    guard traces.count > 1 else { return traces.first }
    return traces.min { a, b in
      misfit(a, start, end, range) < misfit(b, start, end, range)
    }
  }

  private static func misfit(
    _ trace: SignalTrace, _ start: Double, _ end: Double, _ range: Double
  ) -> Double {
    let window = trace.indices(from: start, to: end)
    guard !window.isEmpty, range > 0 else { return .infinity }
    let values = trace.value[window]
    let moved = values.max()! - values.min()!
    return moved > 0 ? abs(log(moved / range)) : .infinity
  }

  /// When the trace was farthest its rep's way within `start...end` (without a way, farthest
  /// from where the rep started).
  private static func extreme(of trace: SignalTrace, from start: Double, to end: Double) -> Double?
  {
    let window = trace.indices(from: start, to: end)
    guard let first = window.first else { return nil }
    let way = Double(trace.direction)
    let pick = window.max { a, b in
      let (va, vb) = (trace.value[a] - trace.value[first], trace.value[b] - trace.value[first])
      return way == 0 ? abs(va) < abs(vb) : way * va < way * vb
    }!
    return trace.t[pick]
  }

  // MARK: presence and poses

  /// The runtime's presence events as spans; without them (no classifier), the ticks where
  /// anybody was detected, gaps under half a second bridged.
  private func presence(end: Double) -> [TimeSpan] {
    var spans: [TimeSpan] = []
    if !presenceChanges.isEmpty {
      var since: Double?
      for change in presenceChanges {
        if change.present, since == nil { since = change.t }
        if !change.present, let from = since {
          spans.append(TimeSpan(start: from, end: change.t))
          since = nil
        }
      }
      if let since { spans.append(TimeSpan(start: since, end: end)) }
      return spans
    }
    var run: TimeSpan?
    for (t, pose) in ticks where pose.hasPerson {
      if var current = run, t - current.end <= 0.5 {
        current.end = t
        run = current
      } else {
        if let run { spans.append(run) }
        run = TimeSpan(start: t, end: t)
      }
    }
    if let run { spans.append(run) }
    return spans
  }

  /// The person followed at `t`, as the report's stick figures draw them: the tick nearest `t`
  /// (within a tenth of a second), if anybody was seen then.
  public func stickPose(at t: Double) -> StickPose? {
    pose(at: t).map { StickPose(t: t, pose: $0) }
  }

  /// The pose of the tick nearest `t` (within a tenth of a second), if anybody was seen then.
  func pose(at t: Double) -> Pose? {
    guard let best = ticks.indexNearest(t, time: { $0.t }),
      abs(ticks[best].t - t) <= 0.1, ticks[best].pose.hasPerson
    else { return nil }
    return ticks[best].pose
  }
}

extension SignalTrace {
  /// An empty trace for signal `index` of `definition`: its name, units and direction.
  init(_ index: Int, of definition: ExerciseDefinition?) {
    let signals = definition?.countingSignals ?? []
    let spec = index < signals.count ? signals[index] : nil
    var direction = 0
    if let counting = definition?.signalCounting {
      let way =
        index == 0
        ? counting.direction
        : counting.alternatives[safe: index - 1]?.direction ?? counting.direction
      direction = way == .down ? -1 : 1
    }
    self.init(
      index: index, name: spec.map(SignalNaming.name) ?? "signal \(index)",
      units: spec.map(SignalNaming.units) ?? "", direction: direction)
  }

  /// The positions of the samples inside `start...end`.
  func indices(from start: Double, to end: Double) -> Range<Int> {
    var low = 0
    var high = t.count
    while low < high {
      let middle = (low + high) / 2
      if t[middle] < start { low = middle + 1 } else { high = middle }
    }
    var last = low
    while last < t.count, t[last] <= end { last += 1 }
    return low..<last
  }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
