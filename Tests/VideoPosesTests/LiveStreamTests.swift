import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter video` on a live stream, as a user runs it on an IP camera: OpenCV's `vtest.avi`
/// (people walking past a camera), played at 30 frames a second at its own pace by Debian's
/// ffmpeg on loopback (HTTP, or UDP), stands in for the camera.
///
/// Needs the detector's environment (as `VideoTests`), the video and ffmpeg (`make test`
/// installs both); without them the tests are cancelled with the reason. Nothing here asserts
/// a latency or a rate: `make live-check` measures those.
@Suite(.serialized) struct LiveStreamTests {
  /// vtest.avi's 795 frames at 30 a second, as MPEG-2 in an MPEG transport stream (what a
  /// live sender sends): made once, by ffmpeg; nil when it cannot be.
  static let stream30: String? = {
    guard FileManager.default.fileExists(atPath: VideoTests.vtest) else { return nil }
    let path = Fixtures.temporaryFolder("live") + "/vtest30.ts"
    let made = try? run(
      "ffmpeg",
      [
        "-y", "-hide_banner", "-loglevel", "error", "-r", "30", "-i", VideoTests.vtest, "-c:v",
        "mpeg2video", "-q:v", "2", "-f", "mpegts", path,
      ])
    return made == 0 ? path : nil
  }()

  /// Runs a program found on the PATH to its end: its exit status.
  static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Cancels the test, saying why, unless the detector, the video and ffmpeg are there.
  static func requireStream() throws -> String {
    try VideoTests.requireDetector(VideoTests.vtest)
    guard let stream = stream30 else {
      try Test.cancel("ffmpeg could not make a stream of vtest.avi: `make test` installs ffmpeg")
      return ""
    }
    return stream
  }

  /// A TCP port nobody listens on now.
  static func freePort() -> Int { Int(Fixtures.freeTCPPort()!) }

  /// ffmpeg sending `stream` at its own pace (`-re`) for `seconds` (all of it when nil): over
  /// HTTP, serving the first client to connect to the URL it returns, or over UDP to it.
  static func serve(_ stream: String, seconds: Double?, udp: Bool = false) throws -> (
    sender: Process, url: String
  ) {
    let url = (udp ? "udp" : "http") + "://127.0.0.1:\(freePort())"
    let sender = Process()
    sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    sender.arguments =
      ["ffmpeg", "-hide_banner", "-loglevel", "error", "-re", "-i", stream]
      + (seconds.map { ["-t", "\($0)"] } ?? []) + ["-c", "copy", "-f", "mpegts"]
      + (udp ? [url] : ["-listen", "1", url])
    sender.standardOutput = FileHandle.nullDevice
    sender.standardError = FileHandle.nullDevice
    try sender.run()
    if !udp { Thread.sleep(forTimeInterval: 0.3) }  // listening
    return (sender, url)
  }

  static func json(_ line: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }

  /// The sessions `spotter history` lists in `history`.
  static func storedSessions(_ history: String) throws -> [[String: Any]] {
    let run = try SpotterProcess.run(["history", "--history", history, "--json"])
    try #require(run.status == 0, "\(run.stderr)")
    return run.stdout.split(separator: "\n").compactMap { json(String($0)) }
  }

  /// Events come while the stream plays, each decided by a frame carrying that frame's
  /// capture time in the stream and the time from its capture to the event.
  @Test func eventsArriveWhileTheStreamPlays() throws {
    let stream = try Self.requireStream()
    let (sender, url) = try Self.serve(stream, seconds: 8)
    defer { sender.terminate() }
    let spotter = try RunningProcess(["video", "--json", "--no-history", url])
    let first = try #require(spotter.nextLine(timeout: 30), "\(spotter.standardError)")
    #expect(sender.isRunning, "the first event came after the stream")
    let event = try #require(Self.json(first))
    let captured = try #require(event["capture_t"] as? Double, "\(first)")
    let latency = try #require(event["latency"] as? Double, "\(first)")
    #expect(captured >= 0 && latency >= 0)
    let rest = spotter.remainingLines(timeout: 60)
    #expect(spotter.waitForExit(timeout: 10) == 0, "\(spotter.standardError)")
    #expect(rest.last.flatMap(Self.json)?["type"] as? String == "summary")
  }

  /// A stream whose sender ends gives the session's summary (with the frames dropped), its
  /// report with the frames kept during the session, its poses, and one record in the history.
  @Test func aStreamThatEndsGivesItsSummaryAndRecord() throws {
    let stream = try Self.requireStream()
    let folder = Fixtures.temporaryFolder("live")
    let (sender, url) = try Self.serve(stream, seconds: 4)
    defer { sender.terminate() }
    let run = try SpotterProcess.run([
      "video", "--json", "--history", folder + "/history.sqlite", "--report",
      folder + "/live.html", "--poses-out", folder + "/live.jsonl", url,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let summary = try #require(
      run.stdout.split(separator: "\n").last.flatMap { Self.json(String($0)) })
    #expect(summary["type"] as? String == "summary")
    #expect(summary["dropped_frames"] is Int, "\(summary)")
    #expect(
      run.stderr.contains("Live: ") && run.stderr.contains("frames detected"), "\(run.stderr)")

    let sessions = try Self.storedSessions(folder + "/history.sqlite")
    #expect(sessions.count == 1)
    #expect((sessions.first?["source"] as? String)?.contains(url) == true, "\(sessions)")

    let poses = try VideoTests.lines(folder + "/live.jsonl")
    #expect((poses[0]["video"] as? [String: Any])?["live"] as? String == "stream")
    let times = poses.dropFirst().compactMap { $0["t"] as? Double }
    #expect(times.count == poses.count - 1 && times.count > 10)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "capture times go forward")

    let page = try String(contentsOfFile: folder + "/live.html", encoding: .utf8)
    #expect(page.components(separatedBy: "data:image/jpeg;base64,").count - 1 >= 1)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy {
        !$0.contains(".partial-")
      })
  }

  /// A detector slower than the stream (half its rate, by the helper's test knob) takes the
  /// newest frame each time: the others are dropped and counted, never queued.
  @Test func aSlowDetectorDropsFramesAndCountsThem() throws {
    let stream = try Self.requireStream()
    let folder = Fixtures.temporaryFolder("live")
    let seconds = 5.0
    let (sender, url) = try Self.serve(stream, seconds: seconds)
    defer { sender.terminate() }
    let run = try SpotterProcess.run(
      ["video", "--json", "--no-history", "--poses-out", folder + "/live.jsonl", url],
      environment: ["SPOTTER_DETECTOR_DELAY": "\(1.0 / 15)"])
    #expect(run.status == 0, "\(run.stderr)")
    let summary = try #require(
      run.stdout.split(separator: "\n").last.flatMap { Self.json(String($0)) })
    let dropped = try #require(summary["dropped_frames"] as? Int, "\(summary)")
    let detected = try VideoTests.lines(folder + "/live.jsonl").count - 1
    let served = Int(seconds * 30) + 1  // ffmpeg's -t sends the frame at the cut too
    #expect(dropped > 0)
    #expect(detected + dropped <= served, "no frame is made up: \(detected) + \(dropped)")
    #expect(detected < served)
    #expect(run.stderr.contains("\(dropped) dropped"), "\(run.stderr)")
  }

  /// Ctrl-C (or SIGTERM) ends a live session as the end of its stream does: its summary, and
  /// exit 0; the detector stops with it.
  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalEndsTheSessionWithItsSummary(signal: Int32) throws {
    let stream = try Self.requireStream()
    let folder = Fixtures.temporaryFolder("live")
    let (sender, url) = try Self.serve(stream, seconds: nil)
    defer { sender.terminate() }
    let spotter = try RunningProcess([
      "video", "--json", "--history", folder + "/history.sqlite", url,
    ])
    try #require(spotter.nextLine(timeout: 30) != nil, "\(spotter.standardError)")
    let helpers = VideoTests.children(of: spotter.process.processIdentifier)
    kill(spotter.process.processIdentifier, signal)
    let rest = spotter.remainingLines(timeout: 30)
    #expect(spotter.waitForExit(timeout: 10) == 0, "\(spotter.standardError)")
    #expect(rest.last.flatMap(Self.json)?["type"] as? String == "summary", "\(rest)")
    #expect(try Self.storedSessions(folder + "/history.sqlite").count == 1)
    #expect(!helpers.contains(where: VideoTests.isRunning), "the detector went on")
  }

  /// A stream that goes silent fails the session after 5 s without a frame: its summary,
  /// report and record all the same, then the error, exit 1.
  @Test func aStreamThatFailsGivesItsError() throws {
    let stream = try Self.requireStream()
    let folder = Fixtures.temporaryFolder("live")
    let (sender, url) = try Self.serve(stream, seconds: 3, udp: true)
    defer { sender.terminate() }
    let run = try SpotterProcess.run([
      "video", "--history", folder + "/history.sqlite", "--report", folder + "/live.html", url,
    ])
    #expect(run.status == 1)
    #expect(
      run.stderr.contains("Error: the stream \(url) failed: no frame came for 5 s"),
      "\(run.stderr)")
    #expect(run.stderr.contains("Hint: "))
    #expect(run.stdout.contains("Summary ("), "\(run.stdout)")
    #expect(FileManager.default.fileExists(atPath: folder + "/live.html"))
    #expect(try Self.storedSessions(folder + "/history.sqlite").count == 1)
  }

  /// Sources that give no frame at all: no such camera, nothing listening at a URL, nothing
  /// sent to a UDP port. Each is an error with the reason and a hint, and nothing is written.
  @Test func sourcesWithoutFramesAreClearErrorsAndWriteNothing() throws {
    try VideoTests.requireDetector()
    let port = Self.freePort()
    for (source, expected) in [
      ("/dev/video63", "Error: cannot read the camera /dev/video63: there is no such device"),
      ("63", "Error: cannot read the camera /dev/video63: there is no such device"),
      (
        "http://127.0.0.1:\(port)/live",
        "Error: cannot read the stream http://127.0.0.1:\(port)/live: OpenCV's FFmpeg cannot open it"
      ),
      (
        "udp://127.0.0.1:\(port)",
        "Error: cannot read the stream udp://127.0.0.1:\(port): nothing OpenCV's FFmpeg can read "
          + "answered within 5 s"
      ),
    ] {
      let folder = Fixtures.temporaryFolder("live")
      let run = try SpotterProcess.run([
        "video", "--history", folder + "/history.sqlite", "--report", folder + "/live.html",
        "--poses-out", folder + "/live.jsonl", source,
      ])
      #expect(run.status == 1, "\(source)")
      #expect(run.stderr.hasPrefix(expected), "\(run.stderr)")
      #expect(run.stderr.contains("Hint: "))
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [], "\(source)")
    }
  }

  /// A file's session has no page and is not stored: those options are for live sources.
  @Test(arguments: [["--view", "0"], ["--no-history"], ["--history", "h.sqlite"]])
  func liveOptionsAreRefusedForAFile(options: [String]) throws {
    let run = try SpotterProcess.run(["video"] + options + ["workout.mp4"])
    #expect(run.status == 64)
    #expect(
      run.stderr.hasPrefix(
        "Error: \(options[0]) is for a live source (a camera or a stream URL), not a file"),
      "\(run.stderr)")
  }
}
