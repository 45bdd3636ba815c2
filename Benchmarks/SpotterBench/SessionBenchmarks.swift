import ActionModel
import Foundation
import MotionSynth
import Poses
import RepCounting
import Spotter
import TestSupport

/// The whole per-frame path through a `Session`: decoded JSON line to events, one core.
enum SessionBenchmarks {
  static func session(_ classifier: Classifier) throws -> Measurement {
    let recording = Recorder.record(.demo, seed: 1)
    let path = NSTemporaryDirectory() + "spotter-bench-session-\(getpid()).jsonl"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try write(recording, to: path)
    let runtime = Runtime(classifier: classifier, catalogue: try ExerciseCatalogue.load())
    let frames = Double(recording.frames.count)
    var frame = PeopleFrame()
    return measure(
      "session: JSON line to events", units: frames, unit: "frames", samples: 5, sampleSeconds: 0.5
    ) {
      let source = try! PoseFiles.open(path)
      let session = runtime.makeSession()
      var events = 0.0
      while case .frame = try! source.next(into: &frame) {
        session.push(frame) { _ in events += 1 }
      }
      session.finish { _ in events += 1 }
      return events
    }
  }

  /// A recording as a JSON Lines pose file, a line for every frame (empty when nobody is seen).
  static func write(_ recording: Recording, to path: String) throws {
    let writer = try PoseFileWriter(path: path, format: .jsonl, header: recording.header)
    for frame in recording.frames {
      try writer.write(t: frame.t, people: frame.pose.hasPerson ? [frame.pose] : [])
    }
    try writer.flush()
  }
}
