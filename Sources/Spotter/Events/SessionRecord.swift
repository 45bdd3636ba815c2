import Foundation
import RepCounting

/// A finished session as a workout history keeps it: when, from where, whose, and each set with
/// each of its reps. Built from the session's events by `SessionRecorder`, so any consumer of
/// events (the daemon, the command line, an app) can keep one without the session's help.
public struct SessionRecord: Equatable, Sendable {
  /// When the session started (wall clock).
  public var date: Date
  /// What the poses came from: `spotter serve, connection 12`, a file name.
  public var source: String
  /// Who: a client or person id from the stream's header, when it gave one.
  public var person: String?
  public var sets: [SetRecord]
  /// Per exercise, as the summary gives them.
  public var totals: [ExerciseTotal]
  /// Whether the summary reached the client's socket whole (a served stream); nil where no
  /// client was waiting for it.
  public var summaryDelivered: Bool?

  public init(
    date: Date, source: String, person: String? = nil, sets: [SetRecord] = [],
    totals: [ExerciseTotal] = [], summaryDelivered: Bool? = nil
  ) {
    self.date = date
    self.source = source
    self.person = person
    self.sets = sets
    self.totals = totals
    self.summaryDelivered = summaryDelivered
  }
}

/// One set: an exercise from its start to its end, in stream seconds.
public struct SetRecord: Equatable, Sendable {
  public var exercise: String
  public var start: Double
  public var end: Double
  public var reps: [RepRecord]

  public init(exercise: String, start: Double, end: Double, reps: [RepRecord] = []) {
    self.exercise = exercise
    self.start = start
    self.end = end
    self.reps = reps
  }

  /// Reps counted in the set.
  public var count: Int { reps.count }
  public var activeSeconds: Double { max(0, end - start) }
}

/// One counted rep.
public struct RepRecord: Equatable, Sendable {
  /// When it was done (its end), stream seconds.
  public var t: Double
  public var duration: Double
  public var timeDown: Double
  public var timeUp: Double
  /// In the signal's units (degrees, or body sizes).
  public var rangeOfMotion: Double
  /// The side that led it, for exercises done a side at a time.
  public var side: String?
  /// Shallower than the person's full reps (counted, with a cue).
  public var partial: Bool
  /// Counted from history when the exercise was recognised.
  public var backfilled: Bool

  public init(
    t: Double, duration: Double, timeDown: Double, timeUp: Double, rangeOfMotion: Double,
    side: String? = nil, partial: Bool = false, backfilled: Bool = false
  ) {
    self.t = t
    self.duration = duration
    self.timeDown = timeDown
    self.timeUp = timeUp
    self.rangeOfMotion = rangeOfMotion
    self.side = side
    self.partial = partial
    self.backfilled = backfilled
  }
}

/// Builds a `SessionRecord` from a session's events, as they come.
public struct SessionRecorder: Sendable {
  public private(set) var record: SessionRecord
  private var open: SetRecord?

  public init(date: Date = Date(), source: String, person: String? = nil) {
    record = SessionRecord(date: date, source: source, person: person)
  }

  /// Goes on from `record`: its sets come first (a session resumed from a checkpoint).
  public init(continuing record: SessionRecord) {
    self.record = record
  }

  /// The set under way (its reps so far), if any.
  public var underWay: SetRecord? { open }

  /// Takes one event; sets close on `exercise_ended`, totals come with the `summary`.
  public mutating func take(_ event: SpotterEvent) {
    switch event {
    case .exerciseStarted(let t, let exercise, _):
      open = SetRecord(exercise: exercise, start: t, end: t)
    case .rep(_, _, let rep, let backfilled):
      open?.reps.append(RepRecord(rep, backfilled: backfilled))
    case .exerciseEnded(let t, _, _):
      if var set = open {
        set.end = t
        // A closed set is kept until the session is stored, so it keeps room for as many reps
        // as it has, not the room its array grew to (up to twice that): a long session's
        // record costs its reps' bytes. (`Array(set.reps[...])` would share the grown buffer.)
        var reps: [RepRecord] = []
        reps.reserveCapacity(set.reps.count)
        reps += set.reps
        set.reps = reps
        record.sets.append(set)
      }
      open = nil
    case .summary(_, let exercises, _):
      record.totals = exercises
    default: break
    }
  }
}

extension RepRecord {
  /// A rep event's rep as the history keeps it.
  public init(_ rep: Rep, backfilled: Bool) {
    self.init(
      t: rep.end, duration: rep.duration, timeDown: rep.timeDown, timeUp: rep.timeUp,
      rangeOfMotion: rep.rangeOfMotion, side: rep.side, partial: rep.partial,
      backfilled: backfilled)
  }
}
