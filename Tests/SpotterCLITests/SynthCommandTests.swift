import Foundation
import TestSupport
import Testing

@testable import Poses

@Suite struct SynthCommandTests {
  @Test func synthWritesPoseFilesAndAnnotationsThatReadBack() throws {
    let folder = Fixtures.temporaryFolder()
    let result = try SpotterProcess.run([
      "synth", "--output", folder, "--workout", "squat:4, rest:3, lunge:6", "--count", "2",
      "--seed", "11", "--layout", "mediapipe33",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let annotations = try Annotations.read(folder + "/annotations.json")
    #expect(Set(annotations.map(\.fileName)) == ["synth-000011.jsonl", "synth-000012.jsonl"])
    let squats = annotations.filter { $0.label == "squat" }
    #expect(squats.count == 2 && squats.allSatisfy { $0.reps == 4 && $0.repBounds?.count == 4 })
    #expect(annotations.filter { $0.label == "lunge" }.allSatisfy { $0.reps == 6 })
    let source = try PoseFiles.open(annotations[0].resolvedPath)
    #expect(source.header.layout == .mediapipe33)
    let (frames, errors) = try Fixtures.readAll(source)
    #expect(errors.isEmpty && frames.count > 100)
  }

  /// Tempo sets pinned to a band are written with exact rep bounds, and eval --tempo scores
  /// them in that band with silent misses, in text and JSON; what eval printed before the
  /// tempo table is what it prints without --tempo.
  @Test func evalTempoScoresTempoSetsInTheirBand() throws {
    let folder = Fixtures.temporaryFolder()
    let synth = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "6", "--count", "2",
      "--seed", "41", "--camera", "side", "--realism", "tempo", "--seconds-per-rep", "1.3:1.9",
    ])
    #expect(synth.status == 0, "\(synth.stderr)")
    let annotations = try Annotations.read(folder + "/annotations.json")
    for set in annotations where set.label == "squat" {
      let seconds = (set.endTime ?? 0) - (set.startTime ?? 0)
      #expect((1.3...1.9).contains(seconds / 6) && set.repBounds?.count == 6)
    }
    let eval = ["eval", "--annotations", folder + "/annotations.json", "--reps-only"]
    let plain = try SpotterProcess.run(eval)
    let tempo = try SpotterProcess.run(eval + ["--tempo"])
    #expect(tempo.status == 0, "\(tempo.stderr)")
    #expect(tempo.stdout.hasPrefix(plain.stdout.trimmingCharacters(in: .newlines) + "\n\n"))
    let table = tempo.stdout.components(separatedBy: "Rep counting by tempo").last ?? ""
    let row = table.split(separator: "\n").first { $0.hasPrefix("1.2-2 s") }
    #expect(row?.contains("2 (2)") == true && row?.contains(" of 12") == true, "\(table)")
    let json = try SpotterProcess.run(eval + ["--tempo", "--json"])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let rows = try #require(report["tempo"] as? [[String: Any]])
    #expect(rows.map { $0["band"] as? String } == ["1.2-2", "all"])
    let misses = try #require(rows[0]["silent_misses"] as? [String: Int])
    #expect(misses["done"] == 12)
  }

