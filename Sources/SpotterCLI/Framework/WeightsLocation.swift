import ArgumentParsing
import Foundation

/// Finds the weights a command uses: `--weights FILE`, else `$SPOTTER_WEIGHTS`, else the
/// default model, looked for from the executable's folder (a build in `.build/…` or an install
/// in `bin/`) and from the source tree this binary was built from, so any working directory
/// works.
enum WeightsLocation {
  static let defaultFileName = "default.spotter"

  static let option = Option.value(
    "weights", "FILE", "Weights file to use (overrides $SPOTTER_WEIGHTS and the default model).")

  static func resolve(
    _ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> String {
    if let explicit { return explicit }
    if let fromEnvironment = environment["SPOTTER_WEIGHTS"], !fromEnvironment.isEmpty {
      return fromEnvironment
    }
    let candidates = defaultCandidates()
    if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
      return found
    }
    throw CLIError.failure(
      "no default weights found; looked in:\n  " + candidates.joined(separator: "\n  "),
      hint:
        "pass --weights FILE, set SPOTTER_WEIGHTS, or train the default model with 'make weights'.")
  }

  static func defaultCandidates() -> [String] {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Framework
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var folders = [
      executable.appendingPathComponent("../share/spotter"),  // an install: bin/ beside share/
      executable.appendingPathComponent("../../../Weights"),  // .build/<triple>/<config>/spotter
      executable.appendingPathComponent("../../Weights"),  // .build/<config>/spotter
      sourceRoot.appendingPathComponent("Weights"),
    ]
    folders = folders.map { $0.standardizedFileURL }
    var seen = Set<String>()
    return folders.map { $0.appendingPathComponent(defaultFileName).path }.filter {
      seen.insert($0).inserted
    }
  }
}
