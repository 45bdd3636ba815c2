import ActionModel
import Foundation
import MotionSynth
import Poses
import RepCounting
import Spotter
import Testing

@testable import SpotterServer

extension PerFrameAllocationTests {
  /// A frame through the daemon's stream protocol, one line a read as a client sends as it
  /// goes: its line split and told apart, the backlog reckoned, decoded, pushed through the
  /// session, its events written to the connection's output, the due prediction made in the
  /// daemon's batch. A frame that counts a rep or ends a set is left out: the session's record
  /// for the history keeps each rep (and, with a history, a checkpoint is asked for), which
  /// allocates by design (README, "Serving many streams").
  @Test(arguments: [false, true]) func aServedStreamAllocatesNothingPerFrame(keepsHistory: Bool)
    throws
  {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    let runtime = Runtime(
      classifier: try WeightsFile.load(repository + "/Weights/default.spotter"),
      catalogue: try ExerciseCatalogue.load())
    var options = RecordingOptions()
    options.camera = .front
    let recording = Recorder.record(.demo, options: options, seed: 4)
    let lines =
      [recording.header.jsonLine]
      + recording.frames.map {
        PoseFileWriter.jsonFrameLine(
          t: $0.t, people: $0.pose.hasPerson ? [$0.pose] : [], header: recording.header)
      }
    let text = lines.map { Array(($0 + "\n").utf8) }
    let stream = ServedStream(
      name: "connection 1",
      settings: ServedStream.Settings(
        backlog: 15, maxPendingOutput: 1 << 20, maxLineBytes: 64 * 1024, people: 1,
        keepsHistory: keepsHistory))
    let splitter = LineSplitter()
    let waiting = WaitingLines()
    var output: [UInt8] = []
    output.reserveCapacity(1 << 16)
    var batch = PredictionBatch()
    func send(_ line: [UInt8]) {
      line.withUnsafeBytes { splitter.append($0) }
      waiting.take(from: splitter)
      while !stream.receive(waiting, runtime: runtime, into: &output) {}
      waiting.clear()
      splitter.release()
      while stream.nextRequest() != nil {}
      while stream.predictionDue {
        batch.add(stream.session!)
        batch.catchUp()
        stream.makeDuePrediction(into: &output)
        while stream.nextRequest() != nil {}
      }
    }
    for line in text.prefix(300) { send(line) }
    var (quiet, allocating) = (0, 0)
    for line in text.dropFirst(300) {
      output.removeAll(keepingCapacity: true)
      let made = Self.allocations { send(line) }
      let events = String(decoding: output, as: UTF8.self)
      if events.contains(#""type":"rep""#) || events.contains(#""type":"exercise_"#) { continue }
      quiet += 1
      if made > 0 { allocating += 1 }
    }
    #expect(allocating == 0, "\(allocating) of \(quiet) frames allocated")
    #expect(quiet > 300)
  }
}
