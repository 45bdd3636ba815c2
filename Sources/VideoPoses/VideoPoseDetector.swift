import Foundation
import Poses

/// A video made into a pose file: every frame decoded and run through BlazePose (MediaPipe
/// 0.10.14, the full landmark model) in the helper process, written as Spotter's JSON Lines.
///
/// The file keeps what the detector gives and decides nothing for the runtime: BlazePose's 33
/// landmarks (`mediapipe33`) in the video's pixels, top-left origin, each with its
/// `visibility` as the joint's score; a frame in which nobody was found as a frame of nobody
/// (`"people":[]`), never skipped; each frame at the video's own time (`VideoFrameTimes`).
/// BlazePose names the person's own sides in an image as the camera took it (a person facing
/// the camera has their left shoulder on the image's right, as Create ML's joints do), so the
/// file is not `mirrored`. The header names the video, the detector and its model (`source`,
/// `detector`, `video`), and the image size. Its scores are read like any detector's: the
/// runtime's `ScoreScale` and the presence threshold do that for every source alike.
///
/// The file is written under a temporary name beside `path` and renamed when the last frame is
/// in, so a failed or stopped run leaves no half-written pose file behind.
public enum VideoPoseDetector {
  /// What the run found.
  public struct Detected: Sendable {
    public var width: Int
    public var height: Int
    /// Each decoded frame's stream time: frame `i` is at `frameTimes[i]`.
    public var frameTimes: [Double]
    /// Frames in which BlazePose found a person.
    public var framesWithPerson: Int
    /// How the run ended: its frames, seconds and the detector's rate, as the last progress
    /// report had them.
    public var detection: Progress

    public var frames: Int { frameTimes.count }
  }

  /// How far the run is, after each frame.
  public struct Progress: Sendable {
    public var frames: Int
    /// The container's frame count, when it says (an estimate for some formats).
    public var expectedFrames: Int?
    /// Seconds since the first frame's poses came.
    public var seconds: Double

    /// Frames detected a second (the first frame, which loads the models, not counted).
    public var framesPerSecond: Double {
      frames > 1 && seconds > 0 ? Double(frames - 1) / seconds : 0
    }

    /// Seconds until the last frame at the rate so far, when both are known.
    public var secondsLeft: Double? {
      guard let expected = expectedFrames, framesPerSecond > 0 else { return nil }
      return Double(max(0, expected - frames)) / framesPerSecond
    }
  }

  /// Runs the detector over `video` and writes the poses to `path`.
  ///
  /// - Parameter progress: called after each frame (on this thread).
  /// - Throws: `VideoError` for a video that cannot be read (not a video, a codec without a
  ///   decoder, no frames) or a helper that fails; `PoseFileError` when `path` cannot be
  ///   written.
  public static func detect(
    video: String, to path: String, environment: DetectorEnvironment,
    progress: (Progress) -> Void = { _ in }
  ) throws -> Detected {
    let helper = try ChildProcess(
      environment.python, [try HelperScript.path(), "detect", video],
      environment: environment.childEnvironment, watcher: environment.watcher)
    let first = try header(helper.nextLine(), of: helper, video: video)
    let partial = temporaryPath(for: path)
    defer { try? FileManager.default.removeItem(atPath: partial) }
    var detected = Detected(
      width: first.width, height: first.height, frameTimes: [], framesWithPerson: 0,
      detection: Progress(frames: 0, expectedFrames: first.frames, seconds: 0))
    do {
      let writer = try PoseFileWriter(
        path: partial, format: .jsonl,
        header: poseHeader(first, source: URL(fileURLWithPath: video).lastPathComponent))
      var clock = VideoFrameTimes(fps: first.fps)
      var started: Date?
      var ended = false
      while let line = helper.nextLine() {
        let frame: Frame?
        do {
          frame = try decodeFrame(line)
        } catch let problem as LineProblem {
          _ = helper.stop()
          let place =
            clock.times.isEmpty ? "before the first frame" : "after frame \(clock.times.count)"
          throw VideoError.helperFailed(detail: "\(problem.text) \(place)")
        }
        guard let frame else {
          ended = true
          break
        }
        let t = clock.next(milliseconds: frame.milliseconds)
        try writer.write(t: t, layoutPeople: frame.pose.map { [$0] } ?? [])
        if frame.pose != nil { detected.framesWithPerson += 1 }
        let now = Date()
        started = started ?? now
        detected.detection.frames = clock.times.count
        detected.detection.seconds = now.timeIntervalSince(started!)
        progress(detected.detection)
      }
      let (status, errors) = helper.finish()
      guard ended, status == 0 else {
        throw VideoError.helperFailed(
          detail: "it stopped after \(clock.times.count) frames (exit status \(status))"
            + (errors.isEmpty ? "" : ": " + errors))
      }
      try writer.close()
      detected.frameTimes = clock.times
    }
    guard rename(partial, path) == 0 else {
      throw PoseFileError(
        file: path, message: "cannot write the pose file: \(String(cString: strerror(errno)))")
    }
    return detected
  }

