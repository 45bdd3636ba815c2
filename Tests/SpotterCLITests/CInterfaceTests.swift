import ActionModel
import Foundation
import Poses
import RepCounting
import Spotter
import TestSupport
import Testing

/// libspotter from C: a real C program, compiled against spotter.h and linked with the built
/// library, as a daemon in another language would use it.
@Suite struct CInterfaceTests {
  static let program = #"""
    #include "spotter.h"
    #include <math.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>

    int main(int argc, char **argv) {
      char error[256];
      if (spotter_model_load("/nonexistent.spotter", error, sizeof error) != NULL) return 10;
      printf("error: %s\n", error);
      spotter_model *model = spotter_model_load(argv[1], error, sizeof error);
      if (!model) { printf("load failed: %s\n", error); return 11; }
      int T = spotter_model_window(model), F = spotter_model_features(model);
      int K = spotter_model_classes(model);
      printf("T=%d F=%d K=%d first=%s last=%s none=%s\n", T, F, K, spotter_model_label(model, 0),
             spotter_model_label(model, K - 1), spotter_model_label(model, K) ? "x" : "null");
      float *frames = malloc(sizeof(float) * 90 * F);
      srand(3);
      for (int i = 0; i < 90 * F; i++) frames[i] = (float)rand() / RAND_MAX * 2 - 1;
      spotter_stream *stream = spotter_stream_create(model);
      for (int t = 0; t < 90; t++) spotter_stream_push_features(stream, frames + t * F);
      float streamed[64], windowed[64];
      spotter_stream_probabilities(stream, streamed);
      if (spotter_predict(model, frames + 30 * F, 1, windowed) != 0) return 12;
      float worst = 0, sum = 0;
      for (int k = 0; k < K; k++) {
        worst = fmaxf(worst, fabsf(streamed[k] - windowed[k]));
        sum += windowed[k];
      }
      printf("stream-vs-window %.2e sum %.4f\n", worst, sum);
      spotter_stream_reset(stream);
      for (int t = 0; t < 5; t++) spotter_stream_push_pose(stream, NULL);
      float *zeros = calloc(T * F, sizeof(float));
      spotter_stream_probabilities(stream, streamed);
      spotter_predict(model, zeros, 1, windowed);
      worst = 0;
      for (int k = 0; k < K; k++) worst = fmaxf(worst, fabsf(streamed[k] - windowed[k]));
      printf("nobody-vs-zeros %.2e\n", worst);
      spotter_stream_free(stream);

      /* A session: frames in, NDJSON events out. */
      spotter_runtime *runtime = spotter_runtime_create(model, error, sizeof error);
      if (!runtime) { printf("runtime failed: %s\n", error); return 13; }
      spotter_session *session = spotter_session_create(runtime);
      float joints[54];
      for (int t = 0; t < 150; t++) {
        for (int j = 0; j < 18; j++) {
          joints[3 * j] = 300 + 10 * (j % 3) + (t % 30);
          joints[3 * j + 1] = 100 + 20 * j;
          joints[3 * j + 2] = 0.9f;
        }
        spotter_session_push_pose(session, t / 30.0, t % 50 == 7 ? NULL : joints);
      }
      int waiting = spotter_session_finish(session);
      char tiny[4];
      size_t needed = spotter_session_read_events(session, tiny, sizeof tiny);
      char *events = malloc(needed + 1);
      size_t copied = spotter_session_read_events(session, events, needed + 1);
      char empty[8];
      size_t after = spotter_session_read_events(session, empty, sizeof empty);
      printf("waiting %d needed-again %d cleared %d summary %d\n", waiting > 0, needed == copied,
             after == 0,
             strstr(events, "\"type\":\"summary\"") != NULL);
      spotter_session_free(session);
      spotter_runtime_free(runtime);
      spotter_model_free(model);
      return 0;
    }
    """#

  /// Compiles `program` against spotter.h, links it with the built library, runs it with
  /// `arguments`; returns its exit status and standard output.
  static func compileAndRun(_ program: String, arguments: [String]) throws -> (
    status: Int32, output: String
  ) {
    let binary = URL(fileURLWithPath: SpotterProcess.binary).deletingLastPathComponent()
    // The LibSpotter product as SwiftPM writes it (`make libspotter` names it libspotter.so).
    let library = binary.appendingPathComponent("libLibSpotter.so")
    try #require(
      FileManager.default.fileExists(atPath: library.path),
      "build libLibSpotter.so first: swift build")
    let folder = Fixtures.temporaryFolder()
    let source = folder + "/client.c"
    try program.write(toFile: source, atomically: true, encoding: .utf8)
    let compile = Process()
    compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compile.arguments = [
      "cc", "-std=c11", "-Wall", "-Werror", "-I", repositoryRoot + "/Sources/LibSpotter", source,
      "-L", binary.path, "-lLibSpotter", "-Wl,-rpath," + binary.path, "-lm", "-o",
      folder + "/client",
    ]
    try compile.run()
    compile.waitUntilExit()
    try #require(compile.terminationStatus == 0, "the C client did not compile")
    let run = Process()
    run.executableURL = URL(fileURLWithPath: folder + "/client")
    run.arguments = arguments
    let output = Pipe()
    run.standardOutput = output
    try run.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    run.waitUntilExit()
    return (run.terminationStatus, text)
  }

  @Test func aCProgramLoadsPredictsAndStreams() throws {
    let (status, text) = try Self.compileAndRun(
      Self.program, arguments: [repositoryRoot + "/Weights/tiny.spotter"])
    #expect(status == 0, "\(text)")
    let lines = text.split(separator: "\n").map(String.init)
    try #require(lines.count == 5, "\(text)")
    #expect(lines[0] == "error: /nonexistent.spotter: no such file")
    #expect(lines[1] == "T=60 F=54 K=13 first=squat last=other none=null")
    let parts = lines[2].split(separator: " ")
    #expect(Float(parts[1])! <= 1e-5)
    #expect(abs(Float(parts[3])! - 1) < 1e-4)
    #expect(Float(lines[3].split(separator: " ")[1])! <= 1e-6)
    #expect(lines[4] == "waiting 1 needed-again 1 cleared 1 summary 1")
  }

  /// What a host program may send by mistake goes into the events as errors, and the process
  /// goes on: a frame time that goes back or is not finite, a joint whose coordinates are not
  /// finite (missing), a frame after finish, a second finish, a NULL weights path. Session
  /// options: a bad goal or a missing folder of definitions is an error that says which;
  /// prediction events come when asked for.
  static let badInputProgram = #"""
    #include "spotter.h"
    #include <math.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>

