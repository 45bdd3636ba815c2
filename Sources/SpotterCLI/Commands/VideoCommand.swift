import ArgumentParsing
import Foundation
import History
import Poses
import Reporting
import Spotter
import VideoPoses

/// `spotter video FILE`: a video of a workout, made into poses by a detector Spotter runs
/// itself (BlazePose, in a Python environment it sets up once), then classified and counted
/// as `spotter classify` does (or, with `--exercise`, as `spotter count` does), with the video's
/// frames in the report.
///
/// A file's poses are written whole before the session reads them, rather than handed over
/// frame by frame: detection runs at tens of frames a second and the session at thousands, so
/// nothing is gained by overlapping them, and the session then reads a pose file like any
/// other, by the same code. A camera or a stream has no end to wait for: its poses go through
/// the session as they come (`runLive`, in `VideoCommand+Live.swift`).
enum VideoCommand {
  static let command = Command(
    name: "video",
    summary:
      "Find the exercises in a video, a camera or a stream, count their reps: poses by BlazePose.",
    arguments: [
      Argument(
        name: "FILE",
        help:
          "A video file (anything OpenCV's FFmpeg reads: MP4, MOV, AVI, MKV), or live: a camera "
          + "(/dev/video0, or its index 0) or a stream URL (rtsp://, http://, udp://).",
        optional: true)
    ],
    options: [
      .value("poses-out", "FILE", "Keep the poses: a pose file (JSON Lines, mediapipe33)."),
      .value(
        "exercise", "NAME",
        "Count this exercise throughout, with no classifier (as 'spotter count' does)."),
      .flag("json", "Print NDJSON events (README, 'Events') instead of a timeline."),
      RuntimeOptions.predictions,
      ReportCommand.option,
      .value(
        "history", "FILE|URL",
        "Live: the workout history to store the session in (SQLite file or postgresql:// URL).",
        default: HistoryLocation.standardDescription),
      .flag("no-history", "Live: do not store the session in the workout history."),
    ] + ViewOption.options + RuntimeOptions.options + [
      .flag(
        "setup",
        "Set up the pose detector if it is not yet and say where it is; without FILE, only that.")
    ],
    discussion: """
      The first run sets the detector up: a Python virtual environment under
      $XDG_CACHE_HOME/spotter (else ~/.cache/spotter) with MediaPipe 0.10.14 from PyPI, about
      410 MB; it needs Python 3.9 to 3.12 with venv and pip (SPOTTER_PYTHON picks one). The
      pose file holds BlazePose's 33 landmarks in the video's pixels at the video's own frame
      times, each with the detector's visibility as its score, and frames of nobody as such.
      The report (--report) shows frames of the video with the pose drawn over them. With
      --exercise nothing is classified, so the classifier's options (--weights, --stride,
      --enter, --dwell, --exit) are refused, as 'spotter count' refuses them. Progress goes to
      standard error on a terminal.

      Live (a camera or a stream): the poses go through the session as they come and events
      are printed as they happen; when the detector is slower than the camera, the newest frame
      wins and the others are dropped and counted. The session runs until the stream ends or
      Ctrl-C, then prints its summary, writes the report (with frames kept during the session)
      and stores one record in the workout history; standard error gets the frames dropped and
      the capture-to-event latency (p50, p99). With --json each event decided by a frame has
      capture_t (that frame's stream time) and latency (seconds from its capture). A source
      that fails part-way (no frame for 5 s, unplugged) does the same, then fails with why.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let setupOnly = arguments.flag("setup")
    let video = arguments.positional(0)
    guard video != nil || setupOnly else {
      throw CLIError.usage("missing argument FILE", command: command)
    }
    // Everything the command line can get wrong is found before the minutes of work.
    let reportFile = arguments.values["report"]
    if let reportFile { try ReportCommand.checkWritable(reportFile) }
    let posesOut = arguments.values["poses-out"]
    if let posesOut { try ReportCommand.checkWritable(posesOut, option: "--poses-out") }
    try checkApart(
      video: video.flatMap { LiveInput($0) == nil ? $0 : nil },
      outputs: [("--poses-out", posesOut), ("--report", reportFile)])
    let goals = try RuntimeOptions.goals(arguments)
    let definition = try arguments.values["exercise"].map {
      try CountCommand.definition(
        named: $0, in: try ExerciseCatalogueOption.load(arguments), command: command)
    }
    if definition != nil,
      let given = classifierOptions.first(where: { arguments.values[$0] != nil })
    {
      throw CLIError.usage(
        "--\(given) is for the classifier, and with --exercise nothing is classified "
          + "(as in 'spotter count')", command: command)
    }
    if let definition, let other = goals.first(where: { !$0.applies(to: definition.name) }) {
      throw CLIError.usage(
        "--goal \(other) is for \(other.exercise!); this counts \(definition.name)",
        command: command)
    }
    let runtime = definition == nil ? try RuntimeOptions.runtime(arguments) : nil
    let live = video.flatMap(LiveInput.init)
    if live == nil,
      let given = liveOptions.first(where: {
        arguments.values[$0] != nil || arguments.flags.contains($0)
      })
    {
      throw CLIError.usage(
        "--\(given) is for a live source (a camera or a stream URL), not a file",
        command: command)
    }
    if let video, live == nil {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: video, isDirectory: &isFolder),
        !isFolder.boolValue
      else { throw VideoError.noSuchVideo(path: video) }
    }

    var environment = DetectorEnvironment()
    // Stopped (Ctrl-C), the command stops the detector's processes too.
    environment.watcher = ChildWatcher(
      started: { InterruptCleanup.stop(onInterrupt: $0) },
      ended: { InterruptCleanup.forget(pid: $0) })
    if try environment.prepare(say: { Terminal.error($0) }) || setupOnly {
      Terminal.error(
        "Pose detector ready: \(environment.folder) "
          + "(\(ByteCountFormatter.string(fromByteCount: environment.diskBytes, countStyle: .file)))."
      )
    }
    guard let video else { return 0 }
    if let live {
      return try runLive(
        live, arguments, definition: definition, runtime: runtime, goals: goals,
        reportFile: reportFile, posesOut: posesOut, environment: environment)
    }

    let poses =
      posesOut
      ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(
        "spotter-video-\(getpid()).jsonl")
    if posesOut == nil { InterruptCleanup.remove(onInterrupt: poses) }
    defer {
      if posesOut == nil {
        try? FileManager.default.removeItem(atPath: poses)
        InterruptCleanup.forget(poses)
      }
    }
    let detected = try detect(video, to: poses, environment: environment)
    Terminal.error(summary(of: detected, video: video))
    if let posesOut { Terminal.error("Poses: \(posesOut)") }

    let source = try PoseFiles.open(poses)
    let output = TextOutput.standardOutput()
    let addFrames = { (report: SessionReport, recorder: ReportRecorder) in
      try withFrames(
        report, recorder: recorder, name: URL(fileURLWithPath: video).lastPathComponent,
        width: detected.width, height: detected.height, frameTimes: detected.frameTimes
      ) { try VideoStillGrabber.grab(video: video, $0, environment: environment) }
    }
    if let definition {
      try CountCommand.countAndPrint(
        source, definition: definition, goals: goals, json: arguments.flag("json"),
        reportFile: reportFile, output: output, finishReport: addFrames)
    } else {
      try ClassifyCommand.classify(
        source, runtime: runtime!, json: arguments.flag("json"), reportFile: reportFile,
        output: output, finishReport: addFrames)
    }
    return 0
  }

  /// The detector over the whole video, with its progress on a terminal: frames, the
  /// detector's rate, and the time left.
  private static func detect(
    _ video: String, to poses: String, environment: DetectorEnvironment
  ) throws -> VideoPoseDetector.Detected {
    var progress: ProgressLine?
    let partial = VideoPoseDetector.temporaryPath(for: poses)
    InterruptCleanup.remove(onInterrupt: partial)
    defer {
      InterruptCleanup.forget(partial)
      progress?.finish()
    }
    return try VideoPoseDetector.detect(video: video, to: poses, environment: environment) {
      state in
      let shown = progress ?? ProgressLine(total: state.expectedFrames ?? 0, unit: "video: frame")
      progress = shown
      // The rate is known from the second frame on (the first loads the models).
      var detail = "starting the detector"
      if state.framesPerSecond > 0 {
        detail = "\(Int(state.framesPerSecond.rounded())) frames/s"
        if let left = state.secondsLeft { detail += ", " + ReportPage.clock(left) + " left" }
      }
      shown.advance(to: state.frames, detail: detail)
    }
  }

  /// `vtest.avi: 795 frames (1:19.5), a person in 429 (54%); BlazePose at 52 frames/s.`
  static func summary(of detected: VideoPoseDetector.Detected, video: String) -> String {
    let share =
      detected.frames > 0
      ? Int((Double(detected.framesWithPerson) / Double(detected.frames) * 100).rounded()) : 0
    return
      "\(URL(fileURLWithPath: video).lastPathComponent): \(detected.frames) frames "
      + "(\(ReportPage.clock(detected.frameTimes.last ?? 0))), a person in "
      + "\(detected.framesWithPerson) (\(share)%); BlazePose at "
      + "\(Int(detected.detection.framesPerSecond.rounded())) frames/s."
  }

  /// The options only a live session has: a file's session is not stored, and has no page.
  static let liveOptions = ["history", "no-history", "view", "view-token-file"]

  /// The runtime's options that only the classifier uses: `spotter count` has none of them.
  static let classifierOptions = ["weights", "stride", "enter", "low", "dwell", "exit"]

  /// Refuses outputs that name the video, or each other, however they name it (another path,
  /// a symlink, a hard link): the pose file is renamed over its path and the page written over
  /// its own, so either would replace the video, or the poses the page.
  ///
  /// - Throws: `CLIError.usage` naming both.
  static func checkApart(video: String?, outputs: [(option: String, path: String?)]) throws {
    var named = outputs.compactMap { output in output.path.map { ("\(output.option) \($0)", $0) } }
    if let video { named.insert(("the video \(video)", video), at: 0) }
    for (index, first) in named.enumerated() {
      for second in named[(index + 1)...] where fileIdentity(first.1) == fileIdentity(second.1) {
        throw CLIError.usage("\(second.0) is the same file as \(first.0)", command: command)
      }
    }
  }

  /// What a path names once every symlink is followed: the file's device and inode when it
  /// exists, else its folder's real path and its name.
  static func fileIdentity(_ path: String) -> String {
    var info = stat()
    if stat(path, &info) == 0 { return "inode \(info.st_dev):\(info.st_ino)" }
    let url = URL(fileURLWithPath: path)
    guard let folder = realpath(url.deletingLastPathComponent().path, nil) else {
      return url.standardized.path
    }
    defer { free(folder) }
    return String(cString: folder) + "/" + url.lastPathComponent
  }
}
