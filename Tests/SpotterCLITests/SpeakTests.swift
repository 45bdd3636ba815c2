import Foundation
import Poses
import Speech
import TestSupport
import Testing

/// `--speak` and `--speak-to` through the real binary.
@Suite struct SpeakTests {
  static let installed = (try? ESpeakNG()) != nil

  /// What `classify --json --speak-to` gave for a synthetic squat set of `reps` reps.
  struct Run {
    var audio: PCMAudio
    /// The stream's length: the last frame's time.
    var streamSeconds: Double
    var said: Int
    var dropped: Int
    /// Events that have words: set starts and ends (not `other`), reps, cues.
    var spokenEvents: Int
    /// Seconds of audio above a whisper.
    var speechSeconds: Double {
      var loud = 0
      for frame in 0..<audio.frames {
        let sample = Int16(audio.bytes[2 * frame]) | Int16(audio.bytes[2 * frame + 1]) << 8
        if abs(Int(sample)) > 300 { loud += 1 }
      }
      return audio.format.seconds(frames: loud)
    }
  }

  /// A synthetic squat set of `reps` reps, seen from the front: its pose file.
  static func squats(_ reps: Int) throws -> String {
    let folder = Fixtures.temporaryFolder()
    let synth = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", "squat", "--reps", "\(reps)", "--camera",
      "front", "--seed", "5",
    ])
    try #require(synth.status == 0, "\(synth.stderr)")
    return folder + "/synth-000005.jsonl"
  }

  static func classify(squats reps: Int) throws -> Run {
    let poses = try squats(reps)
    let folder = Fixtures.temporaryFolder()
    let wav = folder + "/speech.wav"
    let result = try SpotterProcess.run(["classify", "--json", "--speak-to", wav, poses])
    try #require(result.status == 0, "\(result.stderr)")
    var spoken = 0
    for line in result.stdout.split(separator: "\n") {
      let event = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      switch event["type"] as? String {
      case "rep", "cue": spoken += 1
      case "exercise_started", "exercise_ended":
        spoken += event["exercise"] as? String == "other" ? 0 : 1
      default: break
      }
    }
    let numbers = result.stderr.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    try #require(result.stderr.hasPrefix("Speech: said ") && numbers.count >= 2, "\(result.stderr)")
    let lastFrame = try #require(try Fixtures.readAll(try PoseFiles.open(poses)).frames.last?.t)
    return Run(
      audio: try WAVFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: wav)))),
      streamSeconds: lastFrame, said: numbers[0], dropped: numbers[1], spokenEvents: spoken)
  }

  /// The done-check of spoken cues: `--speak-to` writes espeak-ng's speech as a soundtrack of
  /// the stream, and more reps mean more utterances, more speech and a longer file.
  @Test(.enabled(if: installed, "espeak-ng is not installed (make test installs it)"))
  func speakToWritesAWAVThatGrowsWithTheUtterances() throws {
    let short = try Self.classify(squats: 3)
    let long = try Self.classify(squats: 9)
    for run in [short, long] {
      #expect(run.audio.format == ESpeakNG.outputFormat)
      #expect(run.said + run.dropped == run.spokenEvents)
      #expect(run.audio.duration >= run.streamSeconds - 0.01)
      #expect(run.speechSeconds > 0.2 * Double(run.said))
    }
    #expect(long.said > short.said)
    #expect(long.speechSeconds > short.speechSeconds)
    #expect(long.audio.duration > short.audio.duration)
  }

  @Test func aMissingESpeakNGIsAClearErrorNotACrash() throws {
    let poses = Fixtures.file(Fixtures.squatFile(frames: 30))
    for speak in [["--speak"], ["--speak-to", Fixtures.temporaryFolder() + "/x.wav"]] {
      let result = try SpotterProcess.run(
        ["classify"] + speak + [poses], environment: ["PATH": "/no/such"])
      #expect(result.status == 1)
      #expect(result.stderr == "Error: espeak-ng is not installed: apt-get install espeak-ng\n")
    }
  }

  /// A stand-in for espeak-ng on a PATH of its own: it appends the text it is given to
  /// `said.txt` beside it, and runs `extra` first.
  static func fakeESpeakNG(_ extra: String = "") throws -> (path: String, log: String) {
    let folder = Fixtures.temporaryFolder()
    let script = folder + "/espeak-ng"
    let body = "#!/bin/sh\n\(extra)\nfor text; do :; done\necho \"$text\" >> \(folder)/said.txt\n"
    try body.write(toFile: script, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
    return (folder, folder + "/said.txt")
  }

  /// `--speak` through the sound device, with espeak-ng stood in for: the words reach it one
  /// utterance at a time, and the last set's total as its `exercise_ended` event tells it,
  /// which never goes stale, is said at the end.
  @Test func speakSaysTheCountsThroughESpeakNG() throws {
    let poses = try Self.squats(3)
    let espeak = try Self.fakeESpeakNG()
    let result = try SpotterProcess.run(
      ["classify", "--json", "--speak", poses], environment: ["PATH": espeak.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("Speech: said "))
    let log = try String(contentsOfFile: espeak.log, encoding: .utf8)
    #expect(log.hasPrefix("\n"))  // the sound-device check says nothing
    let said = log.split(separator: "\n").map(String.init)
    let ended = try #require(
      result.stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }.last { $0["type"] as? String == "exercise_ended" && $0["exercise"] as? String != "other" },
      "no set: \(result.stdout)")
    let reps = ended["reps"] as? Int ?? -1
    let name = (ended["exercise"] as? String ?? "?").replacingOccurrences(of: "_", with: " ")
    #expect(said.last == "\(name): \(reps) \(reps == 1 ? "rep" : "reps")", "\(said)")
  }

  /// On a machine without a sound device espeak-ng complains and exits 0: `--speak` stops
  /// before the stream with an error and a way out.
  @Test func speakWithoutASoundDeviceIsAClearError() throws {
    let espeak = try Self.fakeESpeakNG(
      "echo \"ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\" >&2\n"
        + "echo \"error: No such file or directory\" >&2; exit 0")
    let poses = Fixtures.file(Fixtures.squatFile(frames: 30))
    let result = try SpotterProcess.run(
      ["classify", "--speak", poses], environment: ["PATH": espeak.path])
    #expect(result.status == 1)
    #expect(
      result.stderr == "Error: espeak-ng cannot play sound on this machine: No such file or "
        + "directory (is there a sound device?)\nHint: --speak-to FILE.wav writes the speech to a "
        + "WAV file instead.\n")
    #expect(result.stdout.isEmpty)
  }

  @Test func speakAndSpeakToTogetherAreAUsageError() throws {
    let poses = Fixtures.file(Fixtures.squatFile(frames: 30))
    let result = try SpotterProcess.run(["classify", "--speak", "--speak-to", "x.wav", poses])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("Error: --speak and --speak-to cannot be used together"))
  }
}
