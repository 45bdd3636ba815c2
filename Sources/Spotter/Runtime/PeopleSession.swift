import Poses

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

  /// - Parameters:
  ///   - people: the most people followed at once (the most prominent first).
  ///   - leaveSeconds: how long someone may be out of view before they have left.
  init(runtime: Runtime, people: Int, leaveSeconds: Double) {
    precondition((1...64).contains(people), "follows 1 to 64 people, not \(people)")
    self.runtime = runtime
    tracker = PeopleTracker(capacity: people, leaveSeconds: leaveSeconds)
    sessions.reserveCapacity(people)
  }

  /// The people followed now, by id.
  public var people: [Int] { sessions.map(\.id) }

  /// Takes one decoded frame; `emit` hears each event with the id of the person it is about,
  /// and must not call back into this session.
  public func push(_ frame: PeopleFrame, emit: (_ person: Int, SpotterEvent) -> Void) {
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

  /// Ends the stream: everyone's session is finished. `counters` (the stream's bad lines, and
  /// a server's dropped frames and events) go into the summary of each person still followed:
  /// they are the stream's, and whoever is in view at its end was there when they were lost.
  public func finish(
    emit: (_ person: Int, SpotterEvent) -> Void, counters: StreamCounters = StreamCounters()
  ) {
    tracker.finish { id in end(id, counters: counters, emit: emit) }
  }

  private func sessionIndex(for id: Int) -> Int {
    if let index = sessions.firstIndex(where: { $0.id == id }) { return index }
    sessions.append((id, runtime.makeSession()))
    return sessions.count - 1
  }

  private func end(
    _ id: Int, counters: StreamCounters = StreamCounters(),
    emit: (_ person: Int, SpotterEvent) -> Void
  ) {
    guard let index = sessions.firstIndex(where: { $0.id == id }) else { return }
    sessions[index].session.finish(emit: { emit(id, $0) }, counters: counters)
    sessions.remove(at: index)
  }
}

extension Runtime {
  /// A stream with up to `people` people in it, each followed and counted on their own.
  public func makePeopleSession(people: Int, leaveSeconds: Double = 10) -> PeopleSession {
    PeopleSession(runtime: self, people: people, leaveSeconds: leaveSeconds)
  }
}
