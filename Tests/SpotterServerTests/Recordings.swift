import ActionModel
import Foundation
import MotionSynth
import Poses
import RepCounting
import Spotter

/// The streams the tests send: synthetic workouts as pose-file lines, and the runtime the
/// daemon would serve them with (the shipped model).
enum Recordings {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
  static let runtime = Runtime(
    classifier: try! WeightsFile.load(repository + "/Weights/default.spotter"),
    catalogue: try! ExerciseCatalogue.load())
  /// The same, with every window's prediction an event (`spotter serve --predictions`).
  static let predicting: Runtime = {
    var options = runtime.options
    options.reportPredictions = true
    return Runtime(classifier: runtime.classifier, catalogue: runtime.catalogue, options: options)
  }()

  /// A workout seen from the front, as the lines of a pose file (the header first).
  static func lines(_ plan: String, seed: UInt64) -> [String] {
    var options = RecordingOptions()
    options.camera = .front
    let recording = Recorder.record(try! WorkoutPlan.parse(plan), options: options, seed: seed)
    return [recording.header.jsonLine]
      + recording.frames.map {
        PoseFileWriter.jsonFrameLine(
          t: $0.t, people: $0.pose.hasPerson ? [$0.pose] : [], header: recording.header)
      }
  }

  /// Two people in one picture, one plan each, as the lines of a pose file.
  static func group(_ plans: [String], seed: UInt64) -> [String] {
    var options = RecordingOptions()
    options.camera = .front
    let group = Recorder.recordGroup(
      plans.map { try! WorkoutPlan.parse($0) }, options: options, seed: seed)
    return [group.header.jsonLine]
      + group.frames.map {
        PoseFileWriter.jsonFrameLine(t: $0.t, people: $0.people, header: group.header)
      }
  }

  static let squats = lines("squat:6", seed: 361)
  static let workout = lines("squat:5, rest:4, jumping_jack:8", seed: 41)

  /// The header line with `keys` (`"resume":"…"`) added.
  static func header(_ line: String, _ keys: String) -> String {
    String(line.dropLast()) + "," + keys + "}"
  }

  /// Lines as a stream's bytes, each with its newline.
  static func text(_ lines: [String]) -> String { lines.map { $0 + "\n" }.joined() }

  /// Lines without the stream's `checkpoint` lines: where they land among the events depends
  /// on when the history stores them (here, at the end of the round that took them).
  static func withoutCheckpoints(_ lines: [String]) -> [String] {
    lines.filter { !$0.hasPrefix(#"{"type":"checkpoint","#) }
  }

  static func object(_ line: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }

  /// The reps of each exercise in a stream's last summary.
  static func summary(_ lines: [String]) -> [String: Int] {
    guard let line = lines.last(where: { $0.contains(#""type":"summary""#) }),
      let exercises = object(line)?["exercises"] as? [String: [String: Any]]
    else { return [:] }
    return exercises.mapValues { $0["reps"] as? Int ?? -1 }
  }
}
