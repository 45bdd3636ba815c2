import Foundation
import Poses

/// A camera or a network stream as a pose stream: BlazePose in the helper process (its `live`
/// command), frame by frame, as the frames come.
///
/// The helper's reader thread reads every frame the source gives and keeps only the newest,
/// stamped with the monotonic clock as it is read; its detector takes that frame whenever it is
/// free. A frame replaced before the detector took it is dropped and counted, never queued, so
/// when the detector is slower than the camera the delay stays one frame long instead of
/// growing. A frame's time in the stream is its capture time less the first frame's: the rep
/// engines time reps by the capture clock, however many frames the detector skipped.
///
/// The stream ends when the source ends (a stream's sender closing), when `stop` asks (Ctrl-C),
/// or when the source fails (no frame for 5 s, a camera that stops giving frames); `ending`
/// says which. Frames arrive as the session runs (`next` blocks until the detector has the next
/// one), with the same poses a video's file would have (`mediapipe33` in the picture's pixels,
/// `VideoPoseDetector`). After the end, the helper still holds the frames it kept for the
/// report (`keepStills`), and `stills` cuts them, or `close` lets it go.
public final class LivePoseSource: PoseSource {
  /// Why the stream ended.
  public enum Ending: Equatable, Sendable {
    /// The source ended: the sender closed the stream.
    case ended
    /// `stop` asked (Ctrl-C, SIGTERM).
    case stopped
    /// The source failed after it gave frames, or the helper did.
    case failed(VideoError)
  }

  public let input: LiveInput
  public let header: PoseFileHeader
  public var name: String { input.description }
  /// The picture's size, in pixels.
  public let width: Int
  public let height: Int
  /// The frames detected so far, each one's time in the stream (for the report's stills).
  public private(set) var frameTimes: [Double] = []
  /// The frames the helper dropped so far: replaced by a newer one before the detector was
  /// free (and those that came while the detector loaded).
  public private(set) var dropped = 0
  /// The capture time (monotonic clock, seconds) of the frame read last.
  public private(set) var lastCapture: Double?
  /// The first frame's capture time: stream time 0.
  public private(set) var firstCapture: Double?
  /// The picture of the frame read last, when the helper sent one with it (`viewEvery`).
  public private(set) var picture: Data?
  /// Set once the stream is over.
  public private(set) var ending: Ending?
  /// Where each frame's poses are written as they come (`--poses-out`), if anywhere.
  public var poses: PoseFileWriter?

  private let helper: ChildProcess
  /// Whether the helper has ended (and been waited for) before the stream did: then it has no
  /// stills to give.
  private var helperEnded = false
  private var frame = PeopleFrame()
  private var raw: [Float] = []

  /// Opens `input` in the helper and waits for its first frame (up to the 5 s after which the
  /// helper gives up).
  ///
  /// - Parameters:
  ///   - viewEvery: seconds between the pictures the helper sends along (for the live page);
  ///     nil for none.
  ///   - keepStills: whether the helper keeps frames for the report's stills.
  /// - Throws: `VideoError.liveSourceUnavailable` for a source that gave no frame (the reason
  ///   the helper found), `.helperFailed` for a helper that failed.
  public init(
    _ input: LiveInput, environment: DetectorEnvironment, viewEvery: Double? = nil,
    keepStills: Bool = false
  ) throws {
    self.input = input
    var arguments = [try HelperScript.path(), "live", input.argument]
    if let viewEvery { arguments += ["--view-every", "\(viewEvery)"] }
    if keepStills { arguments.append("--keep-stills") }
    helper = try ChildProcess(
      environment.python, arguments, environment: environment.childEnvironment, talking: true,
      watcher: environment.watcher)
    guard let line = helper.nextLine() else {
      let (status, errors) = helper.finish()
      throw VideoError.helperFailed(
        detail: "it ended before reading \(input) (exit status \(status))"
          + (errors.isEmpty ? "" : ": " + errors))
    }
    let first: VideoPoseDetector.FirstLine
    do {
      first = try VideoPoseDetector.decodeFirstLine(line)
    } catch let problem as VideoPoseDetector.LineProblem {
      _ = helper.stop()
      throw VideoError.helperFailed(detail: "\(problem.text) as its first line")
    }
    switch first {
    case .error(_, let message):
      _ = helper.finish()
      throw VideoError.liveSourceUnavailable(source: input, detail: message)
    case .video(let facts):
      width = facts.width
      height = facts.height
      header = VideoPoseDetector.poseHeader(facts, source: input.description)
    }
    frame.box = header.space.frameBox
    raw.reserveCapacity(PoseLayout.mediapipe33.jointCount * 3)
  }

