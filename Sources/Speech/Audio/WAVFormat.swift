/// The shape of PCM audio: channels, sample rate and bits per sample. Samples are interleaved,
/// little-endian, signed for 16 bits and over, unsigned for 8 bits (as WAV stores them).
public struct WAVFormat: Sendable, Equatable, CustomStringConvertible {
  public var channels: Int
  /// Frames per second (one frame holds a sample of each channel).
  public var sampleRate: Int
  public var bitsPerSample: Int

  public init(channels: Int, sampleRate: Int, bitsPerSample: Int) {
    precondition(channels >= 1, "WAVFormat: channels must be at least 1, got \(channels)")
    precondition(sampleRate >= 1, "WAVFormat: sample rate must be at least 1, got \(sampleRate)")
    precondition(
      bitsPerSample >= 8 && bitsPerSample % 8 == 0,
      "WAVFormat: bits per sample must be a whole number of bytes, got \(bitsPerSample)")
    self.channels = channels
    self.sampleRate = sampleRate
    self.bitsPerSample = bitsPerSample
  }

  /// Bytes per frame (WAV's block align).
  public var bytesPerFrame: Int { channels * bitsPerSample / 8 }

  /// The byte silence is made of: 8-bit WAV is unsigned, so its zero level is 128.
  public var silenceByte: UInt8 { bitsPerSample == 8 ? 0x80 : 0 }

  /// Seconds of audio in `frames` frames.
  public func seconds(frames: Int) -> Double { Double(frames) / Double(sampleRate) }

  public var description: String {
    "\(sampleRate) Hz, \(channels == 1 ? "mono" : "\(channels) channels"), \(bitsPerSample)-bit"
  }
}

/// PCM audio in memory: a format and its sample bytes, whole frames only.
public struct PCMAudio: Sendable, Equatable {
  public var format: WAVFormat
  /// Interleaved little-endian samples, as a WAV file's data chunk holds them.
  public var bytes: [UInt8]

  public init(format: WAVFormat, bytes: [UInt8] = []) {
    precondition(
      bytes.count % format.bytesPerFrame == 0,
      "PCMAudio: \(bytes.count) bytes is not a whole number of \(format.bytesPerFrame)-byte frames")
    self.format = format
    self.bytes = bytes
  }

  public var frames: Int { bytes.count / format.bytesPerFrame }
  public var duration: Double { format.seconds(frames: frames) }
}
