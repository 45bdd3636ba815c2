/// Speaks into a WAV file, on the stream's clock: each utterance at the stream time a live
/// speaker would have said it, silence between (`StreamTimeline`).
///
/// The file is a soundtrack of the stream: second s of the WAV is second s after the stream's
/// first frame, so an app can play it under a video of the workout, and a test can see when
/// each thing was said and that nothing overlaps. It runs to the stream's last frame, or past
/// it while the last utterance is still being said.
public final class WAVSpeaker: CueSpeaker {
  public let path: String
  private let synthesizer: any Synthesizer
  private let writer: WAVWriter
  private var timeline: StreamTimeline
  /// The stream time of the WAV's first sample: the first time heard.
  private var origin: Double?
  private var failure: (any Error)?
  public private(set) var said = 0

  /// Creates the file at `path` at once, so a path that cannot be written fails before the
  /// stream starts.
  ///
  /// - Throws: `WAVError.cannotWrite`.
  public init(path: String, synthesizer: any Synthesizer, policy: SpeechPolicy = SpeechPolicy())
    throws
  {
    self.path = path
    self.synthesizer = synthesizer
    writer = try WAVWriter(path: path, format: synthesizer.format)
    timeline = StreamTimeline(policy: policy)
  }

  public var dropped: Int { timeline.queue.dropped }
  /// Seconds written so far (all of them after `finish()`).
  public var duration: Double { writer.duration }

  public func advance(to t: Double) {
    guard failure == nil else { return }
    if origin == nil { origin = t }
    do { try timeline.advance(to: t, say: place) } catch { failure = error }
  }

  public func hear(_ event: SpeechEvent) {
    guard failure == nil else { return }
    if origin == nil { origin = event.t }
    do { try timeline.hear(event, say: place) } catch { failure = error }
  }

  /// Says what is pending, pads the file with silence to the stream's end, and closes it.
  public func finish() throws {
    if failure == nil {
      do {
        let end = try timeline.finish(say: place)
        try writer.padSilence(to: try frame(at: end))
      } catch {
        failure = error
      }
    }
    try writer.close()
    if let failure { throw failure }
  }

  /// Writes `utterance` at `start` (silence up to it) and returns how long it lasts.
  private func place(_ utterance: Utterance, at start: Double) throws -> Double {
    let audio = try synthesizer.synthesize(utterance.text)
    try writer.padSilence(to: try frame(at: start))
    try writer.append(audio)
    said += 1
    return audio.duration
  }

  /// The WAV frame at stream time `t`: whole frames, so rounding never makes two utterances
  /// overlap (the later one starts where the earlier ended at the latest).
  ///
  /// - Throws: `WAVError.tooLong` for a time past what a WAV file holds (a stream whose times
  ///   jump by days).
  private func frame(at t: Double) throws -> Int {
    guard let origin, t.isFinite else { return writer.frames }
    let format = writer.format
    let frame = ((t - origin) * Double(format.sampleRate)).rounded()
    let bytes = frame * Double(format.bytesPerFrame)
    guard bytes <= Double(WAVFile.maximumDataBytes) else {
      throw WAVError.tooLong(bytes: bytes < 0x1p62 ? Int(bytes) : Int(0x1p62))
    }
    return Int(frame)
  }
}
