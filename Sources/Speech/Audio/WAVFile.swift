/// Reads and writes the WAV (RIFF WAVE) files espeak-ng writes and `--speak-to` produces:
/// uncompressed PCM.
///
/// The layout, little-endian throughout:
///
/// ```
/// offset  size  field
///      0     4  "RIFF"
///      4     4  UInt32 bytes after this field (the file's size - 8)
///      8     4  "WAVE"
///     12        chunks, each: 4-byte id, UInt32 size, `size` bytes, one pad byte if size is odd
///
/// "fmt " chunk (16 bytes for PCM; longer ones are read for their first 16):
///      0     2  UInt16 encoding, 1 = PCM (the only one read)
///      2     2  UInt16 channels
///      4     4  UInt32 sample rate (frames per second)
///      8     4  UInt32 byte rate = sample rate · block align
///     12     2  UInt16 block align = channels · bits per sample / 8
///     14     2  UInt16 bits per sample
///
/// "data" chunk: the interleaved samples.
/// ```
///
/// Other chunks (`LIST`, `fact`, …) are skipped. A program that writes WAV to a pipe does not
/// know the length when it writes the header: espeak-ng's `--stdout` puts 0x7FFFF000 there, others
/// 0xFFFFFFFF. A data size of at least `streamedSize` that runs past the end is read as "to the
/// end"; a smaller one that does is a truncated file, and an error.
public enum WAVFile {
  /// Data sizes from here up mark audio streamed before its length was known (see above).
  public static let streamedSize: UInt32 = 0x7FFF_0000

  /// The size of the header `header(format:dataBytes:)` writes: samples start here.
  public static let headerSize = 44

  /// The audio in a WAV file's bytes.
  ///
  /// - Throws: `WAVError` when the bytes are not RIFF WAVE, are not PCM, lack a chunk, or are
  ///   cut short.
  public static func parse(_ bytes: [UInt8]) throws -> PCMAudio {
    guard bytes.count >= 12, ascii(bytes, 0) == "RIFF" else { throw WAVError.notRIFF }
    guard ascii(bytes, 8) == "WAVE" else { throw WAVError.notWAVE(found: ascii(bytes, 8)) }
    var format: WAVFormat? = nil
    var offset = 12
    while offset + 8 <= bytes.count {
      let id = ascii(bytes, offset)
      let declared = uint32(bytes, offset + 4)
      let body = offset + 8
      let available = bytes.count - body
      if id == "data" {
        guard let format else { throw WAVError.missingChunk("fmt ") }
        var size = Int(declared)
        if size > available {
          guard declared >= streamedSize else {
            throw WAVError.truncated(chunk: id, declared: size, available: available)
          }
          size = available - available % format.bytesPerFrame
        }
        guard size % format.bytesPerFrame == 0 else {
          throw WAVError.partialFrame(bytes: size, bytesPerFrame: format.bytesPerFrame)
        }
        return PCMAudio(format: format, bytes: Array(bytes[body..<body + size]))
      }
      guard Int(declared) <= available else {
        throw WAVError.truncated(chunk: id, declared: Int(declared), available: available)
      }
      if id == "fmt " { format = try parseFormat(bytes, at: body, size: Int(declared)) }
      offset = body + Int(declared) + Int(declared % 2)
    }
    throw WAVError.missingChunk(format == nil ? "fmt " : "data")
  }

  private static func parseFormat(_ bytes: [UInt8], at offset: Int, size: Int) throws
    -> WAVFormat
  {
    guard size >= 16 else { throw WAVError.badFormat("a \(size)-byte fmt chunk; expected 16") }
    let encoding = uint16(bytes, offset)
    guard encoding == 1 else { throw WAVError.notPCM(encoding: Int(encoding)) }
    let channels = Int(uint16(bytes, offset + 2))
    let rate = Int(uint32(bytes, offset + 4))
    let bits = Int(uint16(bytes, offset + 14))
    guard channels >= 1, rate >= 1, bits >= 8, bits % 8 == 0 else {
      throw WAVError.badFormat("\(channels) channels at \(rate) Hz, \(bits) bits per sample")
    }
    let format = WAVFormat(channels: channels, sampleRate: rate, bitsPerSample: bits)
    let blockAlign = Int(uint16(bytes, offset + 12))
    guard blockAlign == format.bytesPerFrame else {
      throw WAVError.badFormat(
        "block align \(blockAlign); \(format) has \(format.bytesPerFrame)-byte frames")
    }
    return format
  }

  /// The 44-byte header of a PCM WAV file whose data chunk holds `dataBytes` bytes.
  public static func header(format: WAVFormat, dataBytes: Int) -> [UInt8] {
    precondition(
      dataBytes >= 0 && dataBytes <= maximumDataBytes,
      "WAVFile.header: \(dataBytes) data bytes do not fit a WAV file's 32-bit sizes")
    var header: [UInt8] = []
    header.reserveCapacity(headerSize)
    func append(_ text: String) { header += Array(text.utf8) }
    func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header += $0 } }
    func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header += $0 } }
    append("RIFF")
    append32(headerSize - 8 + dataBytes)
    append("WAVE")
    append("fmt ")
    append32(16)
    append16(1)
    append16(format.channels)
    append32(format.sampleRate)
    append32(format.sampleRate * format.bytesPerFrame)
    append16(format.bytesPerFrame)
    append16(format.bitsPerSample)
    append("data")
    append32(dataBytes)
    return header
  }

  /// A whole WAV file: the header, then the samples.
  public static func bytes(of audio: PCMAudio) -> [UInt8] {
    header(format: audio.format, dataBytes: audio.bytes.count) + audio.bytes
  }

  /// The most sample bytes a WAV file holds: its RIFF size is 32 bits and counts the header.
  public static let maximumDataBytes = Int(UInt32.max) - (headerSize - 8)

  private static func ascii(_ bytes: [UInt8], _ offset: Int) -> String {
    guard offset + 4 <= bytes.count else { return "" }
    return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
  }

  private static func uint16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
  }

  private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
  }
}

/// A WAV file that cannot be read or written.
public enum WAVError: Error, Equatable, CustomStringConvertible {
  case notRIFF
  case notWAVE(found: String)
  case missingChunk(String)
  case notPCM(encoding: Int)
  case badFormat(String)
  case truncated(chunk: String, declared: Int, available: Int)
  case partialFrame(bytes: Int, bytesPerFrame: Int)
  case formatMismatch(found: WAVFormat, expected: WAVFormat)
  case tooLong(bytes: Int)
  case cannotWrite(path: String, reason: String)

  public var description: String {
    switch self {
    case .notRIFF: "not a WAV file: it does not start with 'RIFF'"
    case .notWAVE(let found): "not a WAV file: RIFF type '\(found)', expected 'WAVE'"
    case .missingChunk(let id): "WAV file has no '\(id)' chunk"
    case .notPCM(let encoding):
      "WAV encoding \(encoding) is not read; expected 1 (uncompressed PCM)"
    case .badFormat(let what): "WAV fmt chunk has \(what)"
    case .truncated(let chunk, let declared, let available):
      "WAV chunk '\(chunk)' declares \(declared) bytes but only \(available) follow: the file "
        + "is cut short"
    case .partialFrame(let bytes, let bytesPerFrame):
      "WAV data of \(bytes) bytes is not a whole number of \(bytesPerFrame)-byte frames"
    case .formatMismatch(let found, let expected): "audio is \(found), expected \(expected)"
    case .tooLong(let bytes):
      "\(bytes) bytes of audio do not fit a WAV file (at most \(WAVFile.maximumDataBytes))"
    case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
    }
  }
}
