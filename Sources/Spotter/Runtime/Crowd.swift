import Poses
import RepCounting

/// Several people in one stream (a gym mirror, a class, a parent and child), for a `Session`
/// made for more than one: each person followed (`PeopleTracker`: stable ids through crossings
/// and short misses) gets a `PersonSession` of their own, and every event says whose it is.
///
/// A person first seen starts their session; one unseen for `leaveSeconds` has left, and their
/// session is finished there (its last exercise ended, its summary emitted). Ids count up from
/// 1 and are never reused in a stream.
final class Crowd {
  /// Checked: events are emitted while it is being changed, so an `emit` that called back into
  /// the session traps instead of corrupting it.
  private var tracker: PeopleTracker
  @exclusivity(unchecked) private var sessions: [(id: Int, session: PersonSession)] = []
  /// The frame one person's session is given, reused.
  @exclusivity(unchecked) private var frame = PeopleFrame()
  /// Makes the session of a person first seen.
  private let makePerson: () -> PersonSession
  /// Tests: each person's probabilities come from this script (`Session.scriptPredictions`).
  var script: ((_ t: Double, _ probabilities: inout [Float]) -> Void)? {
    didSet {
      guard let script else { return }
      for entry in sessions { entry.session.scriptPredictions(script) }
    }
  }

  init(people: Int, leaveSeconds: Double, makePerson: @escaping () -> PersonSession) {
    tracker = PeopleTracker(capacity: people, leaveSeconds: leaveSeconds)
    self.makePerson = makePerson
    sessions.reserveCapacity(people)
  }

  /// The people followed now, by id.
  var people: [Int] { sessions.map(\.id) }

  /// Takes one frame, whose time the stream has checked: each person followed gets theirs.
  func push(_ frame: PeopleFrame, emit: (_ person: Int?, SpotterEvent) -> Void) {
    var seen = 0  // bit i: sessions[i] had its person in this frame
    tracker.update(
      frame.people, t: frame.t,
      assign: { id, pose in
        let index = sessionIndex(for: id)
        seen |= 1 << index
        push(pose, t: frame.t, box: frame.box, to: index, emit: emit)
      },
      ended: { id in end(id, counters: StreamCounters(), emit: emit) })
    // Everyone followed but not seen in this frame: a frame with nobody, for their session.
    for index in sessions.indices where seen & (1 << index) == 0 {
      push(nil, t: frame.t, box: frame.box, to: index, emit: emit)
    }
  }

  private func push(
    _ pose: Pose?, t: Double, box: (x: Float, y: Float), to index: Int,
    emit: (_ person: Int?, SpotterEvent) -> Void
  ) {
    let id = sessions[index].id
    frame.t = t
    frame.box = box
    frame.people.removeAll(keepingCapacity: true)
    if let pose { frame.people.append(pose) }
    sessions[index].session.push(frame) { emit(id, $0) }
  }

  /// Ends the stream: everyone's session is finished, `counters` (the stream's) in each
  /// summary: whoever is in view at its end was there when they were lost.
  func finish(counters: StreamCounters, emit: (_ person: Int?, SpotterEvent) -> Void) {
    tracker.finish { id in end(id, counters: counters, emit: emit) }
  }

  private func sessionIndex(for id: Int) -> Int {
    if let index = sessions.firstIndex(where: { $0.id == id }) { return index }
    let session = makePerson()
    if let script { session.scriptPredictions(script) }
    sessions.append((id, session))
    return sessions.count - 1
  }

  private func end(
    _ id: Int, counters: StreamCounters, emit: (_ person: Int?, SpotterEvent) -> Void
  ) {
    guard let index = sessions.firstIndex(where: { $0.id == id }) else { return }
    sessions[index].session.finish(emit: { emit(id, $0) }, counters: counters)
    sessions.remove(at: index)
  }
}

/// How many people a stream follows at most: one session each, and the tracker's bit set of
/// those seen in a frame is 64 wide.
public enum PeopleLimit {
  public static let range = 1...64
}
