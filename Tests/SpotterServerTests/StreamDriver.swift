import History
import Poses
import Spotter

@testable import SpotterServer

/// Drives a served stream in-process the way the daemon does, with no socket: bytes in, split
/// into chunks anywhere; each request answered as it comes (stats at once, a claim when the
/// test says, checkpoints reported stored after the round); due predictions made through a
/// `PredictionBatch`; the output read by the client as soon as it is written (unless
/// `reads` is off). Keeps what the client read and what the history was asked to store.
final class StreamDriver {
  let stream: ServedStream
  let runtime: Runtime
  private let splitter: LineSplitter
  private let lines = WaitingLines()
  /// Bytes the stream wrote and the client has not read.
  var output: [UInt8] = []
  /// Bytes the client read.
  private(set) var received: [UInt8] = []
  /// The checkpoints as the history keeps them: each with every finished set so far.
  private(set) var checkpoints: [Checkpoint] = []
  /// The checkpoints as the stream sent them: each with the sets not yet stored.
  private(set) var sentCheckpoints: [Checkpoint] = []
  /// Checkpoints the history stored and has not yet told the stream of.
  private var stored: [Checkpoint] = []
  private(set) var records: [(record: SessionRecord, uid: String)] = []
  /// The sessions the stream asked to resume, in order.
  private(set) var claims: [(id: String, resumer: String)] = []
  private(set) var statsAnswered = 0
  /// Rounds after which the stream still held lines for the next.
  private(set) var heldRounds = 0
  private var rounds = 0
  /// Whether the client reads what the stream writes (a slow reader reads nothing).
  var reads = true
  /// Whether checkpoints are reported stored after each round.
  var storesCheckpoints = true
  private var batch = PredictionBatch()

  init(
    runtime: Runtime, settings: ServedStream.Settings = StreamDriver.settings(),
    token: [UInt8]? = nil
  ) {
    self.runtime = runtime
    stream = ServedStream(name: "connection 1", settings: settings, token: token)
    splitter = LineSplitter(maxLineLength: settings.maxLineBytes)
  }

  /// A daemon's defaults with a history, and every frame kept (no backlog).
  static func settings(
    backlog: Int? = nil, maxPendingOutput: Int = 1 << 20, maxLineBytes: Int = 64 * 1024,
    people: Int = 1, keepsHistory: Bool = true
  ) -> ServedStream.Settings {
    ServedStream.Settings(
      backlog: backlog, maxPendingOutput: maxPendingOutput, maxLineBytes: maxLineBytes,
      people: people, keepsHistory: keepsHistory)
  }

  /// Sends `bytes` in chunks of `chunk` bytes (the last may be shorter), each a round: read,
  /// handled, predictions made, checkpoints told, output read.
  func send(_ bytes: [UInt8], chunk: Int) {
    var offset = 0
    while offset < bytes.count {
      let end = min(bytes.count, offset + chunk)
      bytes[offset..<end].withUnsafeBytes { splitter.append($0) }
      lines.take(from: splitter)
      round()
      offset = end
    }
  }

  func send(_ text: String, chunk: Int = .max) { send(Array(text.utf8), chunk: chunk) }

  /// The client closed its side: its last line (without a newline) is read, the session
  /// finished, and the connection closed once its output is read.
  func end() {
    splitter.finish()
    lines.take(from: splitter)
    round()
    stream.finish(into: &output)
    apply()
    read()
    stream.delivered(received.count, closing: true)
    apply()
  }

  /// The history answers the claim the stream asked for; the lines it held are handled.
  func answerClaim(_ answer: Result<Checkpoint.Claim, HistoryError>) {
    precondition(!claims.isEmpty, "StreamDriver: the stream asked for no claim")
    stream.claimed(answer, into: &output)
    apply()
    round()
  }

  /// As the daemon does when this stream's claim names a session live on `owner`: the live
  /// session moves here (the history is one: this driver keeps `owner`'s checkpoints), and
  /// the lines this stream held are handled. False when `owner` had no live session.
  func takeOver(from owner: StreamDriver) -> Bool {
    precondition(!claims.isEmpty, "StreamDriver: the stream asked for no claim")
    guard let live = owner.stream.handOver(into: &owner.output) else { return false }
    owner.apply()
    owner.read()
    checkpoints = owner.checkpoints
    stream.takeOver(live, into: &output)
    apply()
    round()
    return true
  }

  /// One round of the daemon's for this stream, and the rounds after it that handle the lines
  /// it held (past its share of commands, or while a resume was answered).
  private func round() {
    repeat {
      rounds += 1
      stream.beginRound(rounds)
      var handled = false
      while !handled {
        handled = stream.receive(lines, runtime: runtime, into: &output)
        apply()
      }
      lines.clear()
      heldRounds += stream.holdsLines ? 1 : 0
    } while stream.holdsLines
    splitter.release()
    if storesCheckpoints {
      for checkpoint in stored { stream.checkpointStored(checkpoint, into: &output) }
    }
    stored.removeAll(keepingCapacity: true)
    while stream.predictionDue {
      batch.add(stream.session!)
      batch.catchUp()
      stream.makeDuePrediction(into: &output)
      apply()
    }
    read()
  }

  private func apply() {
    while let request = stream.nextRequest() {
      switch request {
      case .stats:
        statsAnswered += 1
        stream.answer(stats: #"{"type":"stats","answer":\#(statsAnswered)}"#, into: &output)
      case .claim(let id, let resumer):
        claims.append((id, resumer))
        // As the daemon: with no history (and no live session), answered at once.
        if !stream.settings.keepsHistory { stream.claimed(nil, into: &output) }
      case .live: break
      case .checkpoint(let checkpoint):
        sentCheckpoints.append(checkpoint)
        stored.append(checkpoint)
        var kept = checkpoint
        let earlier = checkpoints.last?.record.sets ?? []
        kept.record.sets = Array(earlier.prefix(checkpoint.firstSet)) + checkpoint.record.sets
        kept.firstSet = 0
        checkpoints.append(kept)
      case .record(let record, let uid): records.append((record, uid))
      }
    }
  }

  /// The client reads everything written; records whose summaries it read are stored.
  private func read() {
    guard reads else { return }
    received += output
    output.removeAll(keepingCapacity: true)
    stream.delivered(received.count)
    apply()
  }

  /// The lines the client read, with the session's id as `<uid>`.
  var receivedLines: [String] {
    var text = String(decoding: received, as: UTF8.self)
    if let uid = stream.uid { text = text.replacingOccurrences(of: uid, with: "<uid>") }
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
      String.init)
  }

  /// The lines read without the stream's own about the session (`session`, `checkpoint`).
  var eventLines: [String] {
    receivedLines.filter {
      !$0.hasPrefix(#"{"type":"session","#) && !$0.hasPrefix(#"{"type":"checkpoint","#)
    }
  }
}
