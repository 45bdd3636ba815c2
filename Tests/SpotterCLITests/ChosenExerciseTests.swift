import Foundation
import Poses
import RepCounting
import Spotter
import TestSupport
import Testing

/// An exercise the person chose counts the same through every surface: the Swift API
/// (`Runtime.makeSession(exercise:)`), `spotter count`, the daemon (`"exercise"` in the
/// header) and C (`spotter_session_create_exercise`), event line for event line.
@Suite struct ChosenExerciseTests {
  /// The event lines of a session for `exercise` over `file`, through the Swift API, with no
  /// model.
  static func swiftEvents(
    _ file: String, exercise: String, people: Int = 1, goals: [Goal] = []
  ) throws -> [String] {
    var options = SessionOptions()
    options.goals = goals
    let runtime = Runtime(
      classifier: nil, catalogue: try ExerciseCatalogue.load(), options: options)
    let session = try runtime.makeSession(exercise: exercise, people: people)
    var lines: [String] = []
    try session.run(try PoseFiles.open(file)) { lines.append($1.jsonLine(person: $0)) }
    return lines
  }

  /// `file`'s frames as the C program reads them: a time, how many people, and each one's
  /// canonical triples (people nobody is seen in left out; one person: the most prominent).
  static func cFrames(_ file: String, people: Int) throws -> String {
    let (frames, _) = try Fixtures.readAll(PoseFiles.open(file))
    var text = ""
    for frame in frames {
      let seen = frame.people.filter(\.hasPerson).prefix(people == 1 ? 1 : .max)
      let triples = seen.flatMap { pose in
        CanonicalJoint.allCases.flatMap { [pose[$0].x, pose[$0].y, pose[$0].confidence] }
      }
      text += "\(frame.t) \(seen.count) " + triples.map { "\($0)" }.joined(separator: " ") + "\n"
    }
    let input = Fixtures.temporaryFolder("spotter-c-chosen") + "/frames-\(people).txt"
    try text.write(toFile: input, atomically: true, encoding: .utf8)
    return input
  }

  static let program = #"""
    #include "spotter.h"
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>

    static float joints[54 * 64];

