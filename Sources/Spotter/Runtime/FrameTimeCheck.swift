/// The times of a stream's frames as they come, from a caller that may send anything (the
/// library's, the C interface's): a frame whose time is not a finite number, or is before the
/// previous frame's, is refused with a message that says why; the rest of the stream goes on.
/// The pose-file readers mend such times before (`FrameClock`); a session cannot.
public struct FrameTimeCheck: Sendable {
  private var last = -Double.infinity

  public init() {}

  /// Nil when a frame at `t` can follow the frames so far (and it is taken as the last), else
  /// why it cannot.
  public mutating func problem(with t: Double) -> String? {
    guard t.isFinite else {
      return "frame time \(t) is not a finite number of seconds: frame skipped"
    }
    guard t >= last else {
      return "frame time \(t) s is before the previous frame's (\(last) s): frame skipped"
    }
    last = t
    return nil
  }
}
