import Foundation
import Poses
import TestSupport

/// Pose decoding: JSON Lines frames to canonical poses, the front of the per-frame path.
enum PoseBenchmarks {
  /// Decodes a file of `frames` squatter frames (coco17, one person) end to end per iteration.
  static func decodeJSONLines(frames: Int) throws -> Measurement {
    let path = NSTemporaryDirectory() + "spotter-bench-\(getpid()).jsonl"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Fixtures.squatFile(frames: frames).write(toFile: path, atomically: false, encoding: .utf8)
    // Check before timing: every frame decodes, with its person.
    let check = try Fixtures.readAll(PoseFiles.open(path))
    precondition(
      check.frames.count == frames && check.errors.isEmpty
        && check.frames.allSatisfy { $0.people.count == 1 })
    var frame = PeopleFrame()
    return measure(
      "decode jsonl (coco17, 1 person)", units: Double(frames), unit: "frames", samples: 9,
      sampleSeconds: 0.2
    ) {
      let source = try! PoseFiles.open(path)
      var decoded = 0.0
      while case .frame = try! source.next(into: &frame) {
        decoded += Double(frame.people[0][.nose].x)
      }
      return decoded
    }
  }

  /// The whole per-frame pose path after decoding: person choice, resampling, features, window.
  static func posePipeline() -> Measurement {
    let poses = (0..<300).map { Fixtures.squatter(at: Double($0) / 30) }
    var selector = PersonSelector()
    var people: [Pose] = []
    people.reserveCapacity(4)
    var resampler = Resampler()
    var extractor = FeatureExtractor()
    var window = PoseWindow()
    var features = [Float](repeating: 0, count: FeatureSpec().featuresPerFrame)
    var clock = 0.0
    return measure(
      "select + resample + features + window", units: Double(poses.count), unit: "frames"
    ) {
      var total = 0.0
      for pose in poses {
        people.removeAll(keepingCapacity: true)
        people.append(pose)
        let chosen = selector.select(people)
        resampler.push(t: clock, pose: chosen) { tick, _ in
          features.withUnsafeMutableBufferPointer { extractor.extract(tick, into: $0) }
          features.withUnsafeBufferPointer { window.push($0) }
        }
        clock += 1.0 / 30
        total += Double(window.presentCount)
      }
      return total
    }
  }
}
