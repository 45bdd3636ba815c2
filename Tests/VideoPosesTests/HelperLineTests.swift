import Foundation
import TestSupport
import Testing

@testable import VideoPoses

/// The helper's lines as Spotter reads them: a line that is not what it should be is an error
/// that quotes it, never a frame of nobody.
@Suite struct HelperLineTests {
  static let landmark = "[1.5,2,0.9]"
  static func pose(_ landmarks: [String]) -> String {
    "{\"i\":4,\"ms\":400.0,\"pose\":[" + landmarks.joined(separator: ",") + "]}"
  }
  static let header =
    "{\"type\":\"video\",\"width\":640,\"height\":480,\"fps\":10.0,\"frames\":3,"
    + "\"codec\":\"MJPG\",\"detector\":{\"name\":\"BlazePose\"}}"

  @Test func theVideosFactsAreRead() throws {
    guard case .video(let facts) = try VideoPoseDetector.decodeFirstLine(Self.header) else {
      Issue.record("the video's facts were not read as such")
      return
    }
    #expect(facts.width == 640 && facts.height == 480 && facts.fps == 10 && facts.frames == 3)
    #expect(facts.codec == "MJPG" && facts.detector == "{\"name\":\"BlazePose\"}")
  }

  @Test func theHelpersErrorIsReadAsSuch() throws {
    let line = "{\"type\":\"error\",\"kind\":\"codec\",\"message\":\"no decoder\"}"
    guard case .error(let kind, let message) = try VideoPoseDetector.decodeFirstLine(line) else {
      Issue.record("the error line was not read as an error")
      return
    }
    #expect(kind == "codec" && message == "no decoder")
  }

  @Test(arguments: [
    ("MediaPipe says hello", "a line that is not a JSON object, 'MediaPipe says hello',"),
    ("[1,2]", "a line that is not a JSON object, '[1,2]',"),
    (
      "{\"type\":\"video\",\"width\":0,\"height\":480,\"detector\":{}}",
      "'{\"type\":\"video\",\"width\":0,\"height\":480,\"detector\":{}}' where the video's facts "
        + "(type video, width, height, detector) should be,"
    ),
    (
      "{\"type\":\"video\",\"width\":640,\"height\":480}",
      "'{\"type\":\"video\",\"width\":640,\"height\":480}' where the video's facts (type video, "
        + "width, height, detector) should be,"
    ),
  ])
  func aBadFirstLineIsQuoted(line: String, problem: String) {
    #expect(throws: VideoPoseDetector.LineProblem(text: problem)) {
      try VideoPoseDetector.decodeFirstLine(line)
    }
  }

  @Test func framesAreRead() throws {
    let full = try #require(
      try VideoPoseDetector.decodeFrame(Self.pose(Array(repeating: Self.landmark, count: 33))))
    #expect(full.milliseconds == 400)
    #expect(full.pose?.count == 33)
    #expect(full.pose?[32].x == 1.5 && full.pose?[32].y == 2 && full.pose?[32].confidence == 0.9)
    let nobody = try #require(
      try VideoPoseDetector.decodeFrame("{\"i\":0,\"ms\":0.0,\"pose\":null}"))
    #expect(nobody == VideoPoseDetector.Frame(milliseconds: 0, pose: nil))
    let untimed = try #require(
      try VideoPoseDetector.decodeFrame("{\"i\":1,\"ms\":null,\"pose\":null}"))
    #expect(untimed == VideoPoseDetector.Frame(milliseconds: nil, pose: nil))
    #expect(try VideoPoseDetector.decodeFrame("{\"type\":\"end\",\"frames\":2}") == nil)
  }

  @Test(arguments: [
    ("not json", "a line that is not a JSON object, 'not json',"),
    ("{\"ms\":1.0}", "a line that is not a frame, '{\"ms\":1.0}',"),
    (
      "{\"i\":4,\"pose\":\"somebody\"}",
      "a pose that is not a list of 33 landmarks [x, y, visibility], "
        + "'{\"i\":4,\"pose\":\"somebody\"}',"
    ),
    (
      "{\"i\":4,\"pose\":[[1,2,3]]}",
      "a pose of 1 landmarks, not BlazePose's 33, '{\"i\":4,\"pose\":[[1,2,3]]}',"
    ),
  ])
  func aBadFrameLineIsQuoted(line: String, problem: String) {
    #expect(throws: VideoPoseDetector.LineProblem(text: problem)) {
      try VideoPoseDetector.decodeFrame(line)
    }
  }

  /// 33 landmarks, one of them not three numbers: an error naming the landmark, the line cut
  /// short where it quotes it.
  @Test(arguments: [32, 0])
  func aLandmarkThatIsNotThreeNumbersIsAnError(bad: Int) throws {
    var landmarks = Array(repeating: Self.landmark, count: 33)
    landmarks[bad] = "[1.5,2]"
    let line = Self.pose(landmarks)
    let error = #expect(throws: VideoPoseDetector.LineProblem.self) {
      try VideoPoseDetector.decodeFrame(line)
    }
    let quoted = "'" + line.prefix(VideoPoseDetector.quoted) + "...'"
    #expect(
      error?.text
        == "a pose whose landmark \(bad) is not [x, y, visibility], \(quoted),")
  }

  @Test(arguments: [
    ("{\"k\":2,\"jpeg\":\"/9j/2Q==\"}", 2, Data([0xFF, 0xD8, 0xFF, 0xD9]))
  ])
  func stillsAreRead(line: String, index: Int, jpeg: Data) throws {
    let still = try VideoStillGrabber.decodeStill(line)
    #expect(still.index == index && still.jpeg == jpeg)
  }

  @Test(arguments: [
    (
      "Traceback (most recent call last):",
      "a line that is not a JSON object, 'Traceback (most recent call last):'"
    ),
    ("{\"k\":2}", "a line that is not a still (k, jpeg in base64), '{\"k\":2}'"),
    (
      "{\"k\":2,\"jpeg\":\"not base64!\"}",
      "a line that is not a still (k, jpeg in base64), '{\"k\":2,\"jpeg\":\"not base64!\"}'"
    ),
  ])
  func aBadStillLineIsQuoted(line: String, problem: String) {
    #expect(throws: VideoPoseDetector.LineProblem(text: problem)) {
      try VideoStillGrabber.decodeStill(line)
    }
  }
}

