import Dispatch
import Foundation
import Speech
import Testing

/// A sound device without sound: records what it is asked to say and how many utterances
/// overlap, and holds the first one until the test opens the gate, so a test can hear events
/// while the speaker is busy, without sleeping.
final class HeldVoice: SoundOutput, @unchecked Sendable {
  private let lock = NSLock()
  private var texts: [String] = []
  private var speaking = 0
  private var mostAtOnce = 0
  private let gate = DispatchSemaphore(value: 0)
  /// Signalled as each utterance begins.
  let begun = DispatchSemaphore(value: 0)
  let failing: Bool

  init(failing: Bool = false) { self.failing = failing }

  var said: [String] { lock.withLock { texts } }
  var overlapped: Bool { lock.withLock { mostAtOnce > 1 } }

  func openGate() { gate.signal() }

  func say(_ text: String) throws {
    lock.withLock {
      texts.append(text)
      speaking += 1
      mostAtOnce = max(mostAtOnce, speaking)
    }
    begun.signal()
    gate.wait()
    gate.signal()  // once open, it stays open
    lock.withLock { speaking -= 1 }
    if failing { throw SpeechError.cannotPlay(reason: "no device") }
  }
}

/// Real time, set by the test.
final class ManualClock: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds = 0.0
  var now: Double {
    get { lock.withLock { seconds } }
    set { lock.withLock { seconds = newValue } }
  }
}

@Suite struct LiveSpeakerTests {
  /// Reps heard while the set's name is being said: the count two behind is skipped, the rest
  /// said one at a time, in order.
  @Test func aBusySpeakerSkipsStaleCountsAndNeverOverlaps() throws {
    let voice = HeldVoice()
    let clock = ManualClock()
    let speaker = LiveSpeaker(output: voice, clock: { clock.now })
    speaker.hear(Events.start(at: 0))
    voice.begun.wait()  // "squat" is being said
    for count in 1...3 { speaker.hear(Events.rep(count, at: Double(count))) }
    voice.openGate()
    try speaker.finish()
    #expect(voice.said == ["squat", "2", "3"])
    #expect(!voice.overlapped)
    #expect(speaker.said == 3 && speaker.dropped == 1)
  }

  /// Real time decides a cue's age: one heard while the speaker was busy for longer than 4 s
  /// is dropped.
  @Test func aCueLeftWaitingTooLongIsDropped() throws {
    let voice = HeldVoice()
    let clock = ManualClock()
    let speaker = LiveSpeaker(output: voice, clock: { clock.now })
    speaker.hear(Events.rep(1, at: 0))
    voice.begun.wait()
    speaker.hear(Events.cue("Go deeper.", at: 0.5))
    clock.now = 5
    voice.openGate()
    try speaker.finish()
    #expect(voice.said == ["1"])
    #expect(speaker.dropped == 1)
  }

  /// `finish` waits for what is still worth saying: a set's end heard last is said.
  @Test func finishSaysWhatIsLeft() throws {
    let voice = HeldVoice()
    voice.openGate()
    let speaker = LiveSpeaker(output: voice)
    speaker.hear(Events.end(10, at: 30))
    try speaker.finish()
    #expect(voice.said == ["squat: 10 reps"])
  }

  /// A failing sound device stops the speaking; `finish` throws its error, and events heard
  /// after it are ignored.
  @Test func aFailureIsThrownByFinish() throws {
    let voice = HeldVoice(failing: true)
    voice.openGate()
    let speaker = LiveSpeaker(output: voice)
    speaker.hear(Events.rep(1, at: 0))
    voice.begun.wait()
    #expect(throws: SpeechError.cannotPlay(reason: "no device")) { try speaker.finish() }
    speaker.hear(Events.rep(2, at: 1))
    #expect(voice.said == ["1"])
  }
}