  /// What synth writes, eval --workouts scores through whole sessions, as `spotter classify`
  /// runs them: a set is found where classify reports its exercise over it, whatever the model
  /// makes of the poses (`make eval` measures that).
  @Test func evalWorkoutsScoresSynthesizedWorkoutsAsTimelines() throws {
    let folder = Fixtures.temporaryFolder()
    _ = try SpotterProcess.run([
      "synth", "--output", folder, "--workout", "squat:8, rest:6, jumping_jack:10", "--count", "2",
      "--seed", "21", "--camera", "front",
    ])
    let result = try SpotterProcess.run([
      "eval", "--annotations", folder + "/annotations.json", "--workouts", "--json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(report["files"] as? Int == 2)
    #expect(report["sets"] as? Int == 4)
    let perLabel = try #require(report["per_label"] as? [String: [String: Int]])
    #expect(perLabel.mapValues { $0["sets"] } == ["squat": 2, "jumping_jack": 2])
    let clips = try #require(
      (report["runtime_reps"] as? [String: Any])?["clips"] as? [[String: Any]])
    #expect(clips.map { $0["truth"] as? Int }.sorted { ($0 ?? 0) < ($1 ?? 0) } == [8, 8, 10, 10])
    let found = try #require(report["found"] as? Int)
    for key in ["on_time", "counted_exactly"] {
      #expect((0...found).contains(report[key] as? Int ?? -1), "\(key): \(report)")
    }
    // The sets classify reports an exercise over, from its events.
    var overlapped = 0
    for annotation in try Annotations.read(folder + "/annotations.json")
    where annotation.label != "other" {
      let classified = try SpotterProcess.run(["classify", "--json", annotation.resolvedPath])
      var start: Double?
      var reported: [(start: Double, end: Double)] = []
      for line in classified.stdout.split(separator: "\n") {
        let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        guard event?["exercise"] as? String == annotation.label, let t = event?["t"] as? Double
        else { continue }
        if event?["type"] as? String == "exercise_started" { start = t }
        if event?["type"] as? String == "exercise_ended" { reported.append((start ?? t, t)) }
      }
      let (from, to) = (annotation.startTime ?? 0, annotation.endTime ?? .infinity)
      if reported.contains(where: { $0.start < to && $0.end > from }) { overlapped += 1 }
    }
    #expect(found == overlapped, "\(report)")
  }

  /// --fold-weights scores clip n with model n mod K: the same confusions as each model on its
  /// own fold.
  @Test func foldWeightsScoreEachClipWithTheModelThatLeftItOut() throws {
    let folder = Fixtures.temporaryFolder()
    _ = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "4", "--count", "4",
      "--seed", "31",
    ])
    let annotations = folder + "/annotations.json"
    let shipped = repositoryRoot + "/Weights/default.spotter"
    let tiny = repositoryRoot + "/Weights/tiny.spotter"
    func confusion(_ arguments: [String]) throws -> [[Int]] {
      let result = try SpotterProcess.run(
        ["eval", "--annotations", annotations, "--json"] + arguments)
      #expect(result.status == 0, "\(result.stderr)")
      let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
      return try #require((report as? [String: Any])?["confusion"] as? [[Int]])
    }
    let together = try confusion(["--fold-weights", shipped, "--fold-weights", tiny])
    let apart = zip(
      try confusion(["--weights", shipped, "--fold", "0/2"]),
      try confusion(["--weights", tiny, "--fold", "1/2"])
    ).map { zip($0, $1).map(+) }
    #expect(together == apart)
    #expect(together.joined().reduce(0, +) == (try Annotations.read(annotations)).count)
    let refused = try SpotterProcess.run([
      "eval", "--annotations", annotations, "--fold-weights", shipped, "--weights", tiny,
    ])
    #expect(refused.status == 64)
    #expect(
      refused.stderr.hasPrefix("Error: --fold-weights takes K ≥ 2 files"), "\(refused.stderr)")
  }

  /// The clips a model gets wrong: one entry each in --json (as many as the confusion's
  /// off-diagonal), and the N labelled most confidently wrong in the text, largest margin
  /// first.
  @Test func mislabelledClipsAreListedMostConfidentFirst() throws {
    let folder = Fixtures.temporaryFolder()
    _ = try SpotterProcess.run([
      "synth", "--output", folder, "--workout", "squat:4, rest:3, lunge:4, rest:3", "--count", "3",
      "--seed", "35",
    ])
    let tiny = repositoryRoot + "/Weights/tiny.spotter"
    let arguments = ["eval", "--annotations", folder + "/annotations.json", "--weights", tiny]
    let json = try SpotterProcess.run(arguments + ["--json"])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let confusion = try #require(report["confusion"] as? [[Int]])
    let wrong =
      confusion.joined().reduce(0, +) - confusion.indices.reduce(0) { $0 + confusion[$1][$1] }
    let listed = try #require(report["mislabelled"] as? [[String: Any]])
    #expect(wrong >= 2 && listed.count == wrong, "\(confusion)")
    let margins = listed.map {
      ($0["probability"] as? Double ?? 0) - ($0["truth_probability"] as? Double ?? 0)
    }.sorted(by: >)
    let text = try SpotterProcess.run(arguments + ["--worst", "2"]).stdout
    let lines = text.split(separator: "\n").drop { !$0.hasPrefix("Mislabelled") }.dropFirst()
      .prefix { $0.hasPrefix("  ") }
    #expect(lines.count == 2, "\(text)")
    let shown = lines.map { line in
      let fields = line.split(separator: " ")
      return Double(fields[fields.count - 1])! - Double(fields[fields.count - 3])!
    }
    for (got, want) in zip(shown, margins) { #expect(abs(got - want) < 0.006) }
  }

  @Test func theSameSeedWritesTheSameBytes() throws {
    let a = Fixtures.temporaryFolder()
    let b = Fixtures.temporaryFolder()
    for folder in [a, b] {
      _ = try SpotterProcess.run([
        "synth", "--output", folder, "--exercise", "push_up", "--reps", "3", "--seed", "5",
      ])
    }
    #expect(
      FileManager.default.contents(atPath: a + "/synth-000005.jsonl")
        == FileManager.default.contents(atPath: b + "/synth-000005.jsonl"))
    #expect(
      FileManager.default.contents(atPath: a + "/annotations.json")
        == FileManager.default.contents(atPath: b + "/annotations.json"))
  }

  /// Frames min-max normalised to their own box, in pixels and in normalised coordinates
  /// with an image size (which the reader scales to pixels): recognised in both, and eval
  /// counts each file as `spotter count` does, the rep engine learning that positions are lost
  /// at the tick the stream is recognised (seed 62 counts differently when it is told from the
  /// first frame).
  @Test(arguments: ["pixels", "normalized"])
  func evalCountsBoxNormalisedFramesAsCountDoes(units: String) throws {
    let folder = Fixtures.temporaryFolder()
    _ = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "6", "--seed", "62",
      "--realism", "everyday", "--camera", "side", "--normalize-per-frame", "--units", units,
    ])
    let count = try SpotterProcess.run([
      "count", "--exercise", "squat", "--json", folder + "/synth-000062.jsonl",
    ])
    #expect(count.status == 0, "\(count.stderr)")
    let summary = try #require(count.stdout.split(separator: "\n").last)
    let counted = try #require(
      (try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        .flatMap { $0["exercises"] as? [String: [String: Any]] }?["squat"]?["reps"] as? Int)
    #expect((5...7).contains(counted), "counted \(counted) of 6")
    let eval = try SpotterProcess.run([
      "eval", "--annotations", folder + "/annotations.json", "--reps-only", "--whole-files",
      "--exercise", "squat", "--json",
    ])
    #expect(eval.status == 0, "\(eval.stderr)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(eval.stdout.utf8)) as? [String: Any])
    let clips = try #require((report["reps"] as? [String: Any])?["clips"] as? [[String: Any]])
    #expect(clips.map { $0["counted"] as? Int } == [counted])
  }

  /// `eval --frame-rate`, clips and whole files: the rep engines at 15 frames a second still
  /// count clean squats, and whole files are scored as the frames a 15 fps detector gives (the
  /// first at or after each 1/15 s), written to a file of their own; at one frame a second
  /// every frame is a gap of its own, and nothing is found or counted.
  @Test func evalFrameRateKeepsOnlyThatDetectorsFrames() throws {
    let folder = Fixtures.temporaryFolder()
    _ = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "6", "--count", "2",
      "--seed", "41", "--camera", "side", "--fps", "30", "--noise", "light",
    ])
    func report(_ arguments: [String], in folder: String = folder) throws -> [String: Any] {
      let result = try SpotterProcess.run(
        ["eval", "--annotations", folder + "/annotations.json", "--json"] + arguments)
      #expect(result.status == 0, "\(result.stderr)")
      return try #require(
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }
    func counted(_ rate: String) throws -> [Int] {
      let clips = try #require(
        (try report(["--reps-only", "--frame-rate", rate])["reps"] as? [String: Any])?["clips"]
          as? [[String: Any]])
      return clips.compactMap { $0["counted"] as? Int }
    }
    let at15 = try counted("15")
    #expect(at15.count == 2 && at15.allSatisfy { (5...7).contains($0) }, "\(at15)")
    #expect(try counted("1") == [0, 0])
    // The files as a 15 fps detector writes them, beside the same annotations.
    let thinned = Fixtures.temporaryFolder()
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
      let lines = String(
        decoding: FileManager.default.contents(atPath: folder + "/" + name)!, as: UTF8.self
      ).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      var kept = name.hasSuffix(".jsonl") ? [lines[0]] : lines
      var (origin, next): (Double?, Int) = (nil, 0)
      for line in lines.dropFirst() where name.hasSuffix(".jsonl") && !line.isEmpty {
        let t = try #require(
          (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["t"]
            as? Double)
        origin = origin ?? t
        let tick = (t - origin! + 1e-3) * 15
        guard tick >= Double(next) else { continue }
        next = Int(tick.rounded(.down)) + 1
        kept.append(line)
      }
      try (kept.joined(separator: "\n") + (name.hasSuffix(".jsonl") ? "\n" : ""))
        .write(toFile: thinned + "/" + name, atomically: true, encoding: .utf8)
    }
    let at15Workouts = try report(["--workouts", "--frame-rate", "15"])
    let written = try report(["--workouts"], in: thinned)
    #expect(at15Workouts as NSDictionary == written as NSDictionary, "\(at15Workouts)")
    #expect(try report(["--workouts", "--frame-rate", "1"])["found"] as? Int == 0)
  }

  /// A clip whose label no definition counts (a typo) is said to be left out, not silently.
  @Test func evalNamesRepClipsNoDefinitionCounts() throws {
    let folder = Fixtures.temporaryFolder()
    _ = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "4", "--seed", "43",
    ])
    let path = folder + "/annotations.json"
    let text = String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self)
    try text.replacingOccurrences(of: "\"squat\"", with: "\"squats\"")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let result = try SpotterProcess.run(["eval", "--annotations", path, "--reps-only"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.contains(
        "(1 clip labelled 'squats' gives reps, but no exercise definition has that label: not "
          + "counted)"), "\(result.stdout)")
  }

  @Test(arguments: [
    (["synth"], "Error: --output DIR is required"),
    (["synth", "--output", "/tmp/x", "--exercise", "burpee"], "Error: unknown exercise 'burpee'"),
    (
      ["synth", "--output", "/tmp/x", "--workout", "squat:ten"],
      "Error: --workout: item 1 'squat:ten' must be NAME:NUMBER"
    ),
    (
      ["synth", "--output", "/tmp/x", "--camera", "drone"],
      "Error: --camera must be one of any, front, side, oblique, back, floor, elevated"
    ),
  ])
  func badOptionsAreUsageErrors(arguments: [String], message: String) throws {
    let result = try SpotterProcess.run(arguments)
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix(message), "got \(result.stderr)")
  }
}
