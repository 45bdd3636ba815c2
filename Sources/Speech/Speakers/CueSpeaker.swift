/// Says a session's counts and cues as its events arrive: what `--speak` and `--speak-to`
/// drive.
///
/// Call `advance(to:)` with each frame's time before the session sees the frame, `hear(_:)`
/// with each event of the session's that has words (`SpeechEvent`), and `finish()` once after
/// the last event. A failure
/// (espeak-ng missing its sound device, a full disk) stops the speaking and is thrown by
/// `finish()`, so the caller's event path never has to handle it; the session's own output
/// goes on.
public protocol CueSpeaker: AnyObject {
  /// The stream has reached `t`: what is heard next happened then.
  func advance(to t: Double)
  /// Takes an event as it happens.
  func hear(_ event: SpeechEvent)
  /// Says what is still worth saying, then stops.
  ///
  /// - Throws: the first failure, if speaking failed on the way.
  func finish() throws
  /// Utterances said so far.
  var said: Int { get }
  /// Utterances dropped as stale so far.
  var dropped: Int { get }
}
