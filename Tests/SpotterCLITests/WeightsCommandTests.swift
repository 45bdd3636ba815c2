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
