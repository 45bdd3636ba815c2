import Foundation
import TestSupport
import Testing

@testable import ActionModel

@Suite struct WeightsFileTests {
  static let classifier = Fixtures.randomClassifier(.tiny(classes: 4), seed: 9)
  static var bytes: [UInt8] {
    WeightsFile.encode(metadata: classifier.metadata, parameters: classifier.parameters)
  }

  static func decodeError(_ bytes: [UInt8]) -> String? {
    do {
      _ = try WeightsFile.decode(bytes, name: "model.spotter")
      return nil
    } catch let error as WeightsFileError {
      #expect(error.file == "model.spotter")
      return error.message
    } catch {
      return "unexpected \(error)"
    }
  }

  /// Re-seals edited bytes with a correct checksum, so the check under test is the one that fires.
  static func resealed(_ body: [UInt8]) -> [UInt8] {
    var bytes = Array(body.dropLast(4))
    let checksum = bytes.withUnsafeBytes { CRC32.checksum($0) }
    withUnsafeBytes(of: checksum.littleEndian) { bytes += $0 }
    return bytes
  }

  /// The file with its metadata JSON replaced.
  static func withMetadata(_ edit: (inout [String: Any]) -> Void) -> [UInt8] {
    let original = bytes
    let length =
      Int(original[12]) | Int(original[13]) << 8 | Int(original[14]) << 16 | Int(original[15]) << 24
    var object =
      try! JSONSerialization.jsonObject(with: Data(original[16..<16 + length])) as! [String: Any]
    edit(&object)
    let json = [UInt8](try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    var result = Array(original[0..<12])
    withUnsafeBytes(of: UInt32(json.count).littleEndian) { result += $0 }
    result += json + original[(16 + length)...]
    return resealed(result)
  }

  /// A calibrated file divides the logits by its temperature before the softmax: the window
  /// pass and the stream both give p^(1/T), normalised, of the same file without one; files
  /// before calibration (no key) load at 1; a temperature out of range is refused by name.
  @Test func aTemperatureSoftensEveryPathAndOldFilesHaveNone() throws {
    var metadata = Self.classifier.metadata
    #expect(metadata.temperature == nil)
    metadata.temperature = 2.5
    let calibrated = Classifier(metadata: metadata, parameters: Self.classifier.parameters)
    let frames = Fixtures.randomFrames(60, features: 54, seed: 5)
    let plain = Self.classifier.predict(window: frames.flatMap { $0 })
    let softened = calibrated.predict(window: frames.flatMap { $0 })
    let powers = plain.map { pow(Double($0), 1 / 2.5) }
    let expected = powers.map { $0 / powers.reduce(0, +) }
    for (got, want) in zip(softened, expected) { #expect(abs(Double(got) - want) < 1e-5) }
    let stream = calibrated.makeStream()
    for frame in frames { frame.withUnsafeBufferPointer { stream.push($0) } }
    for (got, want) in zip(stream.probabilities(), softened) { #expect(abs(got - want) < 1e-5) }
    let (read, _) = try WeightsFile.decode(
      WeightsFile.encode(metadata: metadata, parameters: Self.classifier.parameters), name: "t")
    #expect(read.temperature == 2.5)
    let refused = Self.decodeError(Self.withMetadata { $0["temperature"] = 0 })
    #expect(refused?.contains("temperature is 0.0; expected a number from 0.05 to 20") == true)
  }

  @Test func aRoundTripGivesIdenticalBytesAndTheSameModel() throws {
    let first = Self.bytes
    let (metadata, parameters) = try WeightsFile.decode(first, name: "a")
    #expect(metadata == Self.classifier.metadata)
    #expect(parameters.values == Self.classifier.parameters.values)
    #expect(WeightsFile.encode(metadata: metadata, parameters: parameters) == first)
    let path = Fixtures.temporaryFolder() + "/m.spotter"
    try WeightsFile.write(metadata: metadata, parameters: parameters, to: path)
    #expect([UInt8](FileManager.default.contents(atPath: path)!) == first)
    let loaded = try WeightsFile.load(path)
    let window = Fixtures.randomFrames(60, features: 54, seed: 4).flatMap { $0 }
    #expect(loaded.predict(window: window) == Self.classifier.predict(window: window))
  }

  @Test func aWrongMagicSaysItIsNotAWeightsFile() {
    var bytes = Self.bytes
    bytes.replaceSubrange(0..<8, with: Array("GGUFxxxx".utf8))
    #expect(
      Self.decodeError(bytes)
        == "magic is 'GGUFxxxx' (47 47 55 46 78 78 78 78), expected 'SPOTWTS.' (53 50 4f 54 57 "
        + "54 53 00): this is not a Spotter weights file"
    )
  }

  @Test func anUnknownVersionSaysWhichItReads() {
    var bytes = Self.bytes
    bytes[8] = 7
    #expect(Self.decodeError(bytes) == "format version is 7; this build reads version 1")
  }

  @Test(arguments: [0, 5, 14, 100, 2000, -3])
  func aTruncatedFileSaysWhereItEnds(keep: Int) {
    let full = Self.bytes
    let count = keep < 0 ? full.count + keep : keep
    let message = Self.decodeError(Array(full[0..<count]))
    #expect(
      message?.hasPrefix("the file is truncated: it ends at byte \(count) while reading ") == true,
      "got \(message ?? "nil")")
  }

  @Test func aFlippedBitFailsTheChecksum() {
    var bytes = Self.bytes
    bytes[bytes.count - 100] ^= 0x10
    let message = Self.decodeError(bytes)
    #expect(message?.hasPrefix("checksum is 0x") == true)
    #expect(message?.hasSuffix(": the file is corrupt") == true)
  }

  @Test func aDamagedTensorCountIsRefusedBeforeRoomIsMadeForIt() {
    // Its top bit flipped: 2^31 tensors, which the reader once made room for before reading
    // one (and the process died asking for 86 GB).
    var bytes = Self.bytes
    let length =
      Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
    bytes[16 + length + 3] ^= 0x80
    let message = Self.decodeError(bytes)
    #expect(message?.hasPrefix("the tensor count is 2147483") == true, "got \(message ?? "nil")")
    #expect(message?.hasSuffix("(and the checksum does not match: the file is damaged)") == true)
  }

  @Test func aDamagedLengthSaysTheFileIsDamagedNotOnlyShort() {
    var bytes = Self.bytes
    bytes[12] ^= 0x10  // the metadata length
    let message = Self.decodeError(bytes)
    #expect(message?.hasSuffix("(and the checksum does not match: the file is damaged)") == true)
  }

  @Test func aWrongShapeNamesTheTensorAndBothShapes() {
    let metadata = Self.classifier.metadata
    var other = metadata
    other.architecture.convolutions[0].channels = 9
    other.architecture.convolutions[1].channels = 12
    // Write a model whose conv0 is wider, then claim the original architecture.
    let wide = Parameters(config: other.architecture)
    let bytes = WeightsFile.encode(metadata: other, parameters: wide)
    let relabelled = Self.withMetadataOf(bytes, metadata: metadata)
    #expect(
      Self.decodeError(relabelled)
        == "tensor 'conv0.weight' has shape [3, 54, 9], expected [3, 54, 8]")
  }