    \#(CInterfaceTests.finishAndPrint)
    int main(int argc, char **argv) {
      char error[256];
      spotter_runtime *bare = spotter_runtime_create(NULL, error, sizeof error);
      if (!bare) { printf("runtime without a model failed: %s\n", error); return 11; }
      if (spotter_session_create_exercise(bare, argv[1], 2, error, sizeof error) == NULL)
        return 20;
      spotter_runtime_free(bare);
      spotter_runtime *runtime =
          spotter_runtime_create_options(NULL, NULL, argv[3], 0, error, sizeof error);
      if (!runtime) { printf("runtime failed: %s\n", error); return 12; }
      if (spotter_session_create(runtime) != NULL) return 13;  /* no model: chosen only */
      if (spotter_session_create_exercise(runtime, "curtsy", 1, error, sizeof error) != NULL)
        return 14;
      if (strstr(error, "unknown exercise 'curtsy'") == NULL) return 15;
      if (spotter_session_create_exercise(runtime, argv[1], 65, error, sizeof error) != NULL)
        return 16;
      int people = argc > 4 ? atoi(argv[4]) : 1;
      spotter_session *session =
          spotter_session_create_exercise(runtime, argv[1], people, error, sizeof error);
      if (!session) { printf("session failed: %s\n", error); return 17; }
      FILE *frames = fopen(argv[2], "r");
      if (!frames) return 18;
      double t;
      int count;
      while (fscanf(frames, "%lf %d", &t, &count) == 2) {
        if (count < 0 || count > 64) return 21;
        for (int i = 0; i < count * 54; i++)
          if (fscanf(frames, "%f", &joints[i]) != 1) return 19;
        if (people > 1)
          spotter_session_push_people(session, t, joints, count);
        else
          spotter_session_push_pose(session, t, count ? joints : NULL);
      }
      fclose(frames);
      finish_and_print(session);
      spotter_runtime_free(runtime);
      return 0;
    }
    """#

  /// A squat set, the same events from Swift, `spotter count --json` and C; a goal ends the
  /// set at its reps the same way in each.
  @Test(arguments: ["", "squat:4"])
  func theSwiftAPICountAndCGiveTheSameEvents(goal: String) throws {
    let file = try DaemonTests.recording("squat", reps: 7, seed: 371)
    let goals = goal.isEmpty ? [] : [Goal(goal)!]
    let fromSwift = try Self.swiftEvents(file, exercise: "squat", goals: goals)
    #expect(fromSwift.filter { $0.contains(#""type":"rep""#) }.count == (goal.isEmpty ? 7 : 4))
    #expect(fromSwift.first?.contains(#""type":"exercise_started""#) == true)
    #expect(fromSwift.last?.contains(#""type":"summary""#) == true)

    let counted = try SpotterProcess.run(
      ["count", "--exercise", "squat", "--json", file] + (goal.isEmpty ? [] : ["--goal", goal]))
    #expect(counted.status == 0, "\(counted.stderr)")
    #expect(counted.stdout.split(separator: "\n").map(String.init) == fromSwift)

    let (status, output) = try CInterfaceTests.compileAndRun(
      Self.program, arguments: ["squat", try Self.cFrames(file, people: 1), goal])
    #expect(status == 0, "\(output)")
    #expect(output.split(separator: "\n").map(String.init) == fromSwift)
  }

  /// Two people side by side (one squats, one does jumping jacks), squats chosen for both:
  /// each followed with their own id and count, the same events from Swift, `spotter count
  /// --people 2`, C (`spotter_session_push_people`) and the daemon (`"people": 2` in the header;
  /// its summaries add drop counters, so their reps are compared).
  @Test func severalPeopleCountTheSameThroughEverySurface() throws {
    let file = try DaemonTests.group(seed: 33)
    let fromSwift = try Self.swiftEvents(file, exercise: "squat", people: 2)
    let people = Set(fromSwift.compactMap { DaemonTests.object($0)?["person"] as? Int })
    #expect(people == [1, 2], "\(fromSwift.prefix(3))")
    #expect(fromSwift.filter { $0.contains(#""type":"rep""#) }.count >= 7)

    let counted = try SpotterProcess.run([
      "count", "--exercise", "squat", "--people", "2", "--json", file,
    ])
    #expect(counted.status == 0, "\(counted.stderr)")
    #expect(counted.stdout.split(separator: "\n").map(String.init) == fromSwift)

    let (status, output) = try CInterfaceTests.compileAndRun(
      Self.program, arguments: ["squat", try Self.cFrames(file, people: 2), "", "2"])
    #expect(status == 0, "\(output)")
    #expect(output.split(separator: "\n").map(String.init) == fromSwift)

    var lines = DaemonTests.lines(of: file)
    lines[0] = String(lines[0].dropLast()) + #","people":2,"exercise":"squat"}"#
    let server = try DaemonTests.Server()
    let client = try DaemonTests.Client(socket: server.socket)
    client.stream(Fixtures.file(named: "chosen-people.jsonl", lines.joined(separator: "\n") + "\n"))
    let served = client.finish()
    let isSummary = { (line: String) in line.contains(#""type":"summary""#) }
    #expect(client.lines.filter { !isSummary($0) } == fromSwift.filter { !isSummary($0) })
    for person in people {
      let mine = { (event: [String: Any]) in event["person"] as? Int == person }
      #expect(
        DaemonTests.summary(served.filter(mine))
          == DaemonTests.summary(fromSwift.compactMap(DaemonTests.object).filter(mine)))
    }
    #expect(server.stop() == 0)
  }

  /// The daemon counts a stream whose header chooses the exercise as the Swift API does (its
  /// summary adds the daemon's drop counters, so its reps are compared instead); an unknown
  /// one is an error on line 1, and the classifier chooses.
  @Test func aStreamsHeaderChoosesItsExercise() throws {
    let file = try DaemonTests.recording("squat", reps: 6, seed: 372)
    var lines = DaemonTests.lines(of: file)
    let header = lines[0]
    let server = try DaemonTests.Server()
    func events(exercise: String) throws -> (lines: [String], events: [[String: Any]]) {
      lines[0] = String(header.dropLast()) + #","exercise":""# + exercise + #""}"#
      let client = try DaemonTests.Client(socket: server.socket)
      client.stream(Fixtures.file(named: "chosen.jsonl", lines.joined(separator: "\n") + "\n"))
      let events = client.finish()
      return (client.lines, events)
    }
    let expected = try Self.swiftEvents(file, exercise: "squat")
    let chosen = try events(exercise: "squat")
    #expect(chosen.lines.dropLast() == expected.dropLast())
    #expect(
      DaemonTests.summary(chosen.events)
        == DaemonTests.summary(expected.suffix(1).compactMap(DaemonTests.object)))
    let unknown = try events(exercise: "curtsy")
    let error = unknown.events.first { $0["type"] as? String == "error" }
    #expect(error?["line"] as? Int == 1)
    #expect((error?["message"] as? String)?.contains("curtsy") == true, "\(unknown.events)")
    #expect(DaemonTests.summary(unknown.events)["squat"] != nil)
    #expect(server.stop() == 0)
  }

  /// The Swift API names what it does not know, and a session for a chosen exercise names it
  /// in its summary even when nobody was seen.
  @Test func anUnknownExerciseIsNamedAndAnEmptyStreamSummarisesTheChosenOne() throws {
    let runtime = Runtime(classifier: nil, catalogue: try ExerciseCatalogue.load())
    let unknown = #expect(throws: UnknownExercise.self) {
      try runtime.makeSession(exercise: "curtsy")
    }
    #expect(unknown?.description.contains("'curtsy'; expected one of") == true)
    #expect(unknown?.known.contains("squat") == true)
    let session = try runtime.makeSession(exercise: "lunge")
    var events: [SpotterEvent] = []
    session.finish { events.append($0) }
    guard case .summary(_, let totals, _) = events.last else {
      Issue.record("no summary: \(events)")
      return
    }
    #expect(totals.map(\.name) == ["lunge"] && totals[0].reps == 0)
  }
}
