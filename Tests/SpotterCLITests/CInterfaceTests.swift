import Foundation
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

  @Test func aCProgramLoadsPredictsAndStreams() throws {
    let binary = URL(fileURLWithPath: SpotterProcess.binary).deletingLastPathComponent()
    let library = binary.appendingPathComponent("libSpotterC.so")
    try #require(
      FileManager.default.fileExists(atPath: library.path),
      "build libSpotterC.so first: swift build")
    let folder = Fixtures.temporaryFolder()
    let source = folder + "/client.c"
    try Self.program.write(toFile: source, atomically: true, encoding: .utf8)
    let compile = Process()
    compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compile.arguments = [
      "cc", "-std=c11", "-Wall", "-Werror", "-I", repositoryRoot + "/Sources/LibSpotter", source,
      "-L", binary.path, "-lSpotterC", "-Wl,-rpath," + binary.path, "-lm", "-o", folder + "/client",
    ]
    try compile.run()
    compile.waitUntilExit()
    try #require(compile.terminationStatus == 0, "the C client did not compile")
    let run = Process()
    run.executableURL = URL(fileURLWithPath: folder + "/client")
    run.arguments = [repositoryRoot + "/Weights/tiny.spotter"]
    let output = Pipe()
    run.standardOutput = output
    try run.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    run.waitUntilExit()
    #expect(run.terminationStatus == 0, "\(text)")
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
}