/// The detector run against a stand-in helper: a detector environment whose Python is a shell
/// script that prints the given lines and then waits a minute, as a helper that said something
/// wrong and went on would.
@Suite struct HelperFailureTests {
  static func environment(printing lines: [String]) throws -> DetectorEnvironment {
    let cache = Fixtures.temporaryFolder("fake-detector")
    let environment = DetectorEnvironment(environment: ["XDG_CACHE_HOME": cache, "HOME": cache])
    try FileManager.default.createDirectory(
      atPath: environment.folder + "/bin", withIntermediateDirectories: true)
    let script =
      "#!/bin/sh\ncat <<'LINES'\n" + lines.joined(separator: "\n") + "\nLINES\nexec sleep 60\n"
    try #require(
      FileManager.default.createFile(
        atPath: environment.python, contents: Data(script.utf8),
        attributes: [.posixPermissions: 0o755]))
    return environment
  }

  /// Runs the detector on the stand-in; the error it throws, the seconds it took, and what it
  /// left in the output's folder.
  static func detect(_ lines: [String]) throws -> (
    error: VideoError?, seconds: Double, left: [String]
  ) {
    let environment = try environment(printing: lines)
    let folder = Fixtures.temporaryFolder("video")
    let started = Date()
    let error = #expect(throws: VideoError.self) {
      try VideoPoseDetector.detect(
        video: folder + "/clip.mp4", to: folder + "/poses.jsonl", environment: environment)
    }
    return (
      error, Date().timeIntervalSince(started),
      try FileManager.default.contentsOfDirectory(atPath: folder)
    )
  }

  /// The helper is stopped, not read to its end: well inside the minute it would go on for.
  @Test func aBadFirstLineStopsTheHelperAndIsQuoted() throws {
    let run = try Self.detect(["MediaPipe says hello"])
    #expect(
      run.error
        == .helperFailed(
          detail: "a line that is not a JSON object, 'MediaPipe says hello', as its first line"))
    #expect(run.seconds < 30)
  }

  @Test func aBadLaterLineSaysAfterWhichFrame() throws {
    let run = try Self.detect([
      HelperLineTests.header, "{\"i\":0,\"ms\":0.0,\"pose\":null}",
      "{\"i\":1,\"ms\":100.0,\"pose\":null}", "{\"i\":2,\"ms\":200.0,\"pose\":[[1,2,3]]}",
    ])
    #expect(
      run.error
        == .helperFailed(
          detail: "a pose of 1 landmarks, not BlazePose's 33, "
            + "'{\"i\":2,\"ms\":200.0,\"pose\":[[1,2,3]]}', after frame 2"))
    #expect(run.seconds < 30)
    #expect(run.left == [], "no pose file, nor a part of one")
  }
}

