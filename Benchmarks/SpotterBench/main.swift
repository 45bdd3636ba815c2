import Foundation
import Linalg
import Poses
import TestSupport

/// `spotter-bench`: Spotter's performance in one run (DESIGN §13). Release builds only give
/// meaningful numbers; a debug build says so loudly.
///
/// Usage: spotter-bench [--filter TEXT] [--json FILE]
///        spotter-bench fixture FILE [--frames N]   (writes the pose stream the decoder is timed on)
func usage() -> Never {
  FileHandle.standardError.write(
    Data(
      """
      Usage: spotter-bench [--filter TEXT] [--json FILE]
             spotter-bench fixture FILE [--frames N]

      """.utf8))
  exit(64)
}

var words = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
  guard let index = words.firstIndex(of: name) else { return nil }
  guard index + 1 < words.count else { usage() }
  defer { words.removeSubrange(index...index + 1) }
  return words[index + 1]
}

if words.first == "fixture" {
  let frames = option("--frames").map { Int($0) ?? -1 } ?? 600
  guard words.count == 2, frames > 0 else { usage() }
  try Fixtures.squatFile(frames: frames).write(toFile: words[1], atomically: true, encoding: .utf8)
  exit(0)
}

let filter = option("--filter")
let jsonPath = option("--json")
guard words.isEmpty else { usage() }

#if DEBUG
  print("WARNING: this is a DEBUG build; its timings mean nothing. Use `make bench`.\n")
  let configuration = "debug"
#else
  let configuration = "release"
#endif
print("spotter-bench (\(configuration) build), OpenBLAS threads: \(BLAS.threadCount)")
print("OpenBLAS: \(BLAS.configuration)")
print("")

let cases: [(String, () throws -> Measurement)] = [
  ("sgemm", { LinalgBenchmarks.sgemmPeak() }),
  ("decode", { try PoseBenchmarks.decodeJSONLines(frames: 100_000) }),
  ("pipeline", { PoseBenchmarks.posePipeline() }),
]
var results: [Measurement] = []
for (key, run) in cases where filter.map({ key.contains($0) }) ?? true {
  let result = try run()
  results.append(result)
  let name = result.name.padding(toLength: 42, withPad: " ", startingAt: 0)
  print(
    "\(name) median \(duration(result.median))  p90 \(duration(result.p90))  \(rate(result.rate, result.unit))"
  )
}

if let jsonPath {
  let objects: [[String: Any]] = results.map {
    [
      "name": $0.name, "median_seconds": $0.median, "p90_seconds": $0.p90,
      "units_per_second": $0.rate, "unit": $0.unit,
    ]
  }
  let document: [String: Any] = [
    "configuration": configuration, "blas_threads": BLAS.threadCount, "results": objects,
  ]
  let data = try JSONSerialization.data(
    withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
  try data.write(to: URL(fileURLWithPath: jsonPath))
}
if sink == 42.4242 { print("") }  // keeps results alive
