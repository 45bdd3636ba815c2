import Foundation
import Poses

/// A weights file that cannot be used: what was found, what was expected.
public struct WeightsFileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var file: String
  public var message: String
  public var description: String { "\(file): \(message)" }
}

/// Reads and writes Spotter weights files. The byte layout is in `Weights/FORMAT.md`:
///
/// ```
/// magic "SPOTWTS\0" · u32 version · u32 M · M bytes of JSON metadata
/// · u32 N · N × (u32 name length · name · u32 rank · rank × u32 dims · floats)
/// · u32 CRC-32 of everything before it
/// ```
/// All integers and floats little-endian; floats are IEEE 754 binary32.
public enum WeightsFile {
  public static let magic: [UInt8] = Array("SPOTWTS".utf8) + [0]
  public static let version: UInt32 = 1
  /// The file extension Spotter uses for weights.
  public static let fileExtension = "spotter"

  /// The file's bytes for a model. The same model always gives the same bytes.
  public static func encode(metadata: ModelMetadata, parameters: Parameters) -> [UInt8] {
    precondition(
      parameters.config == metadata.architecture, "parameters are for another architecture")
    var bytes = magic
    append(version, to: &bytes)
    let json = encodeMetadata(metadata)
    append(UInt32(json.count), to: &bytes)
    bytes += json
    let tensors = parameters.layout.tensors
    append(UInt32(tensors.count), to: &bytes)
    for (spec, range) in tensors {
      let name = Array(spec.name.utf8)
      append(UInt32(name.count), to: &bytes)
      bytes += name
      append(UInt32(spec.shape.count), to: &bytes)
      for dimension in spec.shape { append(UInt32(dimension), to: &bytes) }
      for value in parameters.values[range] { append(value.bitPattern, to: &bytes) }
    }
    let checksum = bytes.withUnsafeBytes { CRC32.checksum($0) }
    append(checksum, to: &bytes)
    return bytes
  }

  /// Writes a model to `path` atomically: a reader never sees half a file.
  public static func write(metadata: ModelMetadata, parameters: Parameters, to path: String) throws
  {
    let data = Data(encode(metadata: metadata, parameters: parameters))
    do {
      try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw WeightsFileError(file: path, message: "cannot write: \(error.localizedDescription)")
    }
  }

  /// Loads a classifier from `path`.
  public static func load(_ path: String) throws -> Classifier {
    let (metadata, parameters) = try read(path)
    return Classifier(metadata: metadata, parameters: parameters)
  }

  /// Reads and checks a weights file.
  public static func read(_ path: String) throws -> (ModelMetadata, Parameters) {
    guard let data = FileManager.default.contents(atPath: path) else {
      let reason =
        FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file"
      throw WeightsFileError(file: path, message: reason)
    }
    return try decode([UInt8](data), name: path)
  }

  /// Parses and checks a weights file's bytes. Every way a file can be wrong gets its own
  /// message, naming what was found and what was expected.
  ///
  /// A Spotter weights file whose parts do not fit together and whose checksum does not match
  /// either is said to be damaged: a flipped bit in a length reads as a file cut short.
  public static func decode(_ bytes: [UInt8], name: String) throws -> (ModelMetadata, Parameters) {
    var reader = ByteReader(bytes: bytes, file: name)
    let json: [UInt8]
    var tensors: [StoredTensor] = []
    try readHeader(&reader)
    do {
      let metadataLength = Int(try reader.u32(what: "the metadata length"))
      json = try reader.take(metadataLength, what: "the \(metadataLength)-byte metadata")
      let tensorCount = Int(try reader.u32(what: "the tensor count"))
      // Each tensor takes at least its name length and rank: a count the bytes left cannot
      // hold is refused before any room is made for it.
      guard tensorCount <= reader.remaining / 8 else {
        throw WeightsFileError(
          file: name,
          message:
            "the tensor count is \(tensorCount), more than the \(reader.remaining) bytes left "
            + "can hold")
      }
      for index in 0..<tensorCount { tensors.append(try readTensor(&reader, index: index)) }
    } catch var error as WeightsFileError {
      if bytes.count >= 4 && !isSealed(bytes) {
        error.message += " (and the checksum does not match: the file is damaged)"
      }
      throw error
    }
    try checkChecksum(&reader)
    let metadata = try decodeMetadata(json, file: name)
    let parameters = try fill(
      Parameters(config: metadata.architecture), from: tensors, file: name)
    return (metadata, parameters)
  }

  /// One tensor as stored: its name, shape and the bytes of its floats.
  private typealias StoredTensor = (name: String, shape: [Int], values: ArraySlice<UInt8>)

  /// The magic number and the format version.
  private static func readHeader(_ reader: inout ByteReader) throws {
    let foundMagic = try reader.take(magic.count, what: "the magic number")
    guard foundMagic == magic else {
      throw WeightsFileError(
        file: reader.file,
        message:
          "magic is \(describe(foundMagic)), expected \(describe(magic)): this is not a "
          + "Spotter weights file"
      )
    }
    let foundVersion = try reader.u32(what: "the format version")
    guard foundVersion == version else {
      throw WeightsFileError(
        file: reader.file,
        message: "format version is \(foundVersion); this build reads version \(version)")
    }
  }

