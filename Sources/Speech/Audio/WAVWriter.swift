import Foundation

/// Writes a WAV file as its audio arrives: sound and silence appended in order, the header's
/// sizes filled in by `close()`.
///
/// Streaming to the file, rather than building the audio in memory, keeps a long live session's
/// memory flat: an hour of espeak-ng's 22050 Hz 16-bit mono is 159 MB.
public final class WAVWriter {
  public let path: String
  public let format: WAVFormat
  /// Frames written so far.
  public private(set) var frames = 0
  private let file: FileHandle
  private var closed = false

  /// Creates (or empties) the file at `path` and writes a header for no samples yet.
  ///
  /// - Throws: `WAVError.cannotWrite` when the file cannot be created.
  public init(path: String, format: WAVFormat) throws {
    self.path = path
    self.format = format
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let file = FileHandle(forWritingAtPath: path)
    else {
      throw WAVError.cannotWrite(path: path, reason: "the file cannot be created")
    }
    self.file = file
    try write(WAVFile.header(format: format, dataBytes: 0))
  }

  deinit { try? file.close() }

  /// Seconds written so far.
  public var duration: Double { format.seconds(frames: frames) }

  /// Appends `audio`, which must be in the writer's format.
  ///
  /// - Throws: `WAVError.formatMismatch`, `.tooLong`, `.cannotWrite`.
  public func append(_ audio: PCMAudio) throws {
    precondition(!closed, "WAVWriter.append: \(path) is closed")
    guard audio.format == format else {
      throw WAVError.formatMismatch(found: audio.format, expected: format)
    }
    try reserve(frames: audio.frames)
    try write(audio.bytes)
    frames += audio.frames
  }

  /// Appends `count` frames of silence.
  public func appendSilence(frames count: Int) throws {
    precondition(!closed, "WAVWriter.appendSilence: \(path) is closed")
    precondition(count >= 0, "WAVWriter.appendSilence: \(count) frames")
    try reserve(frames: count)
    let chunkFrames = 1 << 14
    let chunk = [UInt8](
      repeating: format.silenceByte, count: min(count, chunkFrames) * format.bytesPerFrame)
    var left = count
    while left > 0 {
      let now = min(left, chunkFrames)
      try write(now == chunkFrames ? chunk : Array(chunk[..<(now * format.bytesPerFrame)]))
      left -= now
    }
    frames += count
  }

  /// Appends silence up to `frame` (nothing when the file is already that long).
  public func padSilence(to frame: Int) throws {
    if frame > frames { try appendSilence(frames: frame - frames) }
  }

  /// Writes the header's sizes and closes the file. Closing twice does nothing.
  public func close() throws {
    guard !closed else { return }
    closed = true
    do {
      try file.seek(toOffset: 0)
      try file.write(
        contentsOf: WAVFile.header(format: format, dataBytes: frames * format.bytesPerFrame))
      try file.close()
    } catch {
      throw WAVError.cannotWrite(path: path, reason: "\(error)")
    }
  }

  private func reserve(frames more: Int) throws {
    let bytes = (frames + more) * format.bytesPerFrame
    guard bytes <= WAVFile.maximumDataBytes else { throw WAVError.tooLong(bytes: bytes) }
  }

  private func write(_ bytes: [UInt8]) throws {
    do {
      try file.write(contentsOf: bytes)
    } catch {
      throw WAVError.cannotWrite(path: path, reason: "\(error)")
    }
  }
}