/// When the detector's environment can be used, and what to do when it cannot.
@Suite struct DetectorReadinessTests {
  /// A Python gone from under the environment (its link dangling) makes it not ready, so the
  /// next run sets it up again rather than failing the same way for ever.
  @Test func anEnvironmentWhosePythonIsGoneIsNotReady() throws {
    let cache = Fixtures.temporaryFolder("cache")
    let environment = DetectorEnvironment(environment: ["XDG_CACHE_HOME": cache])
    try FileManager.default.createDirectory(
      atPath: environment.folder + "/bin", withIntermediateDirectories: true)
    try #require(
      FileManager.default.createFile(atPath: environment.marker, contents: Data("{}\n".utf8)))
    try FileManager.default.createSymbolicLink(
      atPath: environment.python, withDestinationPath: cache + "/gone/python3")
    #expect(!environment.isReady)
    try FileManager.default.removeItem(atPath: environment.python)
    try FileManager.default.createSymbolicLink(
      atPath: environment.python, withDestinationPath: "/bin/sh")
    #expect(environment.isReady)
    try FileManager.default.removeItem(atPath: environment.marker)
    #expect(!environment.isReady)
  }

  @Test func aFailedHelpersHintNamesTheEnvironmentToDelete() {
    #expect(
      VideoError.helperFailed(detail: "x").hint.contains("delete \(DetectorEnvironment().folder)"))
  }
}

/// `spotter video`'s command line, refused before any detector is needed.
@Suite struct VideoCommandLineTests {
  /// An output that names the video (another path to it, a symlink to it) or the other
  /// output: a usage error naming both, and the video untouched.
  @Test(arguments: [
    (["--poses-out", "clip.mp4"], "--poses-out FOLDER/clip.mp4 is the same file as the video"),
    (["--report", "link.html"], "--report FOLDER/link.html is the same file as the video"),
    (["--poses-out", "./sub/../clip.mp4"], "--poses-out FOLDER/./sub/../clip.mp4 is the same"),
    (
      ["--poses-out", "out.jsonl", "--report", "sub/../out.jsonl"],
      "--report FOLDER/sub/../out.jsonl is the same file as --poses-out FOLDER/out.jsonl"
    ),
  ])
  func anOutputThatIsTheVideoIsRefused(options: [String], message: String) throws {
    let folder = Fixtures.temporaryFolder("video")
    let video = folder + "/clip.mp4"
    try Data("a video".utf8).write(to: URL(fileURLWithPath: video))
    try FileManager.default.createSymbolicLink(
      atPath: folder + "/link.html", withDestinationPath: video)
    try FileManager.default.createDirectory(
      atPath: folder + "/sub", withIntermediateDirectories: true)
    let arguments = options.enumerated().map {
      $0.offset % 2 == 1 ? folder + "/" + $0.element : $0.element
    }
    let run = try SpotterProcess.run(["video"] + arguments + [video])
    #expect(run.status == 64)
    let expected = "Error: " + message.replacingOccurrences(of: "FOLDER", with: folder)
    #expect(run.stderr.hasPrefix(expected), "\(run.stderr)")
    #expect(try String(contentsOfFile: video, encoding: .utf8) == "a video")
  }

  /// With --exercise nothing is classified: the classifier's options are refused, as
  /// `spotter count` refuses them.
  @Test(arguments: [
    ["--weights", "w.bin"], ["--stride", "5"], ["--enter", "0.5"], ["--dwell", "2"],
    ["--exit", "3"],
  ])
  func theClassifiersOptionsAreRefusedWithAnExercise(option: [String]) throws {
    let run = try SpotterProcess.run(
      ["video", "--exercise", "squat"] + option + ["/nonexistent/clip.mp4"])
    #expect(run.status == 64)
    #expect(
      run.stderr.hasPrefix(
        "Error: \(option[0]) is for the classifier, and with --exercise nothing is classified"),
      "\(run.stderr)")
    let count = try SpotterProcess.run(["count", "--exercise", "squat"] + option + ["-"])
    #expect(count.status == 64, "spotter count refuses it too")
  }
}
