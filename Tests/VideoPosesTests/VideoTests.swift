import Foundation
import Poses
import TestSupport
import Testing
import VideoPoses

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `spotter video`, run as a user runs it, on real videos: the people walking past a camera in
/// OpenCV's `vtest.avi` (Debian's opencv-doc, which `make test` installs), a still of a footballer
/// facing the camera made into a short video, and videos that cannot be read.
///
/// The detector's environment is the user's own (set up on the first run, about 410 MB from
/// PyPI). When it cannot be set up here (no suitable Python, no PyPI), or the videos are
/// missing, the tests that need them are cancelled with the reason, never passed in silence.
@Suite(.serialized) struct VideoTests {
  /// OpenCV's example data, where Debian's opencv-doc put it (`dpkg -L opencv-doc`; its
  /// usual place when dpkg does not say).
  static let examples: String = {
    let usual = "/usr/share/doc/opencv-doc/examples/data"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg")
    process.arguments = ["-L", "opencv-doc"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return usual }
    let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let vtest = listed.split(separator: "\n").first { $0.hasSuffix("/vtest.avi") }
    return vtest.map { String($0.dropLast("/vtest.avi".count)) } ?? usual
  }()
  static let vtest = examples + "/vtest.avi"
  static let footballer = examples + "/messi5.jpg"

  /// `spotter video --setup`, once for the suite: nil when the detector is ready, else why not.
  static let setupProblem: String? = {
    guard let run = try? SpotterProcess.run(["video", "--setup"]) else {
      return "spotter could not be run"
    }
    return run.status == 0 ? nil : "the pose detector could not be set up: \(run.stderr)"
  }()

  /// Cancels the test, saying why, unless the detector and `files` are there.
  static func requireDetector(_ files: String...) throws {
    for file in files where !FileManager.default.fileExists(atPath: file) {
      try Test.cancel("\(file) is missing: `make test` installs Debian's opencv-doc")
    }
    if let problem = setupProblem { try Test.cancel(Comment(rawValue: problem)) }
  }

