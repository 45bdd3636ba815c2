import Foundation

/// Small JPEGs of chosen frames of a video, cut and scaled by the helper process (OpenCV).
///
/// A report shows the frames at a typical rep's top and bottom, and which rep is typical is
/// known only once the set is over; so the frames are fetched after counting, in a second pass
/// over the video that decodes up to the last frame asked for and encodes only those. Keeping
/// a picture of every frame during detection to pick from later would cost far more (18,000
/// frames in ten minutes) for the dozens a page shows. The pose is not drawn into the JPEG:
/// the page draws it over the picture, with the same bones and colours as its stick figures.
public enum VideoStillGrabber {
  /// One picture wanted: a frame (its index in decoding order), the part of it to keep in the
  /// video's pixels (x, y, width, height), and the most pixels tall the JPEG may be.
  public struct Request: Sendable {
    public var frame: Int
    public var crop: (x: Double, y: Double, width: Double, height: Double)
    public var height: Int

    public init(
      frame: Int, crop: (x: Double, y: Double, width: Double, height: Double), height: Int
    ) {
      self.frame = frame
      self.crop = crop
      self.height = height
    }
  }

  /// The JPEGs of `requests`, by their position in it. A frame the decoder cannot give again
  /// is left out.
  ///
  /// - Throws: `VideoError` when the helper cannot read the video or fails.
  public static func grab(
    video: String, _ requests: [Request], environment: DetectorEnvironment
  ) throws -> [Int: Data] {
    guard !requests.isEmpty else { return [:] }
    let helper = try ChildProcess(
      environment.python, [try HelperScript.path(), "stills", video],
      environment: environment.childEnvironment, input: Data(try requestLine(requests).utf8),
      watcher: environment.watcher)
    return try readStills(from: helper)
  }

  /// `requests` as the helper reads them, one line of JSON (no newline): the `stills` command
  /// on its standard input, and the live helper after its stream.
  static func requestLine(_ requests: [Request]) throws -> String {
    let frames = requests.map { request in
      [
        "i": request.frame,
        "crop": [request.crop.x, request.crop.y, request.crop.width, request.crop.height],
        "height": request.height,
      ] as [String: Any]
    }
    return String(
      decoding: try JSONSerialization.data(withJSONObject: ["frames": frames]), as: UTF8.self)
  }

  /// The stills `helper` writes, to its end, by their place in the request.
  ///
  /// - Throws: `VideoError.helperFailed` for a line that is not a still, or a helper that fails.
  static func readStills(from helper: ChildProcess) throws -> [Int: Data] {
    var stills: [Int: Data] = [:]
    while let line = helper.nextLine() {
      let still: (index: Int, jpeg: Data)
      do {
        still = try decodeStill(line)
      } catch let problem as VideoPoseDetector.LineProblem {
        _ = helper.stop()
        throw VideoError.helperFailed(detail: "reading frames again: \(problem.text)")
      }
      stills[still.index] = still.jpeg
    }
    let (status, errors) = helper.finish()
    guard status == 0 else {
      throw VideoError.helperFailed(
        detail: "reading frames again: exit status \(status)"
          + (errors.isEmpty ? "" : ": " + errors))
    }
    return stills
  }

  /// One line of the helper's `stills`: which still it is (its place in the requests) and its
  /// JPEG.
  ///
  /// - Throws: `VideoError.helperFailed` for the helper's `error` line (the video cannot be
  ///   read again); `VideoPoseDetector.LineProblem` for a line that is not a JSON object, or not a still
  ///   with its JPEG in base64.
  static func decodeStill(_ line: String) throws -> (index: Int, jpeg: Data) {
    guard let object = VideoPoseDetector.json(line) else {
      throw VideoPoseDetector.LineProblem(
        text: "a line that is not a JSON object, \(VideoPoseDetector.quote(line))")
    }
    if object["type"] as? String == "error" {
      throw VideoError.helperFailed(
        detail: "reading frames again: \(object["message"] as? String ?? line)")
    }
    guard let index = object["k"] as? Int, let text = object["jpeg"] as? String,
      let jpeg = Data(base64Encoded: text)
    else {
      throw VideoPoseDetector.LineProblem(
        text: "a line that is not a still (k, jpeg in base64), \(VideoPoseDetector.quote(line))")
    }
    return (index, jpeg)
  }
}
