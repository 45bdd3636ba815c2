import RepCounting

/// One clip as the tempo table reads it: what was done, how long it took, what was counted and
/// what the engine said. Nothing here knows how the events were made, so the frame loop that
/// makes them (`ClipScoring.countReps` today) can change without touching the table.
public struct TempoClip: Sendable {
  public var file: String
  public var label: String
  /// Reps done (the annotation's `reps`) and reps counted.
  public var done: Int
  public var counted: Int
  /// The annotated clip time, seconds (end − start).
  public var seconds: Double
  /// When each done rep was done, where annotated (`rep_bounds`); nil where not.
  public var repBounds: [ClosedRange<Double>]?
  /// The engine's `rep` and `rejected` events over the clip.
  public var events: [RepEvent]

  public init(
    file: String, label: String, done: Int, counted: Int, seconds: Double,
    repBounds: [ClosedRange<Double>]?, events: [RepEvent]
  ) {
    self.file = file
    self.label = label
    self.done = done
    self.counted = counted
    self.seconds = seconds
    self.repBounds = repBounds
    self.events = events
  }

  /// Seconds a rep: clip time ÷ reps done (nil with no reps done: no tempo).
  public var secondsPerRep: Double? { done > 0 ? seconds / Double(done) : nil }

  /// The band of its tempo (nil with no reps done).
  public var band: TempoBand? { secondsPerRep.map(TempoBand.init(secondsPerRep:)) }

  /// Done reps neither counted nor refused (nil without rep bounds); see `SilentMisses`.
  public var silentMisses: Int? {
    repBounds.map { SilentMisses.missed(done: $0, events: events).count }
  }

  var score: RepScore { RepScore(file: file, label: label, truth: done, counted: counted) }
}

/// Rep counting by tempo band: per band, the clips and their files, reps counted and done, the
/// relative MAE and share within one rep (as the rep table computes them), the clips counted
/// exactly, and the silent misses over the clips with rep bounds. Clips with no reps done have
/// no tempo and are left out.
public struct TempoTable: Sendable {
  public struct Row: Sendable, Equatable {
    /// nil: all bands.
    public var band: TempoBand?
    public var clips: Int
    /// Distinct files (videos) among the clips.
    public var files: Int
    public var counted: Int
    public var done: Int
    public var error: RepError
    /// Clips counted exactly.
    public var exact: Int
    /// Silent misses over the clips with rep bounds; nil when no clip of the row has them.
    public var silentMisses: Misses?
  }

  /// Done reps passed over in silence, of the done reps of the clips with rep bounds.
  public struct Misses: Sendable, Equatable {
    public var missed: Int
    public var done: Int
  }

  /// A row per band that has clips, fastest first, then the row of all of them (no rows when
  /// no clip has reps done).
  public let rows: [Row]

  public init(_ clips: [TempoClip]) {
    // Each clip's silent misses are matched once, for its band's row and the row of all.
    let timed = clips.filter { $0.band != nil }.map { (clip: $0, missed: $0.silentMisses) }
    var rows: [Row] = []
    for band in TempoBand.allCases {
      if let row = Self.row(band, timed.filter { $0.clip.band == band }) { rows.append(row) }
    }
    if let all = Self.row(nil, timed) { rows.append(all) }
    self.rows = rows
  }

  /// Whether any clip had rep bounds, so that silent misses were measured anywhere.
  public var measuresSilentMisses: Bool { rows.contains { $0.silentMisses != nil } }

  static func row(_ band: TempoBand?, _ timed: [(clip: TempoClip, missed: Int?)]) -> Row? {
    let clips = timed.map(\.clip)
    guard let error = clips.map(\.score).error() else { return nil }
    let bounded = timed.filter { $0.missed != nil }
    return Row(
      band: band, clips: clips.count, files: Set(clips.map(\.file)).count,
      counted: clips.reduce(0) { $0 + $1.counted }, done: clips.reduce(0) { $0 + $1.done },
      error: error, exact: clips.filter { $0.counted == $0.done }.count,
      silentMisses: bounded.isEmpty
        ? nil
        : Misses(
          missed: bounded.reduce(0) { $0 + $1.missed! },
          done: bounded.reduce(0) { $0 + ($1.clip.repBounds?.count ?? 0) }))
  }
}