  /// Runs Python in the detector's environment (its OpenCV makes and measures test videos).
  static func python(_ script: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: DetectorEnvironment().python)
    process.arguments = ["-c", script] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "python failed: \(script.prefix(80))")
    return String(decoding: data, as: UTF8.self)
  }

  static func events(_ ndjson: String) -> [[String: Any]] {
    ndjson.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  static func lines(_ path: String) throws -> [[String: Any]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// An AVI file's frame count and frame interval, from its main header (`avih`), read here
  /// without any decoder.
  static func aviHeader(_ path: String) throws -> (frames: Int, interval: Double) {
    let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)).prefix(64))
    try #require(bytes.count == 64 && String(decoding: bytes[24..<28], as: UTF8.self) == "avih")
    func word(_ offset: Int) -> Int {
      (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
    return (word(48), Double(word(32)) / 1_000_000)
  }

  /// The share of the frames with a pose in which the middle of the torso (shoulders and hips)
  /// lies on a moving person: on pixels far from the scene without anyone (the median of
  /// frames across the video). A pose moved 25 pixels aside or scaled by 0.9 lands on a
  /// walker in under a sixth of the frames; the detector's, in almost all.
  static let onMovingPeople = """
    import json, sys
    import cv2, numpy as np
    frames = []
    capture = cv2.VideoCapture(sys.argv[1])
    while True:
        ok, frame = capture.read()
        if not ok: break
        frames.append(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.int16))
    scene = np.median(np.stack(frames[::max(1, len(frames) // 40)]), axis=0)
    on = seen = 0
    for index, line in enumerate(open(sys.argv[2]).read().splitlines()[1:]):
        pose = json.loads(line).get("pose")
        if not pose: continue
        seen += 1
        x = int(round(sum(pose[j][0] for j in (11, 12, 23, 24)) / 4))
        y = int(round(sum(pose[j][1] for j in (11, 12, 23, 24)) / 4))
        box = (slice(max(0, y - 4), y + 5), slice(max(0, x - 4), x + 5))
        moving = np.abs(frames[index][box] - scene[box]) > 30
        on += int(moving.size > 0 and moving.mean() > 0.5)
    print(json.dumps({"seen": seen, "on": on}))
    """

  /// The done-check of `spotter video`: vtest.avi's walkers make a pose file with the video's
  /// frames and times, people in some frames (on the walkers), the session's events, and a
  /// report with the video's frames in it.
  @Test func vtestGivesPosesAtTheVideosFrameTimesOnTheWalkers() throws {
    try Self.requireDetector(Self.vtest)
    let folder = Fixtures.temporaryFolder("video")
    let poses = folder + "/vtest.jsonl"
    let page = folder + "/vtest.html"
    let run = try SpotterProcess.run([
      "video", "--json", "--poses-out", poses, "--report", page, Self.vtest,
    ])
    try #require(run.status == 0, "\(run.stderr)")

    let lines = try Self.lines(poses)
    let header = lines[0]
    #expect(header["layout"] as? String == "mediapipe33")
    #expect(header["units"] as? String == "pixels")
    #expect(header["source"] as? String == "vtest.avi")
    #expect(
      (header["detector"] as? [String: Any])?["model"] as? String == "pose_landmark_full.tflite")
    #expect(header["mirrored"] == nil, "BlazePose names the person's own sides")
    let (frameCount, interval) = try Self.aviHeader(Self.vtest)
    let frames = Array(lines.dropFirst())
    #expect(frames.count == frameCount)
    for (index, frame) in frames.enumerated() {
      let t = try #require(frame["t"] as? Double)
      #expect(abs(t - Double(index) * interval) < 1e-6, "frame \(index) at \(t)")
    }
    let withPerson = frames.filter { $0["pose"] != nil }.count
    let nobody = frames.filter { ($0["people"] as? [Any])?.isEmpty == true }.count
    #expect(withPerson > frames.count / 4 && nobody > 0 && withPerson + nobody == frames.count)
    #expect(run.stderr.contains("vtest.avi: \(frameCount) frames"), "\(run.stderr)")

    let measured =
      try JSONSerialization.jsonObject(
        with: Data(try Self.python(Self.onMovingPeople, [Self.vtest, poses]).utf8))
      as? [String: Int]
    let seen = try #require(measured?["seen"])
    #expect(seen == withPerson)
    #expect(Double(measured?["on"] ?? 0) >= 0.85 * Double(seen), "\(String(describing: measured))")

    let events = Self.events(run.stdout)
    #expect(events.contains { $0["type"] as? String == "summary" }, "\(run.stdout)")

    let html = try String(contentsOfFile: page, encoding: .utf8)
    #expect(html.components(separatedBy: "data-still=\"overview\"").count - 1 == 6)
    let jpegs = html.components(separatedBy: "data:image/jpeg;base64,").dropFirst()
    #expect(jpegs.count >= 6)
    for encoded in jpegs {
      let text = encoded.prefix { $0 != "\"" }
      let jpeg = try #require(Data(base64Encoded: String(text)))
      #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]) && jpeg.suffix(2) == Data([0xFF, 0xD9]))
      #expect(jpeg.count < 40_000)
    }
    #expect(html.contains("vtest.avi"))
    #expect(XMLParser(data: Data(html.utf8)).parse(), "the page is well-formed")
    // The poses are drawn over the frames: bones inside the stills' pictures.
    let stills = html.components(separatedBy: "<svg class=\"still\"").dropFirst().map {
      $0.components(separatedBy: "</svg>")[0]
    }
    #expect(stills.filter { $0.contains("<path") }.count >= 4)
  }

  /// BlazePose names the person's own sides in a picture as the camera took it: a footballer
  /// facing the camera has his left shoulder, hip and eye on the image's right. The file is
  /// read back through the runtime's own layout mapping, so no side is swapped on the way.
  @Test func aPersonFacingTheCameraHasTheirLeftOnTheImagesRight() throws {
    try Self.requireDetector(Self.footballer)
    let folder = Fixtures.temporaryFolder("video")
    let video = folder + "/footballer.avi"
    _ = try Self.python(
      """
      import sys, cv2
      still = cv2.imread(sys.argv[1])
      out = cv2.VideoWriter(sys.argv[2], cv2.VideoWriter_fourcc(*"MJPG"), 10,
                            (still.shape[1], still.shape[0]))
      for _ in range(10): out.write(still)
      out.release()
      """, [Self.footballer, video])
    let poses = folder + "/footballer.jsonl"
    let run = try SpotterProcess.run(["video", "--json", "--poses-out", poses, video])
    try #require(run.status == 0, "\(run.stderr)")
    let read = try Fixtures.readAll(try PoseFiles.open(poses))
    #expect(read.frames.count == 10)
    var seen = 0
    for frame in read.frames {
      guard let pose = frame.people.first else { continue }
      seen += 1
      for (left, right) in [
        (CanonicalJoint.leftShoulder, CanonicalJoint.rightShoulder), (.leftHip, .rightHip),
        (.leftEye, .rightEye),
      ] {
        #expect(
          pose[left].x > pose[right].x, "\(left) at \(pose[left].x), \(right) at \(pose[right].x)")
      }
    }
    #expect(seen >= 8)
  }

  /// A video that is not there: a clear error before any detector is needed.
  @Test func aMissingVideoIsAClearError() throws {
    let folder = Fixtures.temporaryFolder("video")
    try Self.expectBadVideo(
      folder + "/nowhere.mp4", in: folder,
      saying: "Error: no such video file: \(folder)/nowhere.mp4")
  }

  /// Videos that cannot be read: a file that is no video, a video of no frames, and vtest.avi
  /// with its codec's tag (div3, in the stream header and format) renamed. One test, not a
  /// table: a test cancelled for want of the detector says so, a table's case does not.
  @Test func unreadableVideosAreClearErrors() throws {
    try Self.requireDetector(Self.vtest)
    let folder = Fixtures.temporaryFolder("video")
    let text = folder + "/notes.mp4"
    try Data("these are not frames\n".utf8).write(to: URL(fileURLWithPath: text))
    try Self.expectBadVideo(text, in: folder, saying: "is not a video that can be read")

    let empty = folder + "/empty.avi"
    _ = try Self.python(
      """
      import sys, cv2
      cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48)).release()
      """, [empty])
    try Self.expectBadVideo(empty, in: folder, saying: "Error: the video \(empty) has no frames")

    let unknown = folder + "/unknown.avi"
    var bytes = [UInt8](try #require(FileManager.default.contents(atPath: Self.vtest)))
    for offset in 0..<512 where bytes[offset..<offset + 4].elementsEqual("div3".utf8) {
      bytes.replaceSubrange(offset..<offset + 4, with: "zzzz".utf8)
    }
    try Data(bytes).write(to: URL(fileURLWithPath: unknown))
    try Self.expectBadVideo(
      unknown, in: folder,
      saying: "Error: cannot decode the video \(unknown): no decoder for its video codec")
  }

  /// `spotter video` on `video` fails with exit 1 and an error containing `expected`, with a
  /// hint, and leaves no pose file or page (nor a part of one) in `folder`.
  static func expectBadVideo(_ video: String, in folder: String, saying expected: String) throws {
    let before = try FileManager.default.contentsOfDirectory(atPath: folder)
    let run = try SpotterProcess.run([
      "video", "--poses-out", folder + "/poses.jsonl", "--report", folder + "/page.html", video,
    ])
    #expect(run.status == 1, "\(video)")
    #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(expected), "\(run.stderr)")
    #expect(run.stderr.contains("Hint: "))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == before)
  }

  /// Stopped half-way (Ctrl-C), `spotter video` leaves no part of a pose file behind, and no
  /// detector reading on.
  @Test func anInterruptedRunLeavesNothingBehind() throws {
    try Self.requireDetector(Self.vtest)
    let folder = Fixtures.temporaryFolder("video")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: SpotterProcess.binary)
    process.arguments = ["video", "--poses-out", folder + "/poses.jsonl", Self.vtest]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Until the partial file is there and growing: the detector is under way.
    let deadline = Date().addingTimeInterval(30)
    var partial: String?
    while Date() < deadline, partial == nil {
      Thread.sleep(forTimeInterval: 0.2)
      partial = try FileManager.default.contentsOfDirectory(atPath: folder).first {
        $0.contains(".partial-")
      }
    }
    try #require(partial != nil, "no partial pose file appeared")
    Thread.sleep(forTimeInterval: 1)
    let helpers = Self.children(of: process.processIdentifier)
    try #require(!helpers.isEmpty, "no detector process under spotter")
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(process.terminationStatus == 128 + SIGINT)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    let stopping = Date().addingTimeInterval(10)
    while Date() < stopping, helpers.contains(where: Self.isRunning) {
      Thread.sleep(forTimeInterval: 0.1)
    }
    #expect(!helpers.contains(where: Self.isRunning), "the detector went on: \(helpers)")
  }

  /// The fields of `/proc/PID/stat` after the command's name: the state, then the parent.
  static func status(of pid: Int32) -> [Substring]? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let name = text.lastIndex(of: ")")
    else { return nil }
    return text[text.index(after: name)...].split(separator: " ")
  }

  /// The processes whose parent is `pid`.
  static func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { Int32($0) }.filter { candidate in
      guard let fields = status(of: candidate), fields.count > 1 else { return false }
      return Int32(fields[1]) == pid
    }
  }

  /// Whether `pid` is there and not a zombie (an ended child nobody has waited for yet).
  static func isRunning(_ pid: Int32) -> Bool {
    guard let state = status(of: pid)?.first else { return false }
    return state != "Z" && state != "X"
  }

  /// Without a Python to set the detector up with, the error names what it tried.
  @Test func noPythonIsAClearError() throws {
    let cache = Fixtures.temporaryFolder("cache")
    let run = try SpotterProcess.run(
      ["video", "--setup"],
      environment: ["XDG_CACHE_HOME": cache, "SPOTTER_PYTHON": "/nonexistent/python3"])
    #expect(run.status == 1)
    #expect(
      run.stderr.hasPrefix(
        "Error: no Python 3.9 to 3.12 to run the pose detector in "
          + "(/nonexistent/python3: not found)"), "\(run.stderr)")
  }
}