  /// The helper's standard input, to which a line `stop` ends the stream: for a signal
  /// handler, which may only `write(2)` (-1 once the helper has been let go).
  public var stopDescriptor: Int32 { helper.inputDescriptor }

  /// Asks the helper to end the stream after the frame it is on; `next` then reads to that end.
  public func stop() { helper.send("stop") }

  public func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
    guard ending == nil else { return .end }
    guard let line = helper.nextLine() else {
      let (status, errors) = helper.finish()
      helperEnded = true
      ending = .failed(
        .helperFailed(
          detail: "it stopped after \(frameTimes.count) frames (exit status \(status))"
            + (errors.isEmpty ? "" : ": " + errors)))
      return .end
    }
    if let end = Self.decodeEnd(line, source: input) {
      ending = end.ending
      dropped = end.dropped ?? dropped
      picture = nil
      return .end
    }
    let read: VideoPoseDetector.Frame
    do {
      guard let decoded = try VideoPoseDetector.decodeFrame(line) else {
        ending = .ended  // an end line decodeEnd did not read: the helper's plain end
        return .end
      }
      read = decoded
    } catch let problem as VideoPoseDetector.LineProblem {
      _ = helper.stop()
      helperEnded = true
      ending = .failed(
        .helperFailed(detail: "\(problem.text) after frame \(frameTimes.count)"))
      return .end
    }
    let captured = read.captured ?? CaptureLatency.now()
    let first = firstCapture ?? captured
    firstCapture = first
    // Microseconds, as a video's frame times are kept: far below a frame.
    let t = VideoFrameTimes.round(max(captured - first, frameTimes.last ?? 0))
    lastCapture = captured
    dropped = read.dropped ?? dropped
    picture = read.jpeg
    frameTimes.append(t)
    self.frame.t = t
    self.frame.line = frameTimes.count
    self.frame.people.removeAll(keepingCapacity: true)
    if let pose = read.pose {
      raw.removeAll(keepingCapacity: true)
      for joint in pose {
        raw.append(joint.x)
        raw.append(joint.y)
        raw.append(joint.confidence)
      }
      self.frame.people.append(
        raw.withUnsafeBufferPointer {
          PoseLayout.mediapipe33.canonicalPose(from: $0, space: header.space)
        })
    }
    frame = self.frame
    try poses?.write(t: t, layoutPeople: read.pose.map { [$0] } ?? [])
    return .frame
  }

  /// The helper's `end` line, read: why the stream ended and the frames dropped in all; nil
  /// for any other line.
  static func decodeEnd(_ line: String, source: LiveInput) -> (ending: Ending, dropped: Int?)? {
    guard let object = VideoPoseDetector.json(line), object["type"] as? String == "end" else {
      return nil
    }
    let message = object["message"] as? String
    let ending: Ending =
      switch object["why"] as? String {
      case "ended": .ended
      case "stopped": .stopped
      default:
        .failed(
          .liveSourceFailed(source: source, detail: message ?? "it stopped giving frames"))
      }
    return (ending, object["dropped"] as? Int)
  }

  /// The stills `requests` ask for, by their place in it, cut from the frames the helper kept
  /// (`keepStills`), each from the kept frame nearest the one asked for; then the helper ends.
  /// Only once the stream has ended; none when the helper ended before it (the report is
  /// written without pictures, its failure told by `ending`).
  ///
  /// - Throws: `VideoError.helperFailed` when the helper fails.
  public func stills(_ requests: [VideoStillGrabber.Request]) throws -> [Int: Data] {
    precondition(ending != nil, "stills come after the stream")
    guard !helperEnded else { return [:] }
    helper.send(try VideoStillGrabber.requestLine(requests))
    return try VideoStillGrabber.readStills(from: helper)
  }

  /// Lets the helper go (with no stills asked for) and waits for its end.
  public func close() {
    _ = helper.finish()
  }
}
