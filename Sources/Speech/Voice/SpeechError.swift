/// Why speech could not be made or played. The text says what happened and what to do.
public enum SpeechError: Error, Equatable, CustomStringConvertible {
  /// No `espeak-ng` on the search path.
  case notInstalled
  /// espeak-ng could not be started, or exited with a failure status.
  case failed(command: String, reason: String)
  /// espeak-ng could not open the sound device (a server or container usually has none).
  case cannotPlay(reason: String)
  /// espeak-ng's audio could not be read, or came in a format other than it declares.
  case unexpectedAudio(reason: String)

  public var description: String {
    switch self {
    case .notInstalled: "espeak-ng is not installed: apt-get install espeak-ng"
    case .failed(let command, let reason): "\(command) failed: \(reason)"
    case .cannotPlay(let reason):
      "espeak-ng cannot play sound on this machine: \(reason) (is there a sound device?)"
    case .unexpectedAudio(let reason): "espeak-ng's audio is not as expected: \(reason)"
    }
  }
}
