/// Decodes the frame lines of a JSON Lines pose stream, one line at a time, from bytes: what a
/// file reader and a network server both need once the header is known.
///
/// Keeps the stream's clock (frames without `t`, `t` never decreasing) and reuses its buffers,
/// so decoding a good line allocates nothing.
public struct PoseLineDecoder {
  /// Owns the joints' buffer, which the decoder's copies share (a decoder is a value; the
  /// buffer goes when the last copy does).
  ///
  /// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
  private final class Storage {
    @exclusivity(unchecked) var joints: JointValues
    init(capacity: Int) { joints = JointValues(capacity: capacity) }
    deinit { joints.deallocate() }
  }

  public let header: PoseFileHeader
  public let name: String
  private let parser: FrameLineParser
  private var clock: FrameClock
  private let storage: Storage

  public init(header: PoseFileHeader, name: String) {
    self.header = header
    self.name = name
    parser = FrameLineParser(jointNames: header.layout.jointNames)
    clock = FrameClock(fps: header.fps)
    storage = Storage(capacity: header.layout.jointCount * 3 * 4)
  }

  /// Decodes one frame line into `frame`: `.frame`, or `.skipped` with what was wrong.
  public mutating func decode(
    _ text: UnsafeBufferPointer<UInt8>, line: Int, into frame: inout PeopleFrame
  ) -> PoseReadResult {
    let parsed: FrameLineParser.Result
    do {
      parsed = try parser.parse(text, joints: &storage.joints)
    } catch {
      _ = clock.time(stated: nil)
      return .skipped(
        PoseFileError(file: name, line: line, column: error.column, message: error.message))
    }
    if let error = clock.stamp(&frame, stated: parsed.t, line: line, file: name) {
      return .skipped(error)
    }
    frame.box = header.space.frameBox
    let stride = header.layout.jointCount * 3
    let buffer = storage.joints.values
    for person in 0..<parsed.people {
      let raw = UnsafeBufferPointer(rebasing: buffer[person * stride..<(person + 1) * stride])
      frame.people.append(header.layout.canonicalPose(from: raw, space: header.space))
    }
    return .frame
  }

  /// Counts a line that could not even be read (too long) in the stream's clock.
  public mutating func skipLine() { _ = clock.time(stated: nil) }
}
