import Dispatch
import Foundation

/// Speaks through the sound device as events arrive, on real time: one utterance at a time on
/// a thread of its own, the freshest pending one next, stale ones dropped by the queue's rules.
///
/// Real time, not the stream's, decides staleness here, because the person hears the speech
/// now: a cue that waited four seconds behind other words is four seconds late whatever the
/// stream's clock says. So a file classified faster than real time is not read out in full:
/// what is said is what is current each time the speaker is free, and at the end the sets'
/// totals, which never go stale.
///
/// `hear` only queues and returns, so the session's event path never waits for speech.
/// `finish` waits until everything still worth saying has been said, and must be called: the
/// thread runs until then.
public final class LiveSpeaker: CueSpeaker, @unchecked Sendable {
  // Everything below is guarded by `condition`.
  private let condition = NSCondition()
  private var queue: UtteranceQueue
  private var finishing = false
  private var failure: (any Error)?
  private var saidCount = 0
  private let stopped = DispatchSemaphore(value: 0)
  private let output: any SoundOutput
  private let clock: @Sendable () -> Double

  /// Starts the speaking thread.
  ///
  /// - Parameters:
  ///   - output: what says the words (espeak-ng; tests pass their own).
  ///   - clock: seconds on a monotonic clock; tests pass their own.
  public init(
    output: any SoundOutput, policy: SpeechPolicy = SpeechPolicy(),
    clock: @escaping @Sendable () -> Double = LiveSpeaker.monotonicSeconds
  ) {
    self.output = output
    self.clock = clock
    queue = UtteranceQueue(policy: policy)
    let thread = Thread { [self] in speakUntilFinished() }
    thread.name = "spotter-speech"
    thread.start()
  }

  /// Seconds since boot on a clock that never jumps (`CLOCK_MONOTONIC`).
  public static let monotonicSeconds: @Sendable () -> Double = {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
  }

  public var said: Int { locked { saidCount } }
  public var dropped: Int { locked { queue.dropped } }

  /// Real time is the clock, so the stream's time is not needed.
  public func advance(to t: Double) {}

  public func hear(_ event: SpeechEvent) {
    let now = clock()
    locked {
      guard failure == nil, !finishing else { return }
      queue.offer(event, heard: now)
      condition.signal()
    }
  }

  public func finish() throws {
    locked {
      finishing = true
      condition.signal()
    }
    stopped.wait()
    stopped.signal()  // a second finish() returns at once
    if let failure = locked({ failure }) { throw failure }
  }

  /// The speaking thread: waits for something to say, says the next utterance still worth it,
  /// and stops when finishing with nothing left, or at the first failure.
  private func speakUntilFinished() {
    defer { stopped.signal() }
    while true {
      condition.lock()
      while queue.isEmpty && !finishing { condition.wait() }
      let next = queue.next(now: clock())
      let done = next == nil && queue.isEmpty && finishing
      condition.unlock()
      if done { return }
      guard let next else { continue }
      do {
        try output.say(next.text)
        locked { saidCount += 1 }
      } catch {
        locked {
          failure = error
          queue = UtteranceQueue(policy: queue.policy)
        }
        return
      }
    }
  }

  private func locked<T>(_ body: () throws -> T) rethrows -> T {
    condition.lock()
    defer { condition.unlock() }
    return try body()
  }
}
