import RepCounting

/// Reps done that the engine passed over in silence: neither counted nor refused.
///
/// A refusal (`rep_rejected`) tells the person why a movement did not count; a rep that gets
/// neither is the fault a user cannot see or correct, and DESIGN.md §9 rules it out ("a steady
/// rhythm is never passed over in silence"). It can only be measured where the annotations say
/// when each rep was done (`rep_bounds`): synthetic sets, not Countix.
///
/// **Matching.** A done rep is *heard* when an event is matched to it. An event (a `rep`,
/// partial or not, or a `rejected`, each with the span from the movement's start to when it
/// was counted or refused) may be matched to a done rep when their spans share at least a third
/// of the done rep's: an engine counts a rep on the way back, before the body is at rest, so its
/// span ends early, and a third still ties it to one rep rather than its neighbour; a short
/// refusal that only grazes the next rep does not hear it. Each event is matched to at most one done rep and each done rep to at most one
/// event, and the matching is a largest one (augmenting paths), so a run of phantom events
/// cannot hide a missed rep by hearing it twice, and an early or late event that could serve
/// two neighbours is given to the one that needs it.
public enum SilentMisses {
  /// The share of the done rep's span an event must share with it to be matched.
  public static let overlapShare = 1.0 / 3

  /// Whether an event's span may be matched to a done rep's.
  public static func overlaps(_ done: ClosedRange<Double>, _ event: ClosedRange<Double>) -> Bool {
    let shared = min(done.upperBound, event.upperBound) - max(done.lowerBound, event.lowerBound)
    return shared >= 0 && shared >= overlapShare * (done.upperBound - done.lowerBound)
  }

  /// The span of a `rep` or `rejected` event; nil for others.
  public static func span(of event: RepEvent) -> ClosedRange<Double>? {
    switch event {
    case .rep(let rep): min(rep.start, rep.end)...max(rep.start, rep.end)
    case .rejected(let rejection):
      min(rejection.start, rejection.end)...max(rejection.start, rejection.end)
    case .cue: nil
    }
  }

  /// The indices of the done reps that no event is matched to.
  public static func missed(done: [ClosedRange<Double>], events: [RepEvent]) -> [Int] {
    let spans = events.compactMap(span(of:))
    // candidates[d]: the events that may be matched to done rep d.
    let candidates = done.map { rep in spans.indices.filter { overlaps(rep, spans[$0]) } }
    var doneOfEvent = [Int?](repeating: nil, count: spans.count)
    // Kuhn's augmenting paths: done rep d takes a free event, or one whose done rep can move on.
    func augment(_ d: Int, _ visited: inout [Bool]) -> Bool {
      for e in candidates[d] where !visited[e] {
        visited[e] = true
        if doneOfEvent[e] == nil || augment(doneOfEvent[e]!, &visited) {
          doneOfEvent[e] = d
          return true
        }
      }
      return false
    }
    var heard = Set<Int>()
    for d in done.indices {
      var visited = [Bool](repeating: false, count: spans.count)
      if augment(d, &visited) { heard.insert(d) }
    }
    return done.indices.filter { !heard.contains($0) }
  }
}
