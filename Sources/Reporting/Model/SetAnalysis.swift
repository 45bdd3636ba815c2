import Poses

/// What a set's reps say taken together: a typical rep and the worst, the trend from the first
/// reps to the last, and left against right.
public struct SetAnalysis: Codable, Equatable, Sendable {
  /// The median range of motion of the set's reps, in the signal's units.
  public var medianRange: Double
  public var typical: RepFigures?
  /// The shallowest rep, when the set has more than one.
  public var worst: RepFigures?
  public var trend: Trend?
  /// Per side, for exercises done a side at a time.
  public var sides: [SideSummary]

  /// The analysis of `reps`; `pose(at:)` gives the person's pose at a stream time, for the
  /// figures (nil when nobody was seen then). Nil for a set without reps.
  public static func make(reps: [RepMark], pose: (Double) -> Pose?) -> SetAnalysis? {
    guard !reps.isEmpty else { return nil }
    let median = Self.median(reps.map(\.rangeOfMotion))
    // The typical rep is a full one (unless none is) whose range is nearest the median's.
    let full = reps.filter { !$0.partial }
    let pool = full.isEmpty ? reps : full
    let fullMedian = Self.median(pool.map(\.rangeOfMotion))
    let typical = pool.min {
      abs($0.rangeOfMotion - fullMedian) < abs($1.rangeOfMotion - fullMedian)
    }!
    var worst: RepMark?
    if reps.count > 1 {
      worst = reps.min { $0.rangeOfMotion < $1.rangeOfMotion }
      if worst?.count == typical.count { worst = nil }
    }
    func figures(_ rep: RepMark, why: String) -> RepFigures? {
      guard let top = pose(rep.start), let bottom = pose(rep.bottom) else { return nil }
      return RepFigures(
        count: rep.count, why: why, start: StickPose(t: rep.start, pose: top),
        turn: StickPose(t: rep.bottom, pose: bottom))
    }
    let worstWhy = worst.map { rep in
      let share = fullMedian > 0 ? rep.rangeOfMotion / fullMedian : 1
      return "shallowest: \(Int((share * 100).rounded()))% of the typical range"
        + (rep.partial ? ", partial" : "") + (rep.cue.map { " (cue: \($0))" } ?? "")
    }
    return SetAnalysis(
      medianRange: median,
      typical: figures(typical, why: "range nearest the set's median"),
      worst: worst.flatMap { figures($0, why: worstWhy!) },
      trend: Trend(reps), sides: SideSummary.sides(of: reps))
  }

  static func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}

/// A rep drawn as the body where it starts and where it turns back: the top and the bottom of
/// a squat, the bottom and the top of a curl.
public struct RepFigures: Codable, Equatable, Sendable {
  /// The rep's number in the set.
  public var count: Int
  /// Why this rep was chosen.
  public var why: String
  public var start: StickPose
  public var turn: StickPose
}

/// One pose for a stick figure: the 18 canonical joints (COCO-18 order), nil where missing.
public struct StickPose: Codable, Equatable, Sendable {
  public struct Point: Codable, Equatable, Sendable {
    public var x: Float
    public var y: Float
  }

  public var t: Double
  public var joints: [Point?]

  public init(t: Double, pose: Pose) {
    self.t = t
    joints = CanonicalJoint.allCases.map { joint in
      let seen = pose[joint]
      return seen.isMissing ? nil : Point(x: seen.x, y: seen.y)
    }
  }
}

/// How the set changed from its first reps to its last: the mean of the first third against
/// the mean of the last third (sets of four reps or more).
public struct Trend: Codable, Equatable, Sendable {
  public var firstRange: Double
  public var lastRange: Double
  public var firstDuration: Double
  public var lastDuration: Double

  /// A tenth less range, or a sixth more time, reads as a change rather than the wobble between
  /// one rep and the next (steady synthetic sets stay within both).
  static let shallowerBelow = 0.9
  static let slowerAbove = 1.15

  init?(_ reps: [RepMark]) {
    guard reps.count >= 4 else { return nil }
    let third = (reps.count + 2) / 3
    func mean(_ slice: ArraySlice<RepMark>, _ value: (RepMark) -> Double) -> Double {
      slice.reduce(0) { $0 + value($1) } / Double(slice.count)
    }
    let first = reps.prefix(third)
    let last = reps.suffix(third)
    firstRange = mean(first, \.rangeOfMotion)
    lastRange = mean(last, \.rangeOfMotion)
    firstDuration = mean(first, \.duration)
    lastDuration = mean(last, \.duration)
  }

  public var shallower: Bool { lastRange < Self.shallowerBelow * firstRange }
  public var slower: Bool { lastDuration > Self.slowerAbove * firstDuration }
  /// Slower or shallower by the end: the person is tiring.
  public var tiring: Bool { shallower || slower }
}

/// One side's reps, for exercises done a side at a time.
public struct SideSummary: Codable, Equatable, Sendable {
  public var side: String
  public var reps: Int
  public var medianRange: Double
  public var medianTimeDown: Double
  public var medianTimeUp: Double

  static func sides(of reps: [RepMark]) -> [SideSummary] {
    let names = Set(reps.compactMap(\.side)).sorted()
    return names.map { name in
      let mine = reps.filter { $0.side == name }
      return SideSummary(
        side: name, reps: mine.count, medianRange: SetAnalysis.median(mine.map(\.rangeOfMotion)),
        medianTimeDown: SetAnalysis.median(mine.map(\.timeDown)),
        medianTimeUp: SetAnalysis.median(mine.map(\.timeUp)))
    }
  }
}
