import Foundation

/// Follows up to `capacity` people from frame to frame and gives each a stable id, whatever
/// order the detector lists them in.
///
/// Each person is tracked by their trunk: where its centre is (shoulders and hips, else their
/// box's), how fast it moves, and how big the body is (`BodySizeEstimator.measure`, which arms
/// thrown wide or overhead do not change, as they change the box). A frame's people are matched to the tracks greedily, closest
/// first, by the distance from where each track was heading (in the track's own body sizes)
/// and the difference in size, so two people walking past each other keep their ids: at the
/// crossing the one in front is bigger, and each is where their own walk was taking them. A
/// person no track can claim starts a new track (the most prominent first) while there is room.
/// With every track taken, one unseen for `reacquireSeconds` takes the closest person left
/// unclaimed. A track unseen for `leaveSeconds` ends: the person has left, and whoever comes next is
/// someone new.
///
/// Allocates nothing per frame once `capacity` tracks have existed.
public struct PeopleTracker: Sendable {
  public struct Track: Sendable {
    public let id: Int
    var centre: (x: Float, y: Float)
    var velocity: (x: Float, y: Float) = (0, 0)
    var size: Float
    public internal(set) var lastSeen: Double
  }

  /// The most people followed at once.
  public let capacity: Int
  /// Seconds unseen after which a person has left.
  public var leaveSeconds: Double
  /// How far from where it was heading a person may be, in body sizes, to keep a track.
  public var reach: Float = 1.2
  public var confidenceThreshold: Float = 0.1
  /// Unseen this long, with every track taken, a track takes whoever no track claimed.
  public var reacquireSeconds: Double = 0.5
  public private(set) var tracks: [Track] = []
  private var nextID = 1
  private var candidates: [(cost: Float, track: Int, person: Int)] = []
  private var claimed: [Bool] = []
  private var taken: [Bool] = []

  public init(capacity: Int, leaveSeconds: Double = 10) {
    precondition(capacity >= 1)
    self.capacity = capacity
    self.leaveSeconds = leaveSeconds
    tracks.reserveCapacity(capacity)
    candidates.reserveCapacity(capacity * 8)
  }

  /// Matches this frame's people to tracks. `assign` hears each track seen in this frame, with
  /// its person; `ended` hears each track that has now been gone for `leaveSeconds`.
  public mutating func update(
    _ people: [Pose], t: Double, assign: (_ id: Int, _ pose: Pose) -> Void,
    ended: (_ id: Int) -> Void
  ) {
    for index in stride(from: tracks.count - 1, through: 0, by: -1)
    where t - tracks[index].lastSeen > leaveSeconds {
      ended(tracks[index].id)
      tracks.remove(at: index)
    }
    claimed.removeAll(keepingCapacity: true)
    taken.removeAll(keepingCapacity: true)
    for _ in tracks { claimed.append(false) }
    candidates.removeAll(keepingCapacity: true)
    for (personIndex, person) in people.enumerated() {
      taken.append(false)
      guard let seen = Self.measure(person, threshold: confidenceThreshold) else {
        taken[personIndex] = true  // too little of a person to follow
        continue
      }
      for trackIndex in tracks.indices {
        let cost = Self.cost(of: seen, for: tracks[trackIndex], at: t)
        if cost < reach { candidates.append((cost, trackIndex, personIndex)) }
      }
    }
    // Cheapest first; insertion, as the list is short and a sort would allocate its buffer.
    for index in candidates.indices.dropFirst() {
      let candidate = candidates[index]
      var slot = index
      while slot > 0, candidates[slot - 1].cost > candidate.cost {
        candidates[slot] = candidates[slot - 1]
        slot -= 1
      }
      candidates[slot] = candidate
    }
    for candidate in candidates where !claimed[candidate.track] && !taken[candidate.person] {
      claimed[candidate.track] = true
      taken[candidate.person] = true
      let seen = Self.measure(people[candidate.person], threshold: confidenceThreshold)!
      follow(&tracks[candidate.track], to: seen, at: t)
      assign(tracks[candidate.track].id, people[candidate.person])
    }
    // With no room for newcomers, a track lost for `reacquireSeconds` takes the closest person
    // no track claimed, however far: a person the detector lost for a moment, or one who moved
    // more than `reach` while unseen, is still the one the track was following.
    if tracks.count == capacity {
      for trackIndex in tracks.indices
      where !claimed[trackIndex] && t - tracks[trackIndex].lastSeen >= reacquireSeconds {
        var best: (person: Int, cost: Float)?
        for index in people.indices where !taken[index] {
          let seen = Self.measure(people[index], threshold: confidenceThreshold)!
          let cost = Self.cost(of: seen, for: tracks[trackIndex], at: t)
          if best == nil || cost < best!.cost { best = (index, cost) }
        }
        guard let best else { break }
        claimed[trackIndex] = true
        taken[best.person] = true
        let seen = Self.measure(people[best.person], threshold: confidenceThreshold)!
        follow(&tracks[trackIndex], to: seen, at: t)
        tracks[trackIndex].velocity = (0, 0)  // a jump across a gap is no walking speed
        assign(tracks[trackIndex].id, people[best.person])
      }
    }
    // Newcomers, the most prominent first, while there is room.
    while tracks.count < capacity {
      var best: (index: Int, box: PersonSelector.Box)?
      for index in people.indices where !taken[index] {
        guard let box = PersonSelector.Box(people[index], threshold: confidenceThreshold),
          Self.measure(people[index], threshold: confidenceThreshold) != nil
        else { continue }
        if best == nil || box.area > best!.box.area { best = (index, box) }
      }
      guard let best else { break }
      taken[best.index] = true
      let seen = Self.measure(people[best.index], threshold: confidenceThreshold)!
      let track = Track(id: nextID, centre: seen.centre, size: seen.size, lastSeen: t)
      nextID += 1
      tracks.append(track)
      assign(track.id, people[best.index])
    }
  }

