import ArgumentParsing
import Foundation
import Poses
import Speech

/// `--speak` and `--speak-to FILE.wav` for the commands that run a session (`classify`,
/// `demo`): rep counts and cues said through espeak-ng, or written to a WAV file.
enum SpeakOptions {
  static let options: [Option] = [
    .flag("speak", "Say rep counts and cues aloud through espeak-ng (Debian package espeak-ng)."),
    .value(
      "speak-to", "FILE.wav",
      "Write the counts and cues to a WAV file instead, each at its time in the stream."),
  ]

  /// The speaker the options ask for, ready before the first frame; nil when neither is given.
  ///
  /// - Throws: `SpeechError.notInstalled` without espeak-ng; `.cannotPlay` for `--speak` on a
  ///   machine without a sound device (found now, not at the first rep); `WAVError` for a
  ///   `--speak-to` file that cannot be created.
  static func speaker(_ arguments: ParsedArguments, command: Command) throws -> (any CueSpeaker)? {
    let path = arguments.values["speak-to"]
    let live = arguments.flag("speak")
    if live && path != nil {
      throw CLIError.usage("--speak and --speak-to cannot be used together", command: command)
    }
    if let path { return try WAVSpeaker(path: path, synthesizer: try ESpeakNG()) }
    guard live else { return nil }
    let espeak = try ESpeakNG()
    try withHint { try espeak.checkSoundDevice() }
    return LiveSpeaker(output: espeak)
  }

  /// Waits for the speaker to finish; returns a line saying what it said.
  static func finish(_ speaker: any CueSpeaker) throws -> String {
    try withHint { try speaker.finish() }
    var line = "Speech: said \(speaker.said), dropped \(speaker.dropped) as stale"
    if let file = speaker as? WAVSpeaker {
      line += String(format: "; wrote %@ (%.2f s)", file.path, file.duration)
    }
    return line + "."
  }

  /// Runs `body`, adding where to turn when the sound device fails.
  private static func withHint(_ body: () throws -> Void) throws {
    do {
      try body()
    } catch let error as SpeechError {
      guard case .cannotPlay = error else { throw error }
      throw CLIError.failure(
        error.description, hint: "--speak-to FILE.wav writes the speech to a WAV file instead.")
    }
  }

  /// A pose source that tells the speaker each frame's time before the session sees the frame,
  /// so speech is placed when the session could first have known it.
  final class SpeakerClockedSource: PoseSource {
    let source: any PoseSource
    let speaker: any CueSpeaker

    init(_ source: any PoseSource, speaker: any CueSpeaker) {
      self.source = source
      self.speaker = speaker
    }

    var header: PoseFileHeader { source.header }
    var name: String { source.name }

    func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
      let result = try source.next(into: &frame)
      if case .frame = result { speaker.advance(to: frame.t) }
      return result
    }
  }
}
