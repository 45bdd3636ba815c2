import Foundation
import TestSupport
import Testing

/// `spotter report`, `spotter count --report` and `spotter classify --report`, run as a user
/// runs them: the marks on each page against the events the same run printed.
@Suite(.serialized) struct ReportCommandTests {
  static func spotter(_ arguments: [String]) throws -> SpotterProcess.Result {
    try SpotterProcess.run(arguments)
  }

  /// A synthetic recording with known counts, and the folder it is in.
  static func synth(_ arguments: [String]) throws -> (folder: String, poses: String) {
    let folder = Fixtures.temporaryFolder("report")
    let result = try spotter(
      ["synth", "--camera", "front", "--fps", "30", "--seed", "3", "--output", folder]
        + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return (folder, folder + "/synth-000003.jsonl")
  }

  static func events(_ ndjson: String) -> [[String: Any]] {
    ndjson.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  static func page(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  static func marks(_ kind: String, _ page: String) -> Int {
    ReportFixtures.occurrences(of: "data-mark=\"\(kind)\"", in: page)
  }

  @Test func countWritesThePageAsItRuns() throws {
    let (folder, poses) = try Self.synth(["--exercise", "squat", "--reps", "6"])
    let result = try Self.spotter([
      "count", "--exercise", "squat", "--json", "--report", folder + "/count.html", poses,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let events = Self.events(result.stdout)
    let reps = events.filter { $0["type"] as? String == "rep" }
    #expect(reps.count == 6)
    let page = try Self.page(folder + "/count.html")
    #expect(ReportFixtures.parse(page).wellFormed)
    #expect(Self.marks("rep", page) == reps.count)
    #expect(
      Self.marks("refusal", page) == events.filter { $0["type"] as? String == "rep_rejected" }.count
    )
  }

  @Test func classifyWritesThePageAndPrintsOnlyWhatItWasAskedFor() throws {
    let (folder, poses) = try Self.synth(["--workout", "squat:8, rest:4, push_up:6"])
    let result = try Self.spotter(["classify", "--json", "--report", folder + "/c.html", poses])
    #expect(result.status == 0, "\(result.stderr)")
    let events = Self.events(result.stdout)
    // The band needs every prediction; they are not printed unless asked for.
    #expect(!events.contains { $0["type"] as? String == "prediction" })
    let page = try Self.page(folder + "/c.html")
    #expect(ReportFixtures.parse(page).wellFormed)
    #expect(Self.marks("rep", page) == events.filter { $0["type"] as? String == "rep" }.count)
    #expect(
      Self.marks("refusal", page) == events.filter { $0["type"] as? String == "rep_rejected" }.count
    )
    #expect(
      ReportFixtures.occurrences(of: "data-backfilled=\"true\"", in: page)
        == events.filter { $0["type"] as? String == "rep" && $0["backfilled"] as? Bool == true }
        .count)
    let withPredictions = try Self.spotter(["classify", "--json", "--predictions", poses])
    #expect(Self.events(withPredictions.stdout).contains { $0["type"] as? String == "prediction" })
  }

  @Test func reportWritesThePageAndItsData() throws {
    let (folder, poses) = try Self.synth(["--exercise", "bicep_curl", "--reps", "8"])
    let counted = try Self.spotter(["count", "--exercise", "bicep_curl", "--json", poses])
    let reps = Self.events(counted.stdout).filter { $0["type"] as? String == "rep" }.count
    let output = folder + "/curls.html"
    let result = try Self.spotter([
      "report", poses, "--exercise", "bicep_curl", "--output", output, "--json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("Wrote \(output)"))
    #expect(result.stdout.contains("Wrote \(folder)/curls.json"))
    #expect(result.stdout.contains("1 set, \(reps) reps"))
    let page = try Self.page(output)
    #expect(Self.marks("rep", page) == reps)
    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/curls.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let sets = try #require(object["sets"] as? [[String: Any]])
    #expect(sets.map { ($0["reps"] as? [Any])?.count ?? 0 } == [reps])
  }

  @Test func reportThroughTheClassifierMatchesClassify() throws {
    let (folder, poses) = try Self.synth(["--workout", "jumping_jack:10, walking:4, lunge:8"])
    let classified = try Self.spotter(["classify", "--json", poses])
    let events = Self.events(classified.stdout)
    let result = try Self.spotter(["report", poses, "--output", folder + "/r.html"])
    #expect(result.status == 0, "\(result.stderr)")
    let page = try Self.page(folder + "/r.html")
    #expect(Self.marks("rep", page) == events.filter { $0["type"] as? String == "rep" }.count)
    #expect(
      Self.marks("refusal", page) == events.filter { $0["type"] as? String == "rep_rejected" }.count
    )
  }

  @Test func badUsageIsAUsageError() throws {
    let missing = try Self.spotter(["report"])
    #expect(missing.status == 64)
    #expect(missing.stderr.contains("missing argument POSES"))
    let (_, poses) = try Self.synth(["--exercise", "squat", "--reps", "2"])
    let unknown = try Self.spotter(["report", poses, "--exercise", "nope"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("unknown exercise 'nope'"))
    let unwritable = try Self.spotter([
      "report", poses, "--exercise", "squat", "--output", "/nonexistent/folder/r.html",
    ])
    #expect(unwritable.status == 1)
    #expect(unwritable.stderr.contains("Error: cannot write /nonexistent/folder/r.html"))
  }
}
