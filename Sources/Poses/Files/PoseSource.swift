/// One decoded frame: its time and every person in it, as canonical poses in Spotter's space.
///
/// Readers fill a caller's frame in place and reuse its storage, so steady reading allocates
/// nothing.
public struct PeopleFrame: Sendable {
  /// Seconds; never decreases within a stream.
  public var t: Double = 0
  /// Everyone detected in the frame; empty when nobody was.
  public var people: [Pose] = []
  /// Where the frame came from: the line (or, for a folder, the file's 1-based index).
  public var line: Int = 0
  /// What a frame that a pipeline normalised to its own box spans in Spotter's coordinates,
  /// 0…box on each axis (`CoordinateSpace.frameBox`).
  public var box: (x: Float, y: Float) = (1, 1)

  public init() { people.reserveCapacity(4) }
}

/// What reading one more frame gave.
public enum PoseReadResult: Sendable {
  /// The frame was filled in.
  case frame
  /// A bad line, reported and skipped; the stream goes on after it.
  case skipped(PoseFileError)
  /// No more frames.
  case end
}

/// A stream of frames from a pose file, a CSV, an OpenPose folder or standard input.
public protocol PoseSource: AnyObject {
  /// The file's header, or the one its format implies.
  var header: PoseFileHeader { get }
  /// The file's name, as errors give it.
  var name: String { get }
  /// Reads the next frame into `frame`. Throws only when the input cannot be read at all.
  func next(into frame: inout PeopleFrame) throws -> PoseReadResult
}

extension PoseSource {
  /// Reads to the end: each frame to `frame` (one `PeopleFrame` reused), then `afterFrame`;
  /// each line skipped to `skipped`.
  public func readAll(
    frame body: (PeopleFrame) throws -> Void, skipped: (PoseFileError) throws -> Void,
    afterFrame: () throws -> Void = {}
  ) throws {
    var frame = PeopleFrame()
    while true {
      switch try next(into: &frame) {
      case .end: return
      case .skipped(let error): try skipped(error)
      case .frame:
        try body(frame)
        try afterFrame()
      }
    }
  }
}

/// The frame-time rules every reader shares: a missing `t` is index / fps, and `t` never goes
/// back.
///
/// A frame before the previous one is skipped: jitter, or one frame stamped wrong. But when
/// two frames in a row are over a second before it, the clock jumped: the previous frame was
/// stamped far ahead, or the source restarted its clock. Skipping every later frame would lose
/// the rest of the stream, so from the second on, stated times are shifted to go on from the
/// previous frame's, keeping their spacing. A time beyond ±10¹² s (some 30,000 years) is refused:
/// past it, a double no longer tells frames a thirtieth of a second apart.
struct FrameClock {
  let fps: Double
  private(set) var index = 0
  private(set) var last: Double?
  /// Added to every stated time since the clock last jumped back.
  private var shift = 0.0
  /// Whether the last stated time was over `jumpBack` behind: one more, and the clock jumped.
  private var suspectJump = false
  /// How far back a frame must be for the clock to be suspected of a jump, not jitter.
  static let jumpBack = 1.0
  static let largest = 1e12

  init(fps: Double) { self.fps = fps }

  /// The time of the next frame, given the `t` it states; every frame line counts for the index,
  /// so a bad line does not shift the times of the rest.
  mutating func time(stated: Double?) -> Result<Double, FrameLineError> {
    defer { index += 1 }
    guard let stated else {
      let t = Double(index) / fps
      guard let last, t < last else { return .success(t) }
      return .failure(
        FrameLineError(
          column: 1,
          message:
            "the frame has no t, and its index / fps (\(t) s) is before the previous frame's "
            + "t = \(last)"))
    }
    guard abs(stated) <= Self.largest else {
      return .failure(
        FrameLineError(column: 1, message: "t = \(stated) is beyond ±10¹² s; t is in seconds"))
    }
    let wasSuspect = suspectJump
    suspectJump = false
    guard let last, stated + shift < last else { return .success(stated + shift) }
    let back = last - (stated + shift)
    if back > Self.jumpBack && wasSuspect {
      shift += back + 1 / fps  // this frame goes on from the previous one
      return .success(stated + shift)
    }
    let told = shift == 0 ? "t = \(stated)" : "t = \(stated) (\(stated + shift) as shifted)"
    guard back > Self.jumpBack else {
      return .failure(
        FrameLineError(
          column: 1,
          message:
            "\(told) is before the previous frame's t = \(last); t must never decrease"))
    }
    suspectJump = true
    return .failure(
      FrameLineError(
        column: 1,
        message:
          "\(told) is \((back * 1000).rounded() / 1000) s before the previous frame's "
          + "t = \(last); if the next frame is that far behind too, the clock jumped (a frame "
          + "stamped far ahead, or a source that restarted its clock) and later frames go on "
          + "from it"))
  }

  /// Accepts the time of a frame that was read in full.
  mutating func accept(_ t: Double) { last = t }

  /// Times a frame line that parsed: on success starts `frame` at that time and line (people
  /// cleared) and returns nil; otherwise the error for the line.
  mutating func stamp(_ frame: inout PeopleFrame, stated: Double?, line: Int, file: String)
    -> PoseFileError?
  {
    switch time(stated: stated) {
    case .failure(let error): return PoseFileError(file: file, line: line, message: error.message)
    case .success(let t):
      accept(t)
      frame.t = t
      frame.line = line
      frame.people.removeAll(keepingCapacity: true)
      return nil
    }
  }
}
