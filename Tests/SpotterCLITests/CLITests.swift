import Foundation
import TestSupport
import Testing

@Suite struct CommandLineTests {
  @Test func inspectDescribesAPoseFile() throws {
    let path = Fixtures.file(Fixtures.squatFile(frames: 90, fps: 30))
    let result = try SpotterProcess.run(["inspect", path])
    #expect(result.status == 0)
    #expect(result.stdout.contains("coco17 (17 joints; pixels, origin top-left)"))
    #expect(result.stdout.contains("Frames            90"))
    #expect(result.stdout.contains("Duration          2.97 s"))
    #expect(result.stdout.contains("Measured fps      30.00 (header: 30)"))
    #expect(result.stdout.contains("100.0% of frames"))
    #expect(result.stdout.contains("Bad lines         0"))
  }

  @Test func inspectJSONCountsBadLinesAndKeepsTheFirstErrors() throws {
    var lines = Fixtures.squatFile(frames: 10).split(separator: "\n").map(String.init)
    lines.insert("{broken", at: 3)
    lines.insert("{\"t\":9,\"pose\":[]}", at: 6)
    let path = Fixtures.file(lines.joined(separator: "\n"))
    let result = try SpotterProcess.run(["inspect", "--json", path])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["frames"] as? Int == 10)
    #expect(object["bad_lines"] as? Int == 2)
    let errors = try #require(object["errors"] as? [[String: Any]])
    #expect(errors.map { $0["line"] as? Int } == [4, 7])
    #expect(
      (errors[1]["message"] as? String)?.contains("pose has 0 joints; the layout has 17") == true)
    #expect(object["layout"] as? String == "coco17")
    #expect((object["mean_confidence"] as? [String: Double])?["nose"] == 0.9)
  }

  /// A report that could not be written is an error before the stream runs, not after the
  /// workout (a live pipe's would be lost): nothing is printed but the error.
  @Test(arguments: [["classify"], ["count", "--exercise", "squat"]])
  func aReportThatCannotBeWrittenFailsBeforeTheStream(command: [String]) throws {
    let path = Fixtures.file(Fixtures.squatFile(frames: 90, fps: 30))
    let result = try SpotterProcess.run(
      command + ["--report", "/nonexistent-folder/x.html", path])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty, "\(result.stdout)")
    #expect(
      result.stderr.hasPrefix(
        "Error: cannot write /nonexistent-folder/x.html: its folder /nonexistent-folder does not "
          + "exist"), "\(result.stderr)")
  }

  /// `exercises` lists every definition, and says which ones the model can never start (a
  /// label it does not know: a typo, or an exercise it was not trained on).
  @Test func exercisesSaysWhichDefinitionsTheModelCannotStart() throws {
    let folder = Fixtures.temporaryFolder("exercises-labels")
    let squat = String(
      decoding: FileManager.default.contents(
        atPath: repositoryRoot + "/Sources/RepCounting/Definitions/squat.json")!, as: UTF8.self)
    try squat.replacingOccurrences(of: "\"name\": \"squat\"", with: "\"name\": \"deep_squat\"")
      .replacingOccurrences(of: "\"label\": \"squat\"", with: "\"label\": \"squats\"")
      .write(toFile: folder + "/deep_squat.json", atomically: true, encoding: .utf8)
    let result = try SpotterProcess.run(["exercises", "--exercises", folder])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("deep_squat (label squats"))
    #expect(
      result.stdout.contains(
        "the model has no label 'squats': only 'spotter count --exercise deep_squat' counts it"))
    #expect(result.stdout.components(separatedBy: "the model has no label").count == 2)
  }

  /// The rehab mode: a squatter's knees bend and straighten; the range is the difference.
  @Test func measureFollowsAJointsAngle() throws {
    let path = Fixtures.file(Fixtures.squatFile(frames: 120, fps: 30))
    let result = try SpotterProcess.run(["measure", "--joint", "knee", "--json", path])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect((object["frames"] as? [Any])?.count == 120)
    let left = try #require(object["left"] as? [String: Double])
    #expect(left["straightest"]! > left["most_bent"]! + 20)
    #expect(abs(left["range"]! - (left["straightest"]! - left["most_bent"]!)) < 1e-6)
    let table = try SpotterProcess.run(["measure", "--side", "right", path])
    #expect(table.stdout.contains("right: most bent"))
    #expect(try SpotterProcess.run(["measure", "--joint", "ankle", path]).status == 64)
  }

  /// `count --goal`: the stream is one set, which the goal ends with `goal_reached`, as it
  /// ends a set in `classify`; what comes after is not counted, and the summary says so.
  @Test func countStopsAtItsGoal() throws {
    let file = try DaemonTests.recording("squat", reps: 8, seed: 361)
    func events(_ extra: [String]) throws -> [[String: Any]] {
      let result = try SpotterProcess.run(
        ["count", "--exercise", "squat", "--json", file] + extra)
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }
    func squat(_ events: [[String: Any]]) -> [String: Any]? {
      let summary = events.last { $0["type"] as? String == "summary" }
      return (summary?["exercises"] as? [String: [String: Any]])?["squat"]
    }
    let all = try events([])
    #expect(DaemonTests.summary(all)["squat"] == 8)
    // The summary's range of motion, as a session's: the knee's, from the reps' angles.
    let range = try #require(squat(all)?["range_of_motion"] as? [String: Any])
    #expect(range["joint"] as? String == "knee")
    let bestRange = all.filter { $0["type"] as? String == "rep" }.compactMap { rep in
      ((rep["angles"] as? [String: Any])?["left"] as? [String: Double]).map {
        abs($0["top"]! - $0["bottom"]!)
      }
    }.max()
    let best = try #require((range["left"] as? [String: Double])?["best"])
    #expect(abs(best - (bestRange ?? -1)) < 0.1, "\(range)")
    for goal in ["5", "squat:5"] {
      let counted = try events(["--goal", goal])
      let reps = counted.filter { $0["type"] as? String == "rep" }
      let reached = try #require(counted.firstIndex { $0["type"] as? String == "goal_reached" })
      #expect(counted[reached]["goal"] as? String == goal)
      #expect(counted[reached]["exercise"] as? String == "squat")
      #expect(reps.map { $0["count"] as? Int } == [1, 2, 3, 4, 5], "\(goal)")
      // Reached on the frame that counted the fifth rep (a rep's `t` is its end, at or before).
      let fifth = try #require(counted.lastIndex { $0["type"] as? String == "rep" })
      #expect(reached > fifth)
      #expect((counted[reached]["t"] as! Double) >= (counted[fifth]["t"] as! Double))
      #expect(squat(counted)?["reps"] as? Int == 5)
      #expect(squat(counted)?["goals_reached"] as? Int == 1)
    }
    // A time goal: from the stream's first frame, reached at the first frame past it.
    let firstFrame = String(decoding: FileManager.default.contents(atPath: file)!, as: UTF8.self)
      .split(separator: "\n")[1]
    let start = try #require(
      (try JSONSerialization.jsonObject(with: Data(firstFrame.utf8)) as? [String: Any])?["t"]
        as? Double)
    let timed = try events(["--goal", "6s"])
    let reached = try #require(timed.first { $0["type"] as? String == "goal_reached" })
    let reachedAt = try #require(timed.firstIndex { $0["type"] as? String == "goal_reached" })
    #expect(
      !timed[reachedAt...].contains { $0["type"] as? String == "rep" }, "a rep after the goal")
    let after = (reached["t"] as? Double ?? 0) - start
    #expect(after >= 6 - 1e-3 && after <= 6 + 2.0 / 30, "goal after \(after) s")
    #expect(abs((squat(timed)?["active_seconds"] as? Double ?? 0) - 6) <= 2.0 / 30)
    #expect((squat(timed)?["reps"] as? Int ?? 8) < 8)
    let text = try SpotterProcess.run(["count", "--exercise", "squat", "--goal", "5", file])
    #expect(text.stdout.contains("squat: goal 5 reached"), "\(text.stdout)")
    #expect(text.stdout.contains("squat: 5 reps in"), "\(text.stdout)")
    #expect(text.stdout.contains(", goal reached"), "\(text.stdout)")
    let other = try SpotterProcess.run(["count", "--exercise", "squat", "--goal", "lunge:5", file])
    #expect(other.status == 64)
    #expect(other.stderr.hasPrefix("Error: --goal lunge:5 is for lunge; this counts squat"))
  }

  @Test func inspectSaysWhenFramesWereNormalisedEachToItsOwnBox() throws {
    let folder = Fixtures.temporaryFolder("inspect-boxes")
    for (name, extra) in [("plain", [String]()), ("boxed", ["--normalize-per-frame"])] {
      let made = try SpotterProcess.run(
        [
          "synth", "--output", folder + "/" + name, "--exercise", "squat", "--reps", "4",
          "--seed", "7",
        ] + extra)
      #expect(made.status == 0, "\(made.stderr)")
    }
    func from(_ name: String) throws -> Any? {
      let result = try SpotterProcess.run(
        ["inspect", "--json", folder + "/\(name)/synth-000007.jsonl"])
      let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
      return (object as? [String: Any])?["box_normalised_from"]
    }
    #expect(try from("plain") is NSNull)
    #expect(try from("boxed") as? Double != nil)
  }

  /// A file whose scores run low says so, with the factor; one at the reference does not.
  @Test func inspectSaysWhenScoresWereRaised() throws {
    let plain = Fixtures.squatFile(frames: 90)
    var low = ""
    for line in plain.split(separator: "\n") {
      // The fixture's joints score 0.9: a detector scoring 0.4 writes them so.
      low += line.replacingOccurrences(of: ",0.9]", with: ",0.4]") + "\n"
    }
    func report(_ text: String) throws -> [String: Any] {
      let result = try SpotterProcess.run(["inspect", "--json", "-"], stdin: text)
      #expect(result.status == 0, "\(result.stderr)")
      return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        ?? [:]
    }
    let before = try report(plain)
    #expect(before["scores_raised_from"] is NSNull)
    #expect(before["score_factor_max"] as? Double == 1)
    let after = try report(low)
    #expect(after["scores_raised_from"] as? Double == 0)
    #expect(abs((after["score_factor_max"] as? Double ?? 0) - 1.5) < 1e-3)
    let text = try SpotterProcess.run(["inspect", "-"], stdin: low)
    #expect(text.stdout.contains("Scores raised     the detector scores low: raised up to ×1.50"))
  }

  @Test func inspectReadsStandardInput() throws {
    let result = try SpotterProcess.run(["inspect", "-"], stdin: Fixtures.squatFile(frames: 31))
    #expect(result.status == 0)
    #expect(result.stdout.contains("<stdin>"))
    #expect(result.stdout.contains("Frames            31"))
  }

  @Test func helpIsDrivenByTheOptionTableAndShowsDefaults() throws {
    let result = try SpotterProcess.run(["inspect", "--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("Usage: spotter inspect [options] [FILE]"))
    #expect(result.stdout.contains("--errors N"))
    #expect(result.stdout.contains("(default: 5)"))
    let top = try SpotterProcess.run(["--help"])
    #expect(top.status == 0 && top.stdout.contains("inspect"))
  }

  /// The short forms people type: `-h` for `--help` on every command, `-o` for `--output`.
  @Test func shortFlagsWorkWhereUsersTypeThem() throws {
    let help = try SpotterProcess.run(["count", "-h"])
    #expect(help.status == 0, "\(help.stderr)")
    #expect(help.stdout.contains("Usage: spotter count [options] FILE"))
    let folder = Fixtures.temporaryFolder()
    let synth = try SpotterProcess.run([
      "synth", "-o", folder, "--exercise", "squat", "--reps", "2", "--seed", "3",
    ])
    #expect(synth.status == 0, "\(synth.stderr)")
    #expect(FileManager.default.fileExists(atPath: folder + "/annotations.json"))
    #expect(try SpotterProcess.run(["synth", "--help"]).stdout.contains("-o, --output DIR"))
  }

  static let usageErrors: [([String], String)] = [
    (["init-weights"], "Error: --output FILE is required"),
    (
      ["init-weights", "--output", "/tmp/x", "--architecture", "huge"],
      "Error: unknown architecture 'huge'"
    ),
    (["inspect", "--frobnicate", "x"], "Error: unknown option '--frobnicate'"),
    (
      ["inspect", "--errors", "many", "x"],
      "Error: --errors takes a whole number in 0...1000, got 'many'"
    ),
    (["inspect", "a", "b"], "Error: unexpected argument 'b'"),
    (["launch"], "Error: unknown command 'launch'"),
    (
      ["eval", "--annotations", "a.json", "--workouts", "--reps-only"],
      "Error: --workouts scores whole files; --reps-only, --exercise, --fold and --tempo are for "
        + "clips"
    ),
    (
      ["eval", "--annotations", "a.json", "--reps-only", "--whole-files", "--tempo"],
      "Error: --tempo scores clips by their annotated time; --whole-files counts whole files"
    ),
    (
      ["synth", "--output", "/tmp/x", "--seconds-per-rep", "1:2"],
      "Error: --seconds-per-rep pins the tempo realism's tempo; add --realism tempo"
    ),
    (
      ["synth", "--output", "/tmp/x", "--realism", "tempo", "--seconds-per-rep", "2:1"],
      "Error: --seconds-per-rep takes A:B with both in 0.2...20.0, the first no more than the "
        + "second, got '2:1'"
    ),
    (
      ["synth", "--output", "/tmp/x", "--realism", "tempo", "--seconds-per-rep", "fast:1"],
      "Error: --seconds-per-rep takes A:B with both in 0.2...20.0"
    ),
    (
      ["synth", "--output", "/tmp/x", "--azimuth", "60:30"],
      "Error: --azimuth takes A:B with both in -360.0...360.0, the first no more than the second"
    ),
    (
      ["eval", "--annotations", "a.json", "--reps-only", "--frame-rate", "0.5"],
      "Error: --frame-rate takes a number in 1.0...1000.0, got '0.5'"
    ),
    (
      ["eval", "--annotations", "a.json", "--reps-only", "--seed", "3"],
      "Error: --seed is the seed of --shake's and --scores' draws; give one of them too"
    ),
    (
      ["eval", "--annotations", "a.json", "--reps-only", "--scores", "0.6:0.2"],
      "Error: --scores takes LO:HI with both in 0.01...1.0, the first no more than the second, "
        + "got '0.6:0.2'"
    ),
    (
      ["eval", "--annotations", "a.json", "--reps-only", "--scores", "0.5"],
      "Error: --scores takes LO:HI with both in 0.01...1.0"
    ),
    (["synth", "--output", "/tmp/x", "--camera", "ceiling"], "Error: --camera must be one of any"),
    ([], "Error: no command given"),
  ]

  @Test(arguments: usageErrors)
  func usageErrorsExit64WithAHint(_ arguments: [String], _ message: String) throws {
    let result = try SpotterProcess.run(arguments)
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix(message), "got: \(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  @Test func failuresExit1WithTheReason() throws {
    let result = try SpotterProcess.run(["inspect", "/nonexistent/file.jsonl"])
    #expect(result.status == 1)
    #expect(
      result.stderr.hasPrefix("Error: /nonexistent/file.jsonl: no such file or folder\nHint: "))
    let bad = Fixtures.file("{\"spotter\":\"poses\",\"layout\":\"coco99\"}\n")
    let header = try SpotterProcess.run(["inspect", bad])
    #expect(header.status == 1)
    #expect(header.stderr.contains("\(bad):1: unknown layout \"coco99\""))
  }
}
