/// How fast a clip's reps went, by the seconds a rep took: the annotated clip time divided by
/// the reps done in it.
///
/// Counting must keep time from 0.4 s to 6 s a rep (DESIGN.md §9), and a fault shows at one
/// tempo and hides in an average over all of them: a cadence estimate that smooths away fast
/// shallow push-ups, or a longest-rep rule that drops slow reps held at the bottom. The edges
/// split the tempos people use: under 0.8 s (fast shallow sets: jumping jacks, short push-ups,
/// crunches), 0.8–1.2 (brisk), 1.2–2 (the usual), 2–3.5 (controlled), over 3.5 (slow, or pauses
/// between reps). Clip time over reps, not a measured period, because it needs nothing but the
/// annotation: on an untrimmed video it also counts the rests, so a real clip's band is a
/// bound on its reps' tempo, not the tempo itself.
public enum TempoBand: Int, CaseIterable, Sendable {
  /// Under 0.8 s a rep.
  case quick
  /// 0.8–1.2 s.
  case brisk
  /// 1.2–2 s.
  case usual
  /// 2–3.5 s.
  case controlled
  /// 3.5 s and over.
  case slow

  /// The band's lower edge (inclusive), in seconds a rep; 0 for the first.
  public var lowerEdge: Double { [0, 0.8, 1.2, 2, 3.5][rawValue] }

  /// The band of a clip whose reps took `secondsPerRep` each, on average.
  public init(secondsPerRep: Double) {
    self = Self.allCases.last { secondsPerRep >= $0.lowerEdge } ?? .quick
  }

  /// How the band is written in tables: `under 0.8 s`, `0.8-1.2 s`, …, `over 3.5 s`.
  public var title: String {
    switch self {
    case .quick: "under 0.8 s"
    case .brisk: "0.8-1.2 s"
    case .usual: "1.2-2 s"
    case .controlled: "2-3.5 s"
    case .slow: "over 3.5 s"
    }
  }

  /// The band's name in JSON: `under_0.8`, `0.8-1.2`, …, `over_3.5`.
  public var key: String {
    switch self {
    case .quick: "under_0.8"
    case .brisk: "0.8-1.2"
    case .usual: "1.2-2"
    case .controlled: "2-3.5"
    case .slow: "over_3.5"
    }
  }
}
