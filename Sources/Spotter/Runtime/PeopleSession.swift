import Poses
import RepCounting

/// A stream with several people in it (a gym mirror, a class, a parent and child): each person
/// followed (`PeopleTracker`: stable ids through crossings and short misses) gets a `Session` of
/// their own, and every event says whose it is.
///
/// A person first seen starts their session; one unseen for `leaveSeconds` has left, and their
/// session is finished there (its last exercise ended, its summary emitted). Ids count up from
/// 1 and are never reused in a stream.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance"), but
/// for the one that events are emitted from inside.
public final class PeopleSession {
  public let runtime: Runtime
  /// Checked: events are emitted while it is being changed, so an `emit` that called back into
  /// the session traps instead of corrupting it.
  private var tracker: PeopleTracker
  @exclusivity(unchecked) private var sessions: [(id: Int, session: Session)] = []
  @exclusivity(unchecked) private var frame = PeopleFrame()
  @exclusivity(unchecked) private var lastTime = 0.0
  /// The exercise everyone's session counts, if chosen (else the classifier's).
  private let exercise: ExerciseDefinition?
  /// The frames' times so far, to refuse one that is not a number or goes back.
  @exclusivity(unchecked) private var frameTimes = FrameTimeCheck()
  /// Bad lines and frames refused, for the summaries.
  @exclusivity(unchecked) private var badLines = 0

  /// - Parameters:
  ///   - people: the most people followed at once (the most prominent first).
  ///   - leaveSeconds: how long someone may be out of view before they have left.
  ///   - exercise: the exercise everyone counts, chosen (`Runtime.makeSession(counting:)`);
  ///     nil for the classifier's.
  init(runtime: Runtime, people: Int, leaveSeconds: Double, exercise: ExerciseDefinition? = nil) {
    precondition(
      PeopleLimit.range.contains(people), "follows \(PeopleLimit.range) people, not \(people)")
    self.runtime = runtime
    self.exercise = exercise
    tracker = PeopleTracker(capacity: people, leaveSeconds: leaveSeconds)
    sessions.reserveCapacity(people)
  }

  /// The people followed now, by id.
  public var people: [Int] { sessions.map(\.id) }

  /// Takes one decoded frame; `emit` hears each event with the id of the person it is about
  /// (nil for the stream's own: an `error`), and must not call back into this session. A frame
  /// whose time is not finite or is before the previous frame's is refused with an `error`
  /// event (counted in the summaries' `bad_lines`); the stream goes on.
  public func push(_ frame: PeopleFrame, emit: (_ person: Int?, SpotterEvent) -> Void) {
    if let problem = frameTimes.problem(with: frame.t) {
      badLines += 1
      emit(nil, .error(t: nil, line: nil, message: problem))
      return
    }
    lastTime = frame.t
    var seen = 0  // bit i: sessions[i] had its person in this frame
    tracker.update(
      frame.people, t: frame.t,
      assign: { id, pose in
        let index = sessionIndex(for: id)
        seen |= 1 << index
        self.frame.t = frame.t
        self.frame.box = frame.box
        self.frame.people.removeAll(keepingCapacity: true)
        self.frame.people.append(pose)
        sessions[index].session.push(self.frame) { emit(id, $0) }
      },
      ended: { id in end(id, emit: emit) })
    // Everyone followed but not seen in this frame: a frame with nobody, for their session.
    for index in sessions.indices where seen & (1 << index) == 0 {
      let id = sessions[index].id
      self.frame.t = frame.t
      self.frame.box = frame.box
      self.frame.people.removeAll(keepingCapacity: true)
      sessions[index].session.push(self.frame) { emit(id, $0) }
    }
  }

  /// Reports a bad input line as an `error` event of the stream's (person nil); the stream
  /// goes on.
  public func reportBadLine(_ error: PoseFileError, emit: (_ person: Int?, SpotterEvent) -> Void) {
    badLines += 1
    emit(nil, .error(t: nil, line: error.line, message: error.description))
  }

  /// As `Session.run`: the whole source, bad lines reported, then the end (every person's
  /// summary); `afterFrame` after each frame's events.
  public func run(
    _ source: any PoseSource, emit: (_ person: Int?, SpotterEvent) -> Void,
    afterFrame: () throws -> Void = {}
  ) throws {
    try source.readAll(
      frame: { push($0, emit: emit) }, skipped: { reportBadLine($0, emit: emit) },
      afterFrame: afterFrame)
    finish(emit: emit)
  }

  /// Ends the stream: everyone's session is finished. The stream's bad lines, and `counters`
  /// (a server's dropped frames and events), go into the summary of each person still
  /// followed: they are the stream's, and whoever is in view at its end was there when they
  /// were lost.
  public func finish(
    emit: (_ person: Int?, SpotterEvent) -> Void, counters: StreamCounters = StreamCounters()
  ) {
    var counters = counters
    counters.badLines += badLines
    tracker.finish { id in end(id, counters: counters, emit: emit) }
  }

  private func sessionIndex(for id: Int) -> Int {
    if let index = sessions.firstIndex(where: { $0.id == id }) { return index }
    sessions.append(
      (id, exercise.map { runtime.makeSession(counting: $0) } ?? runtime.makeSession()))
    return sessions.count - 1
  }

  private func end(
    _ id: Int, counters: StreamCounters = StreamCounters(),
    emit: (_ person: Int?, SpotterEvent) -> Void
  ) {
    guard let index = sessions.firstIndex(where: { $0.id == id }) else { return }
    sessions[index].session.finish(emit: { emit(id, $0) }, counters: counters)
    sessions.remove(at: index)
  }
}

extension Runtime {
  /// A stream with up to `people` people in it, each followed and counted on their own: the
  /// classifier's exercises, or `exercise` chosen for everyone.
  public func makePeopleSession(
    people: Int, leaveSeconds: Double = 10, counting exercise: ExerciseDefinition? = nil
  ) -> PeopleSession {
    PeopleSession(runtime: self, people: people, leaveSeconds: leaveSeconds, exercise: exercise)
  }
}

/// How many people a stream follows at most: one session each, and the tracker's bit set of
/// those seen in a frame is 64 wide.
public enum PeopleLimit {
  public static let range = 1...64
}
