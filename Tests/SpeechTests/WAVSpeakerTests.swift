import Foundation
import Speech
import TestSupport
import Testing

/// A synthesiser without espeak-ng: 0.1 s per character at 1 kHz, each utterance one level of
/// its own (from its text), so the runs in a WAV show where each utterance went.
struct Tones: Synthesizer {
  let format = WAVFormat(channels: 1, sampleRate: 1000, bitsPerSample: 16)
  var failOn: String? = nil

  static func level(_ text: String) -> Int16 {
    Int16(1000 + text.unicodeScalars.reduce(0) { $0 + Int($1.value) })
  }

  func synthesize(_ text: String) throws -> PCMAudio {
    if text == failOn { throw SpeechError.unexpectedAudio(reason: "no tone for \(text)") }
    let level = Self.level(text)
    let bytes = (0..<100 * text.count).flatMap { _ in [UInt8(level & 0xFF), UInt8(level >> 8)] }
    return PCMAudio(format: format, bytes: bytes)
  }
}

@Suite struct WAVSpeakerTests {
  /// The runs of one level in 16-bit mono samples: (level, start, end) in frames, silence left
  /// out.
  static func runs(_ audio: PCMAudio) -> [(level: Int16, start: Int, end: Int)] {
    var runs: [(level: Int16, start: Int, end: Int)] = []
    for frame in 0..<audio.frames {
      let level = Int16(audio.bytes[2 * frame]) | Int16(audio.bytes[2 * frame + 1]) << 8
      if let last = runs.last, last.level == level, last.end == frame {
        runs[runs.count - 1].end = frame + 1
      } else if level != 0 {
        runs.append((level, frame, frame + 1))
      }
    }
    return runs
  }

  static func read(_ path: String) throws -> PCMAudio {
    try WAVFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  /// The WAV holds the timeline: each utterance where `StreamTimeline` puts it, counted from
  /// the stream's first frame, silence between, and the file runs to the stream's end.
  @Test func theWAVHoldsEachUtteranceAtItsStreamTime() throws {
    let path = Fixtures.temporaryFolder() + "/speech.wav"
    let speaker = try WAVSpeaker(path: path, synthesizer: Tones())
    speaker.advance(to: 100)  // the first frame: the WAV's 0 s
    for frame in stride(from: 100.0, through: 104, by: 0.5) {
      speaker.advance(to: frame)
      if frame == 101 { speaker.hear(Events.start(at: 100.5)) }  // "squat": 0.5 s
      if frame == 102 { speaker.hear(Events.rep(1, at: 102)) }  // 0.1 s each
      if frame == 102.5 {
        for count in 2...4 { speaker.hear(Events.rep(count, at: 102.5)) }  // 2 is stale
      }
    }
    speaker.advance(to: 110)
    try speaker.finish()
    let audio = try Self.read(path)
    #expect(audio.duration == 10)
    #expect(speaker.duration == 10 && speaker.said == 4 && speaker.dropped == 1)
    let runs = Self.runs(audio)
    #expect(runs.map(\.level) == ["squat", "1", "3", "4"].map(Tones.level))
    #expect(runs.map(\.start) == [1000, 2000, 2500, 2600])
    #expect(runs.map(\.end) == [1500, 2100, 2600, 2700])
  }

  /// More utterances, more speech: the file's sound grows with what is said.
  @Test(arguments: [1, 3, 6])
  func theSpeechGrowsWithTheUtterances(reps: Int) throws {
    let path = Fixtures.temporaryFolder() + "/speech.wav"
    let speaker = try WAVSpeaker(path: path, synthesizer: Tones())
    for count in 1...reps { speaker.hear(Events.rep(count, at: Double(count))) }
    try speaker.finish()
    let spoken = Self.runs(try Self.read(path)).reduce(0) { $0 + $1.end - $1.start }
    #expect(spoken == 100 * reps)
  }

  /// A failure stops the speaking, surfaces at `finish`, and still leaves a readable file.
  @Test func aFailureIsThrownAtFinishAndTheFileStillCloses() throws {
    let path = Fixtures.temporaryFolder() + "/speech.wav"
    let speaker = try WAVSpeaker(path: path, synthesizer: Tones(failOn: "2"))
    for count in 1...3 { speaker.hear(Events.rep(count, at: Double(count))) }
    #expect(throws: SpeechError.unexpectedAudio(reason: "no tone for 2")) { try speaker.finish() }
    #expect(speaker.said == 1)
    #expect(Self.runs(try Self.read(path)).count == 1)
  }
}
