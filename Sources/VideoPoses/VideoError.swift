/// What can stop a video from becoming poses: each says what was wrong, where, and what to do.
public enum VideoError: Error, Equatable, CustomStringConvertible {
  /// The video file is not there (or is a folder).
  case noSuchVideo(path: String)
  /// No Python the detector's wheels are made for; `tried` says what each candidate was.
  case noPython(tried: [String])
  /// A step of setting up the detector's environment failed; `detail` is what the tool said,
  /// `log` the file with all of it.
  case setupFailed(step: String, detail: String, log: String?)
  /// The decoder could not read the file as a video.
  case notAVideo(path: String, detail: String)
  /// A video whose codec the decoder has no decoder for, or whose frames it cannot decode.
  case unreadableCodec(path: String, detail: String)
  /// A video with no frames in it.
  case noFrames(path: String)
  /// The helper process stopped or said something it should not have.
  case helperFailed(detail: String)
  /// A camera or stream that gave no frame: no such device, nothing answering at the URL, a
  /// stream that ended or went silent before its first frame.
  case liveSourceUnavailable(source: LiveInput, detail: String)
  /// A camera or stream that stopped giving frames part-way: silent for 5 s, unplugged.
  case liveSourceFailed(source: LiveInput, detail: String)

  public var description: String {
    switch self {
    case .noSuchVideo(let path):
      "no such video file: \(path)"
    case .noPython(let tried):
      "no Python \(PythonInterpreter.supported.description) to run the pose detector in ("
        + tried.joined(separator: "; ")
        + "); install one (Debian: apt-get install python3 python3-venv) or set SPOTTER_PYTHON "
        + "to its path"
    case .setupFailed(let step, let detail, let log):
      "could not set up the pose detector: \(step) failed: \(detail)"
        + (log.map { " (all of its output: \($0))" } ?? "")
    case .notAVideo(let path, let detail):
      "\(path) is not a video that can be read: \(detail)"
    case .unreadableCodec(let path, let detail):
      "cannot decode the video \(path): \(detail)"
    case .noFrames(let path):
      "the video \(path) has no frames"
    case .helperFailed(let detail):
      "the pose detector failed: \(detail)"
    case .liveSourceUnavailable(let source, let detail):
      "cannot read \(source): \(detail)"
    case .liveSourceFailed(let source, let detail):
      "\(source) failed: \(detail)"
    }
  }

  /// What to do about it, for the command line's hint. The environment named is the one this
  /// process's `XDG_CACHE_HOME` and `HOME` give, the one `spotter video` runs in.
  public var hint: String {
    switch self {
    case .noSuchVideo: "give the path of a video file (MP4, AVI, MOV, MKV...)."
    case .noPython, .setupFailed:
      "the detector's environment is set up once, under $XDG_CACHE_HOME/spotter "
        + "(~/.cache/spotter), and needs Python with venv and pip, and PyPI."
    case .notAVideo, .unreadableCodec, .noFrames:
      "the detector reads videos through OpenCV's FFmpeg: re-encode the video as H.264 MP4 "
        + "(ffmpeg -i IN -c:v libx264 OUT.mp4)."
    case .liveSourceUnavailable(let source, _), .liveSourceFailed(let source, _):
      switch source {
      case .camera:
        "give a camera that is plugged in (ls /dev/video*; v4l2-ctl --list-devices lists them) "
          + "and that no other program holds."
      case .stream:
        "check that the stream plays on this machine (ffplay URL); Spotter reads what OpenCV's "
          + "FFmpeg reads: rtsp://, http://, udp://, with the camera's own path and port."
      }
    case .helperFailed:
      "run it again; if it fails the same way, the message above says where, and if it is the "
        + "detector's environment that is broken, delete \(DetectorEnvironment().folder) and the "
        + "next run sets it up again."
    }
  }
}