    static int count(const char *text, const char *what) {
      int n = 0;
      for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
      return n;
    }

    int main(int argc, char **argv) {
      char error[256];
      spotter_model *none = spotter_model_load(NULL, error, sizeof error);
      printf("null path: %s %s\n", none ? "model" : "null", error);
      spotter_model *model = spotter_model_load(argv[1], error, sizeof error);
      spotter_runtime *bad = spotter_runtime_create_options(model, NULL, "squat:20, squat:many",
                                                            0, error, sizeof error);
      printf("bad goal: %s %s\n", bad ? "runtime" : "null", error);
      bad = spotter_runtime_create_options(model, "/nonexistent-definitions", NULL, 0, error,
                                           sizeof error);
      printf("no folder: %s %s\n", bad ? "runtime" : "null", error);
      spotter_runtime *runtime = spotter_runtime_create_options(model, NULL, "squat:20, 60s", 1,
                                                                error, sizeof error);
      spotter_session *session = spotter_session_create(runtime);
      float joints[54];
      for (int j = 0; j < 18; j++) {
        joints[3 * j] = 300 + 10 * (j % 3);
        joints[3 * j + 1] = 100 + 20 * j;
        joints[3 * j + 2] = 0.9f;
      }
      for (int t = 0; t < 60; t++) spotter_session_push_pose(session, t / 30.0, joints);
      spotter_session_push_pose(session, 1.0, joints);       /* back in time */
      spotter_session_push_pose(session, NAN, joints);       /* not a number */
      spotter_session_push_pose(session, INFINITY, joints);  /* not finite */
      joints[0] = NAN;                                       /* a joint not seen */
      for (int t = 60; t < 90; t++) spotter_session_push_pose(session, t / 30.0, joints);
      spotter_session_finish(session);
      spotter_session_push_pose(session, 9.0, joints);       /* after finish */
      spotter_session_finish(session);                       /* again */
      size_t needed = spotter_session_read_events(session, NULL, 0);
      char *events = malloc(needed + 1);
      spotter_session_read_events(session, events, needed + 1);
      printf("errors %d before %d finite %d after-finish %d summaries %d bad_lines %d\n",
             count(events, "\"type\":\"error\""), count(events, "before the previous"),
             count(events, "not a finite number"), count(events, "after the session finished"),
             count(events, "\"type\":\"summary\""), count(events, "\"bad_lines\":3"));
      printf("predictions %d\n", count(events, "\"type\":\"prediction\"") > 0);
      spotter_session_free(session);
      spotter_runtime_free(runtime);
      spotter_model_free(model);
      return 0;
    }
    """#

  @Test func badInputAndOptionsFromAHostProgram() throws {
    let (status, text) = try Self.compileAndRun(
      Self.badInputProgram, arguments: [repositoryRoot + "/Weights/tiny.spotter"])
    #expect(status == 0, "\(text)")
    let lines = text.split(separator: "\n").map(String.init)
    try #require(lines.count == 5, "\(text)")
    #expect(lines[0] == "null path: null no weights file given (the path is NULL)")
    #expect(
      lines[1]
        == "bad goal: null a goal takes REPS, SECONDSs, EXERCISE:REPS or EXERCISE:SECONDSs "
        + "(e.g. squat:20, 60s), got 'squat:many'")
    #expect(
      lines[2].hasPrefix("no folder: null /nonexistent-definitions: no such folder"), "\(text)")
    #expect(
      lines[3] == "errors 4 before 1 finite 2 after-finish 1 summaries 1 bad_lines 1", "\(text)")
    #expect(lines[4] == "predictions 1")
  }

  /// Several people through C: frames from a file (per line: t, the number of people, then
  /// their 18 joints' x y c each), events printed as they are read back.
  /// C: finishes a session, prints its events and frees it (for the test programs).
  static let finishAndPrint = """
    static void finish_and_print(spotter_session *session) {
      spotter_session_finish(session);
      size_t needed = spotter_session_read_events(session, NULL, 0);
      char *events = malloc(needed + 1);
      spotter_session_read_events(session, events, needed + 1);
      fputs(events, stdout);
      free(events);
      spotter_session_free(session);
    }
    """

  static let peopleProgram = #"""
    #include "spotter.h"
    #include <stdio.h>
    #include <stdlib.h>

