import Foundation
import MotionSynth
import Randomness
import Reporting
import Spotter
import Testing

/// The page drawn from synthetic sessions with known counts: well formed, self-contained, and
/// one mark per rep event and per `rep_rejected` event.
@Suite(.serialized) struct ReportPageTests {
  struct CountCase: Sendable, CustomTestStringConvertible {
    var exercise: String
    var motion: ExerciseMotion
    var reps: Int
    var partialReps = 0
    var seed: UInt64
    var everyday = false
    var strict = false
    /// The reps the engine counts (the truth, for these clean sets).
    var counted: Int?
    /// Whether the set has movements that do not count.
    var refused = false

    var testDescription: String {
      "\(exercise) ×\(reps), seed \(seed)" + (everyday ? ", everyday" : "")
        + (strict ? ", strict" : "")
    }
  }

  static let countCases = [
    CountCase(exercise: "squat", motion: .squat, reps: 8, seed: 3, counted: 8),
    CountCase(exercise: "push_up", motion: .pushUp, reps: 6, seed: 4, counted: 6),
    CountCase(exercise: "bicep_curl", motion: .bicepCurl, reps: 10, seed: 6, counted: 10),
    // Two signals (height and lean), a side each rep.
    CountCase(exercise: "knee_raise", motion: .kneeRaise, reps: 8, seed: 6, counted: 8),
    // The staged engine.
    CountCase(exercise: "knee_raise_stages", motion: .kneeRaise, reps: 8, seed: 6),
    // Shallow reps, refused as partial when counting strictly.
    CountCase(
      exercise: "squat", motion: .squat, reps: 10, partialReps: 2, seed: 1, everyday: true,
      strict: true, refused: true),
    CountCase(
      exercise: "push_up", motion: .pushUp, reps: 10, partialReps: 2, seed: 2, everyday: true,
      strict: true, refused: true),
  ]

