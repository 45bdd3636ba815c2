import Foundation
import Speech
import TestSupport
import Testing

@Suite struct WAVFileTests {
  static let formats = [
    WAVFormat(channels: 1, sampleRate: 22050, bitsPerSample: 16),
    WAVFormat(channels: 2, sampleRate: 44100, bitsPerSample: 16),
    WAVFormat(channels: 1, sampleRate: 8000, bitsPerSample: 8),
    WAVFormat(channels: 2, sampleRate: 48000, bitsPerSample: 24),
  ]

  static func audio(_ format: WAVFormat, frames: Int) -> PCMAudio {
    PCMAudio(
      format: format,
      bytes: (0..<frames * format.bytesPerFrame).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
  }

  /// What the writer writes, the reader reads back, header and samples.
  @Test(arguments: formats)
  func writtenAudioReadsBack(format: WAVFormat) throws {
    let audio = Self.audio(format, frames: 101)
    let bytes = WAVFile.bytes(of: audio)
    #expect(bytes.count == WAVFile.headerSize + audio.bytes.count)
    #expect(try WAVFile.parse(bytes) == audio)
  }

  /// The canonical header, byte by byte, for espeak-ng's format.
  @Test func theHeaderIsTheCanonicalOne() {
    let header = WAVFile.header(
      format: WAVFormat(channels: 1, sampleRate: 22050, bitsPerSample: 16), dataBytes: 1000)
    let expected: [UInt8] =
      Array("RIFF".utf8) + [0x0C, 0x04, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
      + [0x22, 0x56, 0, 0, 0x44, 0xAC, 0, 0, 2, 0, 16, 0] + Array("data".utf8)
      + [0xE8, 0x03, 0, 0]
    #expect(header == expected)
  }

  /// Chunks other than fmt and data are skipped, odd-sized ones with their pad byte, and a
  /// longer fmt chunk is read for its first 16 bytes.
  @Test func otherChunksAreSkipped() throws {
    let audio = Self.audio(Self.formats[0], frames: 5)
    var bytes = WAVFile.bytes(of: audio)
    let list: [UInt8] = Array("LIST".utf8) + [3, 0, 0, 0] + [1, 2, 3] + [0]
    bytes.insert(contentsOf: list, at: 12)
    #expect(try WAVFile.parse(bytes) == audio)
    var longFormat = WAVFile.bytes(of: audio)
    longFormat[16] = 18  // fmt size 18: cbSize follows
    longFormat.insert(contentsOf: [0, 0], at: 36)
    #expect(try WAVFile.parse(longFormat) == audio)
  }

  /// Audio written to a pipe carries a placeholder length (espeak-ng --stdout: 0x7FFFF000):
  /// read to the end, whole frames.
  @Test(arguments: [[0x00, 0xF0, 0xFF, 0x7F], [0xFF, 0xFF, 0xFF, 0xFF]] as [[UInt8]])
  func aStreamedLengthIsReadToTheEnd(placeholder: [UInt8]) throws {
    let audio = Self.audio(Self.formats[0], frames: 9)
    var bytes = WAVFile.bytes(of: audio)
    bytes.replaceSubrange(40..<44, with: placeholder)
    bytes.replaceSubrange(4..<8, with: placeholder)
    #expect(try WAVFile.parse(bytes) == audio)
    #expect(try WAVFile.parse(bytes + [0x55]) == audio)  // half a frame at the end is left out
  }

  static let broken: [(String, @Sendable (inout [UInt8]) -> Void, WAVError)] = [
    ("not RIFF", { $0.replaceSubrange(0..<4, with: Array("RIFX".utf8)) }, .notRIFF),
    ("too short", { $0.removeSubrange(8...) }, .notRIFF),
    ("not WAVE", { $0.replaceSubrange(8..<12, with: Array("AVI ".utf8)) }, .notWAVE(found: "AVI ")),
    ("not PCM", { $0[20] = 3 }, .notPCM(encoding: 3)),
    ("no fmt", { $0.replaceSubrange(12..<16, with: Array("junk".utf8)) }, .missingChunk("fmt ")),
    ("no data", { $0.removeSubrange(36...) }, .missingChunk("data")),
    (
      "cut short", { $0.removeLast(4) },
      .truncated(chunk: "data", declared: 20, available: 16)
    ),
    (
      "half a frame",
      {
        $0[40] = 19
        $0.removeLast()
      }, .partialFrame(bytes: 19, bytesPerFrame: 2)
    ),
    (
      "bad block align", { $0[32] = 4 },
      .badFormat("block align 4; 22050 Hz, mono, 16-bit has 2-byte frames")
    ),
  ]

  /// Bad files are typed errors that say what was found and what was expected.
  @Test(arguments: broken)
  func brokenFilesAreErrors(
    _ name: String, _ breakIt: @Sendable (inout [UInt8]) -> Void, _ error: WAVError
  ) {
    var bytes = WAVFile.bytes(of: Self.audio(Self.formats[0], frames: 10))
    breakIt(&bytes)
    #expect(throws: error, "\(name)") { try WAVFile.parse(bytes) }
  }
}

@Suite struct WAVWriterTests {
  static let format = WAVFormat(channels: 1, sampleRate: 8000, bitsPerSample: 16)

  /// Sound and silence land in order; `close` fills in the sizes.
  @Test func soundAndSilenceAreWrittenInOrder() throws {
    let path = Fixtures.temporaryFolder() + "/out.wav"
    let writer = try WAVWriter(path: path, format: Self.format)
    let sound = PCMAudio(format: Self.format, bytes: [1, 2, 3, 4])
    try writer.appendSilence(frames: 3)
    try writer.append(sound)
    try writer.padSilence(to: 40_000)  // more than one chunk of silence
    try writer.padSilence(to: 10)  // already longer: nothing
    try writer.close()
    try writer.close()
    #expect(writer.frames == 40_000 && writer.duration == 5)
    let read = try WAVFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    #expect(read.format == Self.format && read.frames == 40_000)
    #expect(Array(read.bytes[0..<10]) == [0, 0, 0, 0, 0, 0, 1, 2, 3, 4])
    #expect(read.bytes[10...].allSatisfy { $0 == 0 })
  }

  /// Eight-bit WAV is unsigned: its silence is 128.
  @Test func eightBitSilenceIsTheMiddleLevel() throws {
    let path = Fixtures.temporaryFolder() + "/out.wav"
    let writer = try WAVWriter(
      path: path, format: WAVFormat(channels: 1, sampleRate: 8000, bitsPerSample: 8))
    try writer.appendSilence(frames: 5)
    try writer.close()
    let read = try WAVFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    #expect(read.bytes == [128, 128, 128, 128, 128])
  }

  @Test func audioInAnotherFormatIsRefused() throws {
    let writer = try WAVWriter(path: Fixtures.temporaryFolder() + "/out.wav", format: Self.format)
    let other = WAVFormat(channels: 2, sampleRate: 8000, bitsPerSample: 16)
    #expect(throws: WAVError.formatMismatch(found: other, expected: Self.format)) {
      try writer.append(PCMAudio(format: other, bytes: [0, 0, 0, 0]))
    }
  }

  @Test func aFileThatCannotBeCreatedIsAnError() {
    #expect(
      throws: WAVError.cannotWrite(path: "/no/such/dir/x.wav", reason: "the file cannot be created")
    ) {
      _ = try WAVWriter(path: "/no/such/dir/x.wav", format: Self.format)
    }
  }
}