    static float joints[64 * 54];

    \#(finishAndPrint)
    int main(int argc, char **argv) {
      char error[256];
      spotter_model *model = spotter_model_load(argv[1], error, sizeof error);
      if (!model) { printf("load failed: %s\n", error); return 11; }
      spotter_runtime *runtime = spotter_runtime_create(model, error, sizeof error);
      if (!runtime) { printf("runtime failed: %s\n", error); return 12; }
      if (spotter_session_create_people(runtime, 0) != NULL) return 13;
      if (spotter_session_create_people(runtime, 65) != NULL) return 14;
      spotter_session *most = spotter_session_create_people(runtime, 64);
      if (most == NULL) return 15;
      spotter_session_free(most);
      spotter_session *session = spotter_session_create_people(runtime, 2);
      if (session == NULL) return 16;
      FILE *frames = fopen(argv[2], "r");
      if (!frames) return 17;
      double t;
      int count;
      while (fscanf(frames, "%lf %d", &t, &count) == 2) {
        if (count < 0 || count > 64) return 18;
        for (int i = 0; i < count * 54; i++)
          if (fscanf(frames, "%f", &joints[i]) != 1) return 19;
        spotter_session_push_people(session, t, joints, count);
      }
      fclose(frames);
      finish_and_print(session);
      spotter_runtime_free(runtime);
      spotter_model_free(model);
      return 0;
    }
    """#

  /// Two people doing different exercises side by side, through spotter_session_create_people
  /// and spotter_session_push_people: two stable ids, a summary each, and event for event what
  /// a `Session` of several people gives in Swift on the same poses, whatever the model makes
  /// of them. Out-of-range sizes give NULL (the program checks 0, 65 and 64).
  @Test func twoPeopleThroughCAreCountedAsInSwift() throws {
    let (frames, _) = try Fixtures.readAll(PoseFiles.open(try DaemonTests.group(seed: 32)))
    // The poses as C gets them: canonical triples, people nobody is seen in left out.
    var text = ""
    var swiftFrames: [PeopleFrame] = []
    for frame in frames {
      var triples: [[Float]] = []
      for pose in frame.people where pose.hasPerson {
        triples.append(
          CanonicalJoint.allCases.flatMap { [pose[$0].x, pose[$0].y, pose[$0].confidence] })
      }
      text +=
        "\(frame.t) \(triples.count) "
        + triples.joined().map { "\($0)" }.joined(separator: " ") + "\n"
      var copy = PeopleFrame()
      copy.t = frame.t
      copy.people = triples.map { $0.withUnsafeBufferPointer { Pose(triples: $0.baseAddress!) } }
      swiftFrames.append(copy)
    }
    let input = Fixtures.temporaryFolder("spotter-c-people") + "/frames.txt"
    try text.write(toFile: input, atomically: true, encoding: .utf8)
    let weights = repositoryRoot + "/Weights/default.spotter"
    let (status, output) = try Self.compileAndRun(Self.peopleProgram, arguments: [weights, input])
    #expect(status == 0, "\(output)")
    let fromC = output.split(separator: "\n").map(String.init)

    let runtime = Runtime(
      classifier: try WeightsFile.load(weights), catalogue: try ExerciseCatalogue.load())
    let session = runtime.makeSession(people: 2)
    var fromSwift: [String] = []
    for frame in swiftFrames { session.push(frame) { fromSwift.append($1.jsonLine(person: $0)) } }
    session.finish { fromSwift.append($1.jsonLine(person: $0)) }

    let people = fromC.compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["person"] as? Int
    }
    #expect(people.count == fromC.count, "an event without its person")
    #expect(Set(people) == [1, 2])
    let summaries = fromC.filter { $0.contains(#""type":"summary""#) }
    #expect(Set(summaries.map { $0.contains(#""person":1"#) }) == [true, false], "\(summaries)")
    #expect(fromC == fromSwift)
  }
}