  static func withMetadataOf(_ bytes: [UInt8], metadata: ModelMetadata) -> [UInt8] {
    let length = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
    let json = WeightsFile.encodeMetadata(metadata)
    var result = Array(bytes[0..<12])
    withUnsafeBytes(of: UInt32(json.count).littleEndian) { result += $0 }
    result += json + bytes[(16 + length)...]
    return resealed(result)
  }

  @Test func aMissingTensorIsNamed() {
    // Claim one more layer than the file holds.
    var metadata = Self.classifier.metadata
    metadata.architecture.convolutions.append(.init(kernel: 1, dilation: 1, channels: 16))
    let bytes = Self.withMetadataOf(Self.bytes, metadata: metadata)
    #expect(
      Self.decodeError(bytes)
        == "tensor 'conv3.weight' is missing; the architecture needs it with shape [1, 16, 16]")
  }

  @Test func anUnknownTensorIsNamed() {
    // Claim one layer fewer than the file holds.
    var metadata = Self.classifier.metadata
    metadata.architecture.convolutions.removeLast()
    let bytes = Self.withMetadataOf(Self.bytes, metadata: metadata)
    #expect(
      Self.decodeError(bytes)?.hasPrefix(
        "unknown tensor 'conv2.weight'; the architecture has conv0.weight") == true)
  }

  @Test func metadataThatDoesNotMatchItselfIsRejected() {
    let fewerLabels = Self.withMetadata { $0["labels"] = ["a", "b"] }
    #expect(
      Self.decodeError(fewerLabels)
        == "metadata does not hold together: 2 labels for 4 classes; they must match")
    let broken = Self.withMetadata { $0["architecture"] = ["window": 60] }
    #expect(
      Self.decodeError(broken)?.hasPrefix(
        "metadata is not valid: no \"architecture.input_features\"") == true)
    func featureVersion(_ version: Int) -> [UInt8] {
      Self.withMetadata {
        var features = $0["features"] as! [String: Any]
        features["version"] = version
        $0["features"] = features
      }
    }
    #expect(
      Self.decodeError(featureVersion(99))
        == "metadata does not hold together: feature spec version 99; this build computes "
        + "versions 1 to 2")
    #expect(
      Self.decodeError(featureVersion(2))
        == "metadata does not hold together: the architecture takes 54 features a frame; "
        + "feature spec version 2 makes 88")
  }

  @Test func trailingBytesAreAnError() {
    #expect(
      Self.decodeError(Self.bytes + [0, 0])
        == "2 bytes follow the checksum; expected the file to end there")
  }

  @Test func aMissingFileSaysSo() {
    #expect(throws: WeightsFileError(file: "/nonexistent.spotter", message: "no such file")) {
      try WeightsFile.load("/nonexistent.spotter")
    }
  }
}
