import Foundation
import Speech
import TestSupport
import Testing

@Suite struct ESpeakNGTests {
  static let installed = (try? ESpeakNG()) != nil

  /// Without espeak-ng, a typed error that says how to get it.
  @Test func aMissingESpeakNGIsAClearError() {
    #expect(throws: SpeechError.notInstalled) { _ = try ESpeakNG(searchPath: "/no/such:/dir") }
    #expect(
      SpeechError.notInstalled.description
        == "espeak-ng is not installed: apt-get install espeak-ng")
  }

  /// espeak-ng exits 0 when it cannot open the sound device; its `error:` line is what tells.
  @Test(
    arguments: [
      (
        "ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\n"
          + "error: No such file or directory\n", "No such file or directory"
      ),
      (
        "Error: The specified espeak-ng voice does not exist.\n",
        "The specified espeak-ng voice does not exist."
      ),
      ("", nil),
      ("ALSA lib confmisc.c:855:(parse_card) cannot find card '0'\n", nil),
    ] as [(String, String?)])
  func theReportedFailureIsReadFromStandardError(_ standardError: String, _ failure: String?) {
    #expect(ESpeakNG.reportedFailure(in: standardError) == failure)
  }

  /// A stand-in for espeak-ng: a shell script with `body`.
  static func script(_ body: String) throws -> ESpeakNG {
    let path = Fixtures.temporaryFolder() + "/espeak-ng"
    try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    return ESpeakNG(executable: path)
  }

  /// What espeak-ng does on a machine without a sound device (status 0, ALSA's complaints,
  /// then `error: …`) is `cannotPlay`, for saying and for the up-front check.
  @Test func noSoundDeviceIsCannotPlay() throws {
    let espeak = try Self.script(
      "echo \"ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\" >&2\n"
        + "echo \"error: No such file or directory\" >&2\nexit 0")
    let error = SpeechError.cannotPlay(reason: "No such file or directory")
    #expect(throws: error) { try espeak.say("3") }
    #expect(throws: error) { try espeak.checkSoundDevice() }
    #expect(
      error.description
        == "espeak-ng cannot play sound on this machine: No such file or directory "
        + "(is there a sound device?)")
  }

  @Test func aFailingProgramAndUnreadableAudioAreErrors() throws {
    let failing = try Self.script("echo broken >&2\nexit 3")
    #expect(
      throws: SpeechError.failed(
        command: "espeak-ng --stdout -- 3", reason: "exit status 3: broken")
    ) {
      _ = try failing.synthesize("3")
    }
    let garbage = try Self.script("echo not a wav")
    #expect(
      throws: SpeechError.unexpectedAudio(reason: "not a WAV file: it does not start with 'RIFF'")
    ) {
      _ = try garbage.synthesize("3")
    }
  }

  /// The real espeak-ng (installed by `make test`): its own format, and longer words take
  /// longer; a message starting with a dash is said, not taken for an option.
  @Test(.enabled(if: installed, "espeak-ng is not installed (make test installs it)"))
  func eSpeakNGSpeaksIntoPCM() throws {
    let espeak = try ESpeakNG()
    let three = try espeak.synthesize("3")
    let total = try espeak.synthesize("squat: 12 reps")
    #expect(three.format == ESpeakNG.outputFormat && total.format == ESpeakNG.outputFormat)
    #expect(three.duration > 0.1 && total.duration > three.duration)
    #expect(try espeak.synthesize("-x").duration > 0.1)
  }
}
