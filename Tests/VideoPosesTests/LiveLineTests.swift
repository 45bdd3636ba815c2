import Foundation
import Testing

@testable import VideoPoses

/// What `spotter video` takes for a live source, and the live helper's lines as Spotter reads
/// them.
@Suite struct LiveLineTests {
  @Test(arguments: [
    ("/dev/video0", LiveInput.camera("/dev/video0"), "the camera /dev/video0"),
    ("2", .camera("2"), "the camera /dev/video2"),
    (
      "/dev/v4l/by-id/usb-cam-video-index0", .camera("/dev/v4l/by-id/usb-cam-video-index0"),
      "the camera /dev/v4l/by-id/usb-cam-video-index0"
    ),
    (
      "rtsp://10.0.0.5:554/stream1", .stream("rtsp://10.0.0.5:554/stream1"),
      "the stream rtsp://10.0.0.5:554/stream1"
    ),
    ("udp://127.0.0.1:5000", .stream("udp://127.0.0.1:5000"), "the stream udp://127.0.0.1:5000"),
    (
      "rtsp://admin:secret@cam.local/live?x=@", .stream("rtsp://admin:secret@cam.local/live?x=@"),
      "the stream rtsp://admin:…@cam.local/live?x=@"
    ),
  ])
  func liveSourcesAreRecognised(argument: String, input: LiveInput, described: String) {
    #expect(LiveInput(argument) == input)
    #expect(LiveInput(argument)?.description == described)
  }

  @Test(arguments: ["workout.mp4", "./0", "videos/2.avi", "C:/x.mp4", "://x", "", "a b://c"])
  func filesAreNotLive(argument: String) {
    #expect(LiveInput(argument) == nil)
  }

  @Test func aLiveFrameCarriesItsCaptureTimeDropsAndPicture() throws {
    let frame = try #require(
      try VideoPoseDetector.decodeFrame(
        "{\"i\":3,\"c\":812.25,\"dropped\":7,\"pose\":null,\"jpeg\":\"/9j/2Q==\"}"))
    #expect(frame.captured == 812.25 && frame.dropped == 7 && frame.pose == nil)
    #expect(frame.jpeg == Data([0xFF, 0xD8, 0xFF, 0xD9]))
    #expect(throws: VideoPoseDetector.LineProblem.self) {
      try VideoPoseDetector.decodeFrame("{\"i\":3,\"c\":1,\"pose\":null,\"jpeg\":\"%%\"}")
    }
  }

  @Test func theEndSaysWhy() throws {
    let camera = LiveInput.camera("0")
    #expect(
      LivePoseSource.decodeEnd(
        "{\"type\":\"end\",\"frames\":9,\"dropped\":4,\"why\":\"ended\"}", source: camera)?
        .ending == .ended)
    #expect(
      LivePoseSource.decodeEnd("{\"type\":\"end\",\"why\":\"stopped\"}", source: camera)?
        .dropped == nil)
    let failed = try #require(
      LivePoseSource.decodeEnd(
        "{\"type\":\"end\",\"dropped\":2,\"why\":\"stalled\",\"message\":\"no frame came for 5 s\"}",
        source: camera))
    #expect(
      failed.ending == .failed(.liveSourceFailed(source: camera, detail: "no frame came for 5 s")))
    #expect(failed.dropped == 2)
    #expect(LivePoseSource.decodeEnd("{\"i\":1,\"pose\":null}", source: camera) == nil)
  }

  @Test func latencyQuantilesAreLatenciesEventsHad() {
    var latency = CaptureLatency()
    #expect(latency.quantile(0.5) == nil)
    for milliseconds in 1...100 {
      latency.add(captured: 0, now: Double(milliseconds) / 1000)
    }
    #expect(latency.quantile(0.5) == 0.05)
    #expect(latency.quantile(0.99) == 0.099)
    #expect(latency.quantile(1) == 0.1)
    #expect(latency.add(captured: 5, now: 4) == 0, "a clock read before the stamp is no delay")
  }
}