  @Test(arguments: countCases)
  func countedSetHasOneMarkPerRepAndPerRefusal(_ example: CountCase) throws {
    let recording = ReportFixtures.recording(
      .single(example.motion, reps: example.reps, partialReps: example.partialReps),
      seed: example.seed, everyday: example.everyday)
    let (events, report) = ReportFixtures.count(
      recording, exercise: example.exercise, strict: example.strict)
    let reps = ReportFixtures.repEvents(events)
    let refusals = ReportFixtures.rejections(events)
    if let counted = example.counted { #expect(reps.count == counted) }
    if example.refused { #expect(!refusals.isEmpty) }
    let page = ReportPage.html(report)
    try expectWellFormedAndSelfContained(page)
    #expect(ReportFixtures.occurrences(of: "data-mark=\"rep\"", in: page) == reps.count)
    #expect(ReportFixtures.occurrences(of: "data-mark=\"refusal\"", in: page) == refusals.count)
    // Each rep's mark carries its number, once.
    for count in 1...max(reps.count, 1) where !reps.isEmpty {
      #expect(
        ReportFixtures.occurrences(of: "data-mark=\"rep\" data-count=\"\(count)\"", in: page) == 1)
    }
    #expect(report.sets.count == 1)
    #expect(report.repCount == reps.count)
    #expect(report.refusalCount == refusals.count)
  }

  @Test func repsDoneASideAtATimeAreComparedLeftAgainstRight() {
    let recording = ReportFixtures.recording(.single(.kneeRaise, reps: 8), seed: 6)
    let (_, report) = ReportFixtures.count(recording, exercise: "knee_raise")
    let analysis = try! #require(report.sets.first?.analysis)
    #expect(Set(analysis.sides.map(\.side)) == ["left", "right"])
    #expect(analysis.sides.reduce(0) { $0 + $1.reps } == report.repCount)
    let page = ReportPage.html(report)
    #expect(page.contains("Left against right"))
  }

  @Test func typicalAndWorstRepsAreDrawnFromThePoses() throws {
    let recording = ReportFixtures.recording(.single(.squat, reps: 8), seed: 3)
    let (_, report) = ReportFixtures.count(recording, exercise: "squat")
    let set = try #require(report.sets.first)
    let analysis = try #require(set.analysis)
    let typical = try #require(analysis.typical)
    let worst = try #require(analysis.worst)
    #expect(typical.count != worst.count)
    let shallowest = set.reps.min { $0.rangeOfMotion < $1.rangeOfMotion }!
    #expect(worst.count == shallowest.count)
    // The bottom of a squat is lower in the picture than its top: hips further down (y down).
    let hip = 8  // right_hip
    let top = try #require(typical.start.joints[hip])
    let bottom = try #require(typical.turn.joints[hip])
    #expect(bottom.y > top.y)
    let page = ReportPage.html(report)
    #expect(page.contains("Typical rep"))
    #expect(page.contains("Worst rep"))
  }

  /// A random everyday workout through a session, its classifier scripted right: its sets,
  /// reps backfilled as each was recognised, movements refused for several reasons.
  @Test func sessionPageMarksEveryRepAndRefusalAndTheBackfill() throws {
    // The first of a few seeds whose workout shows both (most do).
    var events: [SpotterEvent] = []
    var session: SessionReport?
    for seed: UInt64 in 10..<40 {
      var generator = SeededGenerator(seed: seed ^ 0x5EED)
      let plan = WorkoutPlan.random(sets: 3, generator: &generator)
      (events, session) = ReportFixtures.session(
        ReportFixtures.recording(plan, seed: seed, everyday: true))
      let shows =
        !ReportFixtures.rejections(events).isEmpty
        && ReportFixtures.repEvents(events).contains {
          if case .rep(_, _, _, true) = $0 { true } else { false }
        }
      if shows { break }
    }
    let report = try #require(session)
    let reps = ReportFixtures.repEvents(events)
    let refusals = ReportFixtures.rejections(events)
    let backfilled = reps.filter {
      if case .rep(_, _, _, true) = $0 { true } else { false }
    }
    #expect(!refusals.isEmpty)
    #expect(!backfilled.isEmpty)
    let page = ReportPage.html(report)
    try expectWellFormedAndSelfContained(page)
    #expect(ReportFixtures.occurrences(of: "data-mark=\"rep\"", in: page) == reps.count)
    #expect(ReportFixtures.occurrences(of: "data-mark=\"refusal\"", in: page) == refusals.count)
    #expect(
      ReportFixtures.occurrences(of: "data-backfilled=\"true\"", in: page) == backfilled.count)
    // The timeline: one set per exercise_started, each recognised after its backfill began.
    let starts = events.filter { $0.type == "exercise_started" }
    #expect(report.sets.count == starts.count)
    #expect(report.sets.allSatisfy { set in set.backfill.map { $0.start <= $0.end } ?? true })
    #expect(report.predictions.count > 0)
    #expect(report.labels == ReportFixtures.runtime.classifier!.labels)
    #expect(!report.presence.isEmpty)
    // The summary's totals are the session's.
    guard case .summary(_, let totals, _) = events.last else {
      Issue.record("the session ended without a summary")
      return
    }
    #expect(report.totals.map(\.reps) == totals.map(\.reps))
  }

  @Test func jsonHoldsTheSameReport() throws {
    let recording = ReportFixtures.recording(.single(.squat, reps: 6), seed: 7)
    let (_, report) = ReportFixtures.session(recording)
    let decoded = try SessionReport(json: try report.jsonData())
    #expect(decoded == report)
    let object = try #require(
      try JSONSerialization.jsonObject(with: try report.jsonData()) as? [String: Any])
    let sets = try #require(object["sets"] as? [[String: Any]])
    let reps = sets.compactMap { $0["reps"] as? [[String: Any]] }.joined()
    #expect(reps.count == report.repCount)
    #expect(reps.allSatisfy { $0["range_of_motion"] is Double && $0["time_down"] is Double })
  }

  @Test func emptySessionStillMakesAPage() throws {
    let report = ReportRecorder(source: "nothing") { _ in nil }.report()
    let page = ReportPage.html(report)
    try expectWellFormedAndSelfContained(page)
    #expect(page.contains("No exercise was recognised."))
  }

  func expectWellFormedAndSelfContained(_ page: String) throws {
    let parsed = ReportFixtures.parse(page)
    #expect(parsed.wellFormed, "not well-formed: \(parsed.error ?? "")")
    #expect(parsed.elements.first == "html")
    #expect(parsed.elements.contains("head") && parsed.elements.contains("body"))
    #expect(parsed.elements.contains("svg"))
    for reference in ReportFixtures.outsideReferences {
      #expect(!page.contains(reference), "the page holds \(reference)")
    }
  }
}
