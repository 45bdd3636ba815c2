import Testing
import VideoPoses

/// The video's own frame times, and what stands in where the decoder has none.
@Suite struct VideoFrameTimesTests {
  static func times(_ milliseconds: [Double?], fps: Double?) -> [Double] {
    var clock = VideoFrameTimes(fps: fps)
    for value in milliseconds { _ = clock.next(milliseconds: value) }
    return clock.times
  }

  @Test func theDecodersTimesAreKeptToTheMicrosecond() {
    #expect(
      Self.times([0, 100, 200, 300.00000000000006, 400], fps: 10) == [0, 0.1, 0.2, 0.3, 0.4])
    // A variable-rate video keeps its own spacing, whatever its nominal rate says.
    #expect(Self.times([0, 33.3, 80, 90], fps: 30) == [0, 0.0333, 0.08, 0.09])
  }

  /// FFmpeg gives the last frame of some AVI files no time (OpenCV says 0): it goes one
  /// nominal interval on, never back (a time going back would be a bad line in the pose file).
  @Test func aFrameWithoutATimeIsOneIntervalOn() {
    #expect(Self.times([41.708, 83.417, nil], fps: 23.976) == [0.041708, 0.083417, 0.125125])
    #expect(Self.times([0, 100, 100, 300], fps: 10) == [0, 0.1, 0.2, 0.3])
    // Without a nominal rate, the last interval seen; without any, 1/30 s.
    #expect(Self.times([0, 50, nil], fps: nil) == [0, 0.05, 0.1])
    #expect(Self.times([nil, nil], fps: 0) == [0, 0.033333])
  }

  @Test(arguments: [
    (0.0, 0), (0.04, 0), (0.06, 1), (0.31, 3), (99.0, 3), (-1.0, 0),
  ])
  func theNearestFrame(t: Double, frame: Int) {
    #expect(VideoFrameTimes.nearest(t, in: [0, 0.1, 0.2, 0.3]) == frame)
  }
}

/// Where the detector's environment lives, and which Python can make it.
@Suite struct DetectorEnvironmentTests {
  @Test func itLivesInSpottersCacheFolder() {
    let xdg = DetectorEnvironment(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"])
    #expect(xdg.folder == "/c/spotter/mediapipe-0.10.14")
    // XDG_CACHE_HOME must be absolute to count (the XDG rule).
    let relative = DetectorEnvironment(environment: ["XDG_CACHE_HOME": "c", "HOME": "/h"])
    #expect(relative.folder == "/h/.cache/spotter/mediapipe-0.10.14")
    #expect(relative.python == "/h/.cache/spotter/mediapipe-0.10.14/bin/python")
  }

  @Test(arguments: [
    ("3.8.18", false), ("3.9.0", true), ("3.11.7", true), ("3.12.1", true), ("3.13.0", false),
    ("2.7.18", false),
  ])
  func onlyThePythonsTheWheelsAreMadeFor(version: String, supported: Bool) throws {
    let parsed = try #require(PythonInterpreter.Version(version))
    #expect(PythonInterpreter.supported.contains(parsed) == supported)
  }
}