  /// A tensor's name, rank, shape and floats, each checked against the bytes left.
  private static func readTensor(_ reader: inout ByteReader, index: Int) throws -> StoredTensor {
    let nameLength = Int(try reader.u32(what: "the name length of tensor \(index)"))
    let tensorName = String(
      decoding: try reader.take(nameLength, what: "the name of tensor \(index)"), as: UTF8.self)
    let rank = Int(try reader.u32(what: "the rank of tensor '\(tensorName)'"))
    guard rank <= 8 else {
      throw WeightsFileError(
        file: reader.file, message: "tensor '\(tensorName)' has rank \(rank); expected at most 8")
    }
    var shape: [Int] = []
    for _ in 0..<rank {
      shape.append(Int(try reader.u32(what: "the shape of tensor '\(tensorName)'")))
    }
    var count = 1
    for dimension in shape {
      let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
      guard !overflow, product <= Int.max / 4 else {
        throw WeightsFileError(
          file: reader.file,
          message: "tensor '\(tensorName)' has shape \(shape), too large to be real")
      }
      count = product
    }
    let values = try reader.slice(4 * count, what: "the \(count) floats of tensor '\(tensorName)'")
    return (tensorName, shape, values)
  }

  /// Whether the last 4 bytes are the CRC-32 of the rest.
  private static func isSealed(_ bytes: [UInt8]) -> Bool {
    let stored = bytes[(bytes.count - 4)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    return bytes.withUnsafeBytes {
      CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<bytes.count - 4]))
    } == stored
  }

  /// The stored CRC-32 against the bytes before it, and nothing after it.
  private static func checkChecksum(_ reader: inout ByteReader) throws {
    let storedChecksum = try reader.u32(what: "the checksum")
    if reader.remaining > 0 {
      throw WeightsFileError(
        file: reader.file,
        message: "\(reader.remaining) bytes follow the checksum; expected the file to end there")
    }
    let bytes = reader.bytes
    let computed = bytes.withUnsafeBytes {
      CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<bytes.count - 4]))
    }
    guard computed == storedChecksum else {
      throw WeightsFileError(
        file: reader.file,
        message:
          "checksum is \(hex(storedChecksum)) but the contents give \(hex(computed)): the "
          + "file is corrupt"
      )
    }
  }

  private static func decodeMetadata(_ json: [UInt8], file: String) throws -> ModelMetadata {
    let metadata: ModelMetadata
    do {
      metadata = try JSONDecoder().decode(ModelMetadata.self, from: Data(json))
    } catch {
      throw WeightsFileError(file: file, message: "metadata is not valid: \(describe(error))")
    }
    if let problem = metadata.problem {
      throw WeightsFileError(file: file, message: "metadata does not hold together: \(problem)")
    }
    return metadata
  }

  /// Copies the stored tensors into the architecture's buffer: every tensor it needs, with the
  /// shape it needs, and nothing else; every value finite.
  private static func fill(
    _ parameters: Parameters, from tensors: [StoredTensor], file: String
  ) throws -> Parameters {
    var parameters = parameters
    let expected = parameters.layout.tensors
    for tensor in tensors where parameters.layout.range(of: tensor.name) == nil {
      throw WeightsFileError(
        file: file,
        message:
          "unknown tensor '\(tensor.name)'; the architecture has "
          + "\(expected.map(\.spec.name).joined(separator: ", "))"
      )
    }
    for (spec, range) in expected {
      guard let tensor = tensors.first(where: { $0.name == spec.name }) else {
        throw WeightsFileError(
          file: file,
          message:
            "tensor '\(spec.name)' is missing; the architecture needs it with shape \(spec.shape)")
      }
      guard tensor.shape == spec.shape else {
        throw WeightsFileError(
          file: file,
          message: "tensor '\(spec.name)' has shape \(tensor.shape), expected \(spec.shape)")
      }
      tensor.values.withUnsafeBytes { raw in
        for index in 0..<spec.count {
          parameters.values[range.lowerBound + index] = Float(
            bitPattern: UInt32(
              littleEndian: raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
        }
      }
    }
    if let bad = parameters.values.firstIndex(where: { !$0.isFinite }) {
      let spec = expected.first { $0.range.contains(bad) }!.spec
      throw WeightsFileError(
        file: file,
        message: "tensor '\(spec.name)' holds \(parameters.values[bad]); weights must be finite")
    }
    return parameters
  }

  static func encodeMetadata(_ metadata: ModelMetadata) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return [UInt8](try! encoder.encode(metadata))
  }

  private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }

  private static func describe(_ bytes: [UInt8]) -> String {
    let text = String(
      decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
    return "'\(text)' (\(bytes.map { String(format: "%02x", $0) }.joined(separator: " ")))"
  }

  private static func hex(_ value: UInt32) -> String { String(format: "0x%08x", value) }

  private static func describe(_ error: Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, let context):
      let field = (context.codingPath.map(\.stringValue) + [key.stringValue])
      return "no \"\(field.joined(separator: "."))\""
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return
        "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\": "
        + "\(context.debugDescription)"
    case DecodingError.dataCorrupted(let context):
      return context.debugDescription
    default:
      return "\(error)"
    }
  }
}

/// Bounds-checked reads from a file's bytes: running off the end is a "truncated" error that
/// says what was being read.
private struct ByteReader {
  let bytes: [UInt8]
  let file: String
  var position = 0

  var remaining: Int { bytes.count - position }

  mutating func slice(_ count: Int, what: String) throws -> ArraySlice<UInt8> {
    guard count >= 0, count <= remaining else {
      throw WeightsFileError(
        file: file,
        message:
          "the file is truncated: it ends at byte \(bytes.count) while reading \(what) (needs "
          + "\(count) bytes from byte \(position))"
      )
    }
    defer { position += count }
    return bytes[position..<position + count]
  }

  mutating func take(_ count: Int, what: String) throws -> [UInt8] {
    Array(try slice(count, what: what))
  }

  mutating func u32(what: String) throws -> UInt32 {
    let raw = try slice(4, what: what)
    return raw.reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }
}