  /// The name a file is written under until it is whole: hidden, beside it, this process's.
  public static func temporaryPath(for path: String) -> String {
    let url = URL(fileURLWithPath: path)
    return url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).partial-\(getpid())"
    ).path
  }

  // MARK: the helper's lines

  /// The helper's first line: the video's facts and the detector's, or its error.
  struct VideoLine {
    var width: Int
    var height: Int
    var fps: Double?
    var frames: Int?
    var codec: String?
    /// The `detector` object as JSON text, for the pose file's header.
    var detector: String
    /// What a live source is (`camera` or `stream`); nil for a file.
    var live: String?
  }

  /// The helper's first line, read: the video's facts, or the error it reports about the
  /// video. A line that is neither stops the helper at once (it would otherwise go on through
  /// the whole video before its end could be waited for).
  ///
  /// - Throws: `VideoError.notAVideo`, `.unreadableCodec` or `.noFrames` as the helper
  ///   reports; `.helperFailed` when it ended without a line, or its line is not one of these.
  static func header(_ line: String?, of helper: ChildProcess, video: String) throws -> VideoLine {
    guard let line else {
      let (status, errors) = helper.finish()
      throw VideoError.helperFailed(
        detail: "it ended before reading the video (exit status \(status))"
          + (errors.isEmpty ? "" : ": " + errors))
    }
    let first: FirstLine
    do {
      first = try decodeFirstLine(line)
    } catch let problem as LineProblem {
      _ = helper.stop()
      throw VideoError.helperFailed(detail: "\(problem.text) as its first line")
    }
    switch first {
    case .video(let facts):
      return facts
    case .error(let kind, let message):
      _ = helper.finish()
      switch kind {
      case "codec": throw VideoError.unreadableCodec(path: video, detail: message)
      case "empty": throw VideoError.noFrames(path: video)
      default: throw VideoError.notAVideo(path: video, detail: message)
      }
    }
  }

  /// What the helper's first line says.
  enum FirstLine {
    case video(VideoLine)
    /// The video cannot be read: `kind` is `open`, `codec` or `empty`.
    case error(kind: String?, message: String)
  }

  /// A line of the helper's that is not what it should be: `text` says what it was, quoting
  /// it, for an error that then says where it came.
  struct LineProblem: Error, Equatable {
    var text: String
  }

  /// The longest part of a bad line quoted in an error: enough to recognise it by, not a
  /// whole frame's 33 landmarks.
  static let quoted = 200

  static func quote(_ line: String) -> String {
    line.count <= quoted ? "'\(line)'" : "'\(line.prefix(quoted))...'"
  }

  /// The helper's first line, read.
  ///
  /// - Throws: `LineProblem` for a line that is not a JSON object, or neither the video's facts (a
  ///   `video` line with a width, a height and the detector) nor an `error` line.
  static func decodeFirstLine(_ line: String) throws -> FirstLine {
    guard let object = json(line) else {
      throw LineProblem(text: "a line that is not a JSON object, \(quote(line)),")
    }
    if object["type"] as? String == "error" {
      return .error(
        kind: object["kind"] as? String,
        message: object["message"] as? String ?? "no reason given")
    }
    guard object["type"] as? String == "video", let width = object["width"] as? Int,
      let height = object["height"] as? Int, width > 0, height > 0,
      let detector = object["detector"],
      let detectorText = try? JSONSerialization.data(
        withJSONObject: detector, options: [.sortedKeys])
    else {
      throw LineProblem(
        text: "\(quote(line)) where the video's facts (type video, width, height, detector) "
          + "should be,")
    }
    return .video(
      VideoLine(
        width: width, height: height, fps: object["fps"] as? Double,
        frames: object["frames"] as? Int, codec: object["codec"] as? String,
        detector: String(decoding: detectorText, as: UTF8.self), live: object["live"] as? String))
  }

  /// The pose file's header for a video whose facts are `video`, read from `source`: a file's
  /// name (the `video` object's `file`), or a camera or a stream's URL (its `live` says which).
  static func poseHeader(_ video: VideoLine, source: String) -> PoseFileHeader {
    var space = CoordinateSpace()
    space.units = .pixels
    space.origin = .topLeft
    space.imageWidth = Float(video.width)
    space.imageHeight = Float(video.height)
    var facts: [String: Any] = video.live.map { ["live": $0] } ?? ["file": source]
    if let frames = video.frames { facts["frames"] = frames }
    if let codec = video.codec { facts["codec"] = codec }
    let factsText =
      (try? JSONSerialization.data(withJSONObject: facts, options: [.sortedKeys]))
      .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    return PoseFileHeader(
      layout: .mediapipe33, space: space, fps: video.fps.map { min(max($0, 0.01), 10_000) } ?? 30,
      source: source, extra: ["detector": video.detector, "video": factsText])
  }

  /// One frame as the helper gives it: the decoder's time of it, in milliseconds (nil when it
  /// has none), and BlazePose's landmarks (nil: nobody found). A live source's frame has its
  /// capture time instead (the helper's monotonic clock, seconds), the frames dropped so far,
  /// and now and then the picture, for the live page.
  struct Frame: Equatable {
    var milliseconds: Double?
    var pose: [Joint]?
    var captured: Double? = nil
    var dropped: Int? = nil
    var jpeg: Data? = nil
  }

  /// One frame line; nil for the `end` line.
  ///
  /// - Throws: `LineProblem` for a line that is not a JSON object, not a frame, or whose `pose` is
  ///   neither null nor BlazePose's 33 landmarks of `[x, y, visibility]`: a pose the helper
  ///   sent and Spotter could not read is never taken for a frame of nobody.
  static func decodeFrame(_ line: String) throws -> Frame? {
    guard let object = json(line) else {
      throw LineProblem(text: "a line that is not a JSON object, \(quote(line)),")
    }
    if object["type"] as? String == "end" { return nil }
    guard object["i"] is Int else {
      throw LineProblem(text: "a line that is not a frame, \(quote(line)),")
    }
    var frame = Frame(milliseconds: object["ms"] as? Double, pose: nil)
    frame.captured = object["c"] as? Double
    frame.dropped = object["dropped"] as? Int
    if let text = object["jpeg"] as? String {
      guard let jpeg = Data(base64Encoded: text) else {
        throw LineProblem(text: "a frame whose jpeg is not base64, \(quote(line)),")
      }
      frame.jpeg = jpeg
    }
    guard let given = object["pose"], !(given is NSNull) else { return frame }
    let count = PoseLayout.mediapipe33.jointCount
    guard let landmarks = given as? [Any] else {
      throw LineProblem(
        text: "a pose that is not a list of \(count) landmarks [x, y, visibility], "
          + "\(quote(line)),")
    }
    guard landmarks.count == count else {
      throw LineProblem(
        text: "a pose of \(landmarks.count) landmarks, not BlazePose's \(count), \(quote(line)),")
    }
    var joints: [Joint] = []
    for (index, landmark) in landmarks.enumerated() {
      guard let numbers = landmark as? [Double], numbers.count == 3 else {
        throw LineProblem(
          text: "a pose whose landmark \(index) is not [x, y, visibility], \(quote(line)),")
      }
      joints.append(
        Joint(x: Float(numbers[0]), y: Float(numbers[1]), confidence: Float(numbers[2])))
    }
    frame.pose = joints
    return frame
  }

  static func json(_ line: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }
}
