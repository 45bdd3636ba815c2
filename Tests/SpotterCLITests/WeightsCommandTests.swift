import Foundation
import TestSupport
import Testing

/// The repository root, from this file's place in it.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().path

@Suite struct WeightsCommandTests {
  static let tiny = repositoryRoot + "/Weights/tiny.spotter"

  @Test func theCheckedInTinyModelComesFromItsDocumentedCommand() throws {
    let path = Fixtures.temporaryFolder() + "/tiny.spotter"
    let result = try SpotterProcess.run([
      "init-weights", "--architecture", "tiny", "--seed", "7", "--output", path,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let made = try #require(FileManager.default.contents(atPath: path))
    let shipped = try #require(FileManager.default.contents(atPath: Self.tiny))
    #expect(made == shipped)
  }

  @Test func anotherSeedGivesOtherWeights() throws {
    let path = Fixtures.temporaryFolder() + "/tiny8.spotter"
    _ = try SpotterProcess.run([
      "init-weights", "--architecture", "tiny", "--seed", "8", "--output", path,
    ])
    #expect(
      FileManager.default.contents(atPath: path) != FileManager.default.contents(atPath: Self.tiny))
  }

  /// A model fed view-robust features (version 2) says so in its file, and the runtime feeds
  /// it those: classify runs it end to end.
  @Test func aViewRobustModelTrainsAndClassifies() throws {
    let folder = Fixtures.temporaryFolder("view-robust")
    let trained = try SpotterProcess.run([
      "train", "--architecture", "tiny", "--features", "view-robust", "--synthetic", "2",
      "--epochs", "1", "--windows-per-epoch", "64", "--validation", "0", "--reflect",
      "--output", folder + "/v2.spotter",
    ])
    #expect(trained.status == 0, "\(trained.stderr)")
    let inspected = try SpotterProcess.run(["inspect", "--json", folder + "/v2.spotter"])
    #expect(inspected.stdout.contains("\"input_features\":88"), "\(inspected.stdout)")
    // The provenance names every option given, flags too.
    #expect(inspected.stdout.contains("--features view-robust --reflect\""))
    let made = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "3", "--seed", "7",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let classified = try SpotterProcess.run([
      "classify", "--json", "--weights", folder + "/v2.spotter", folder + "/synth-000007.jsonl",
    ])
    #expect(classified.status == 0, "\(classified.stderr)")
    let unknown = try SpotterProcess.run([
      "train", "--features", "3d", "--synthetic", "1", "--output", folder + "/x.spotter",
    ])
    #expect(unknown.status != 0 && unknown.stderr.contains("unknown --features '3d'"))
  }

  @Test func inspectPrintsAWeightsFilesMetadata() throws {
    let result = try SpotterProcess.run(["inspect", Self.tiny])
    #expect(result.status == 0)
    #expect(result.stdout.contains("Parameters        2225"))
    #expect(result.stdout.contains("Labels            squat, push_up, sit_up"))
    #expect(result.stdout.contains("Window            60 frames at 30 fps"))
    let json = try SpotterProcess.run(["inspect", "--json", Self.tiny])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object["parameters"] as? Int == 2225)
  }

  @Test func theModelInUseComesFromWeightsThenTheEnvironment() throws {
    let fromFlag = try SpotterProcess.run(["inspect", "--weights", Self.tiny])
    #expect(fromFlag.status == 0 && fromFlag.stdout.contains("Weights           \(Self.tiny)"))
    let fromEnvironment = try SpotterProcess.run(
      ["inspect"], environment: ["SPOTTER_WEIGHTS": Self.tiny])
    #expect(
      fromEnvironment.status == 0
        && fromEnvironment.stdout.contains("Weights           \(Self.tiny)"))
  }

  @Test func aCorruptWeightsFileIsAFailureWithTheReason() throws {
    var bytes = try #require(FileManager.default.contents(atPath: Self.tiny))
    bytes[bytes.count - 50] ^= 1
    let path = Fixtures.temporaryFolder() + "/corrupt.spotter"
    try bytes.write(to: URL(fileURLWithPath: path))
    let result = try SpotterProcess.run(["inspect", "--weights", path])
    #expect(result.status == 1)
    #expect(result.stderr.contains("\(path): checksum is 0x"))
    #expect(result.stderr.contains("Hint: Weights/FORMAT.md"))
  }
}
