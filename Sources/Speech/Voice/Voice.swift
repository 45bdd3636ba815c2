/// Turns text into audio, for a WAV file.
public protocol Synthesizer: Sendable {
  /// The format of everything it makes, known before the first utterance so a file can start.
  var format: WAVFormat { get }
  /// The spoken `text` (not empty).
  func synthesize(_ text: String) throws -> PCMAudio
}

/// Says text through the sound device.
public protocol SoundOutput: Sendable {
  /// Says `text` (not empty); returns when it has been said.
  func say(_ text: String) throws
}
