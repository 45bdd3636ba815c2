import Foundation

/// espeak-ng, the speech synthesiser of Debian's `espeak-ng` package, run as a child process:
/// the one place Speech runs a program.
///
/// Text is passed after `--`, so a message starting with a dash is said, not read as an option.
/// espeak-ng exits 0 even when it cannot open the sound device or write audio, so failure is
/// read from the `error: …` line it prints on standard error, as well as from its status. It
/// prints a few lines there at most, far below a pipe's 64 KiB, so standard output is read to
/// its end before standard error without either blocking the other.
public struct ESpeakNG: Synthesizer, SoundOutput {
  /// espeak-ng's own output: 22050 Hz, mono, 16-bit (what `-w` and `--stdout` write).
  public static let outputFormat = WAVFormat(channels: 1, sampleRate: 22050, bitsPerSample: 16)

  /// The program's path.
  public let executable: String

  public var format: WAVFormat { Self.outputFormat }

  /// Uses the program at `executable`, unchecked.
  public init(executable: String) { self.executable = executable }

  /// Finds `espeak-ng` on `searchPath`, a colon-separated list of folders (by default `$PATH`).
  ///
  /// - Throws: `SpeechError.notInstalled` when no folder holds an executable `espeak-ng`.
  public init(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) throws {
    let folders = (searchPath ?? "").split(separator: ":").map(String.init)
    guard
      let found = folders.lazy.map({ $0 + "/espeak-ng" }).first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { throw SpeechError.notInstalled }
    executable = found
  }

  /// `espeak-ng --stdout -- TEXT`: the spoken text as PCM audio.
  public func synthesize(_ text: String) throws -> PCMAudio {
    precondition(!text.isEmpty, "ESpeakNG.synthesize: no text (espeak-ng writes nothing for it)")
    let result = try run(["--stdout", "--", text])
    let audio: PCMAudio
    do {
      audio = try WAVFile.parse(result.output)
    } catch {
      throw SpeechError.unexpectedAudio(reason: "\(error)")
    }
    guard audio.format == format else {
      throw SpeechError.unexpectedAudio(reason: "\(audio.format), expected \(format)")
    }
    return audio
  }

  /// `espeak-ng -- TEXT`: says the text through the sound device; returns when it is said.
  ///
  /// - Throws: `SpeechError.cannotPlay` when espeak-ng cannot open the sound device.
  public func say(_ text: String) throws {
    precondition(!text.isEmpty, "ESpeakNG.say: no text")
    _ = try run(["--", text], playing: true)
  }

  /// Opens the sound device without saying anything (espeak-ng given no text still opens it),
  /// so a machine without one fails before a workout rather than at its first rep.
  ///
  /// - Throws: `SpeechError.cannotPlay`.
  public func checkSoundDevice() throws {
    _ = try run(["--", ""], playing: true)
  }

  /// The failure espeak-ng reported on standard error: its last `error: …` line (any case),
  /// without the prefix; nil when it reported none. ALSA's own complaints before it are noise.
  public static func reportedFailure(in standardError: String) -> String? {
    let lines = standardError.split(whereSeparator: \.isNewline)
    guard let line = lines.last(where: { $0.lowercased().hasPrefix("error:") }) else { return nil }
    return line.dropFirst("error:".count).trimmingCharacters(in: .whitespaces)
  }

  private func run(_ arguments: [String], playing: Bool = false) throws -> (
    output: [UInt8], error: String
  ) {
    let command = "espeak-ng " + arguments.joined(separator: " ")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = error
    do {
      try process.run()
    } catch {
      throw SpeechError.failed(command: command, reason: "cannot start \(executable): \(error)")
    }
    let bytes = [UInt8](output.fileHandleForReading.readDataToEndOfFile())
    let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let reported = Self.reportedFailure(in: text)
    if playing, let reported { throw SpeechError.cannotPlay(reason: reported) }
    guard process.terminationStatus == 0, reported == nil else {
      let reason =
        reported ?? "exit status \(process.terminationStatus)"
        + (text.isEmpty ? "" : ": \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
      throw SpeechError.failed(command: command, reason: reason)
    }
    return (bytes, text)
  }
}