  /// Ends every track (the stream is over).
  public mutating func finish(ended: (_ id: Int) -> Void) {
    for track in tracks { ended(track.id) }
    tracks.removeAll(keepingCapacity: true)
  }

  /// Where a person is and how big: the trunk's centre (else the box's) and the body size.
  static func measure(_ pose: Pose, threshold: Float) -> (
    centre: (x: Float, y: Float), size: Float
  )? {
    guard let box = PersonSelector.Box(pose, threshold: threshold) else { return nil }
    var (x, y, n): (Float, Float, Float) = (0, 0, 0)
    for joint in [CanonicalJoint.leftShoulder, .rightShoulder, .leftHip, .rightHip]
    where pose[joint].confidence > threshold {
      (x, y, n) = (x + pose[joint].x, y + pose[joint].y, n + 1)
    }
    let centre = n >= 2 ? (x / n, y / n) : ((box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2)
    let size =
      BodySizeEstimator.measure(pose, threshold: threshold)
      ?? BodySizeEstimator.fallback(pose, threshold: threshold)
    return (centre, size)
  }

  /// How unlike a track a person is: the distance from where the track was heading, in its
  /// body sizes, plus how much the size differs (a factor of e costs one).
  static func cost(
    of seen: (centre: (x: Float, y: Float), size: Float), for track: Track, at t: Double
  ) -> Float {
    let dt = Float(min(t - track.lastSeen, 1))
    let expected = (
      x: track.centre.x + track.velocity.x * dt, y: track.centre.y + track.velocity.y * dt
    )
    let (dx, dy) = (seen.centre.x - expected.x, seen.centre.y - expected.y)
    let distance = (dx * dx + dy * dy).squareRoot() / max(track.size, 1e-6)
    return distance + abs(log(max(seen.size, 1e-6) / max(track.size, 1e-6)))
  }

  private func follow(
    _ track: inout Track, to seen: (centre: (x: Float, y: Float), size: Float), at t: Double
  ) {
    let dt = Float(t - track.lastSeen)
    if dt > 0 && dt < 1 {
      let step = (
        x: (seen.centre.x - track.centre.x) / dt, y: (seen.centre.y - track.centre.y) / dt
      )
      track.velocity = (
        0.6 * track.velocity.x + 0.4 * step.x, 0.6 * track.velocity.y + 0.4 * step.y
      )
    }
    track.centre = seen.centre
    track.size = 0.8 * track.size + 0.2 * seen.size
    track.lastSeen = t
  }
}
