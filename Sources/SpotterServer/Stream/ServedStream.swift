import Foundation
import History
import Poses
import RepCounting
import Spotter

/// One client's stream, without its socket: the protocol of `spotter serve` (README, "Serving
/// many streams"). Lines go in, with the history's answers to what the stream asked; event
/// bytes come out, with requests for the server.
///
/// The client sends a pose-file header, then frames, and may ask for the server's counters
/// (`{"cmd":"stats"}`) at any time. Until a header comes, each line is tried as one; the
/// header's own options (`HeaderOptions`) choose the stream's session: one person's, which
/// opens with its id and keeps checkpoints for a resume (`ResumeLedger`), or several people's.
/// The events are the session's, with the stream's own (`session`, `checkpoint`, errors about
/// its lines), and the history's records of its sessions are built from them
/// (`SessionRecords`).
///
/// The stream holds no descriptor and no reference to the daemon. Its bytes it appends to the
/// caller's buffer (`into output:`), whose length is what waits for the client: the output
/// limits are reckoned on it. What it needs of the server it asks in requests (`Request`),
/// which the daemon takes after each call (`nextRequest()`): a checkpoint or a record to store,
/// a resume to claim, the counters to answer with. A stream of one person predicts when the
/// daemon says (`makeDuePrediction`), after the daemon has caught up the network states of
/// every due session together.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class ServedStream {
  /// What a stream needs to know of its server.
  struct Settings {
    /// Frames a stream may have waiting when it is served: the older are late and dropped.
    /// Nil keeps every frame.
    var backlog: Int?
    /// Events waiting for the client beyond this many bytes are dropped.
    var maxPendingOutput: Int
    /// The line length past which a line is skipped (named in its error).
    var maxLineBytes: Int
    /// People followed in a stream whose header does not say.
    var people: Int
    /// Whether the server keeps a history: checkpoints are taken and resumes asked for only then.
    var keepsHistory: Bool
  }

  /// What a stream adds to the server's counters (`stats`).
  struct Tally {
    var frames = 0
    var droppedFrames = 0
    var errors = 0

    mutating func add(_ other: Tally) {
      frames += other.frames
      droppedFrames += other.droppedFrames
      errors += other.errors
    }
  }

  /// The stream's name in its errors and records: `connection 3`.
  let name: String
  let settings: Settings
  /// The key this client must send in its header (a listener that is not loopback), if any.
  private let token: [UInt8]?
  @exclusivity(unchecked) private(set) var tally = Tally()

  /// The stream's session, nil before the header came. One person's predictions the daemon
  /// makes (`makeDuePrediction`); several people's are made in-line.
  @exclusivity(unchecked) private(set) var session: Session?
  /// The header came: frames go to `session`.
  var isOpen: Bool { session != nil }
  @exclusivity(unchecked) private var decoder: PoseLineDecoder?
  @exclusivity(unchecked) private var counters = StreamCounters(droppedFrames: 0, droppedEvents: 0)
  /// The first line that should have been the header and was not, while no header has come.
  @exclusivity(unchecked) private var headerMissingSince: Int?
  /// The exercises the stream's sessions count (a label without one, `other`, starts no
  /// counted set).
  @exclusivity(unchecked) private var catalogue: ExerciseCatalogue?
  @exclusivity(unchecked) private var records = SessionRecords()
  @exclusivity(unchecked) private var ledger = ResumeLedger()

  /// The session's id, for a stream of one person: its first event, the uid its record is
  /// stored under, and what a client resumes it by.
  @exclusivity(unchecked) private(set) var uid: String?
  /// The header asked to resume a session, and the server has not answered yet (`claimed`,
  /// `takeOver`). Nothing is handled meanwhile: the lines that came with the header are held.
  @exclusivity(unchecked) private(set) var awaitingClaim = false
  /// The header asked to resume a session: a session that then counts nothing stores nothing.
  private var askedResume = false
  /// Lines read and not yet handled: those that came while a resume waited for its answer,
  /// and those past a round's share of commands (`commandsPerRound`). Each keeps whether it
  /// was late when read.
  private var heldLines: [(line: HeldLine, number: Int, kind: LineKind, late: Bool)] = []
  /// The first held line not yet handled.
  private var nextHeld = 0
  private enum HeldLine {
    case text([UInt8])
    case tooLong(Int)
  }
  /// The stream asked for the server's counters and waits for them (`answer(stats:into:)`).
  @exclusivity(unchecked) private var awaitingStats = false
  /// Commands answered in the daemon's round (`beginRound`): past `commandsPerRound`, the lines
  /// after wait for the next round, so that a client sending thousands of commands at once
  /// takes no more of a round than its share.
  @exclusivity(unchecked) private var commandsThisRound = 0
  @exclusivity(unchecked) private var round = -1
  static let commandsPerRound = 256
  /// Where the last reply to a command ends in the stream's output: past the output limit,
  /// while replies wait, no more lines are taken.
  @exclusivity(unchecked) private var repliesEnd = 0
  /// The stream is over (its resume was refused, or its session moved to the connection that
  /// resumed it): it takes no more lines, and its connection closes once its output is written.
  @exclusivity(unchecked) private(set) var ended = false
  /// What the stream asks of the server, oldest first.
  private var requests: [Request] = []

  @exclusivity(unchecked) private var out: EventOutput
  /// Events the session dropped on the connections it came from (a session taken over).
  @exclusivity(unchecked) private var eventsDroppedBefore = 0
  /// Output bytes appended so far: a record is stored once the client has read its summary
  /// (`delivered`).
  var bytesAppended: Int { out.bytesAppended }

  /// Why the client is refused (its first line was no header with the token): the daemon sends
  /// this alone and ends the connection, before any frame is read.
  private(set) var refusal: String?

  init(name: String, settings: Settings, token: [UInt8]? = nil) {
    self.name = name
    self.settings = settings
    self.token = token
    out = EventOutput(limit: settings.maxPendingOutput)
  }

  /// The next thing the stream asks of the server, if any.
  func nextRequest() -> Request? {
    requests.isEmpty ? nil : requests.removeFirst()
  }

  /// Whether the stream takes lines, with `pending` bytes of its output not yet written, of the
  /// `written` so far: not while a resume waits for its answer, nor while lines it read wait
  /// (`holdsLines`), nor once it has ended; nor while its output is past the limit with
  /// replies to its commands among it (a client sending commands faster than it reads the
  /// replies is slowed, not answered with silence: replies are never dropped).
  func takesLines(pending: Int, written: Int) -> Bool {
    !awaitingClaim && !ended && nextHeld == heldLines.count
      && (pending < settings.maxPendingOutput || repliesEnd <= written)
  }

  /// Lines read wait to be handled in a later round (`receive` with no new lines handles them).
  var holdsLines: Bool { !awaitingClaim && !ended && nextHeld < heldLines.count }

  /// The stream's lines are handled in the daemon's round `number`: its share of commands
  /// starts again with each new round.
  func beginRound(_ number: Int) {
    guard number != round else { return }
    round = number
    commandsThisRound = 0
  }

  // MARK: lines

  /// Handles the lines held while a resume waited (once the history has answered), then the
  /// waiting lines, from the first not yet handled. When more frames wait than the `backlog`,
  /// the older ones are late and dropped: the newest poses win, so a server that fell behind
  /// catches up instead of queueing without bound. A server that keeps up drops nothing,
  /// however fast a client sends.
  ///
  /// - Parameter runtime: the server's, for a session the header starts.
  /// - Returns: false when it stopped after asking for the server's counters (`.stats`): the
  ///   daemon answers, then calls again to go on. True when every line is handled.
  func receive(_ waiting: WaitingLines, runtime: Runtime, into output: inout [UInt8]) -> Bool {
    precondition(!awaitingStats, "ServedStream: the stats it asked for were not answered")
    while !awaitingClaim, !ended, refusal == nil, nextHeld < heldLines.count,
      commandsThisRound < Self.commandsPerRound
    {
      let (line, number, kind, late) = heldLines[nextHeld]
      nextHeld += 1
      switch line {
      case .text(let bytes):
        bytes.withUnsafeBufferPointer {
          guard !refuses(.text($0), kind: kind) else { return }
          handle($0, number: number, kind: kind, late: late, waiting, runtime, &output)
        }
      case .tooLong(let length):
        guard !refuses(.tooLong(length: length), kind: kind) else { break }
        skipTooLong(length, number: number, into: &output)
      }
      if awaitingStats { return false }
    }
    if nextHeld > 0, nextHeld == heldLines.count {
      heldLines = []
      nextHeld = 0
    }
    guard !waiting.isEmpty else { return true }
    if !waiting.isStarted { waiting.keepFrom = firstKept(of: waiting) }
    while !waiting.isHandled, refusal == nil, !ended {
      let index = waiting.next
      waiting.next += 1
      let (line, number, kind) = waiting.lines[index]
      if awaitingClaim || nextHeld < heldLines.count || commandsThisRound >= Self.commandsPerRound {
        // The header asked to resume, or the round's share of commands is spent: the lines
        // after wait, in order, for the answer or the next round.
        let late = !awaitingClaim && index < waiting.keepFrom
        switch line {
        case .text(let text): heldLines.append((.text(Array(text)), number, kind, late))
        case .tooLong(let length): heldLines.append((.tooLong(length), number, kind, late))
        }
        continue
      }
      if refuses(line, kind: kind) { break }
      switch line {
      case .text(let text):
        handle(
          text, number: number, kind: kind, late: index < waiting.keepFrom, waiting, runtime,
          &output)
      case .tooLong(let length): skipTooLong(length, number: number, into: &output)
      }
      if awaitingStats { return false }
    }
    return true
  }

  /// Whether the client is refused at `line`: a line before the header, on a listener that asks
  /// for the token, without it (`refusal` says why).
  private func refuses(_ line: LineSplitter.Line, kind: LineKind) -> Bool {
    guard let token, !isOpen, kind != .blank else { return false }
    refusal = HeaderToken.refusal(of: line, token: token)
    return refusal != nil
  }

  /// The index of the first frame line kept of those waiting: the newest `backlog` frames. A
  /// resumed stream's resent frames are not late: all are kept until it has caught up (a
  /// round with no more than the backlog waiting, a second or more after they began).
  private func firstKept(of waiting: WaitingLines) -> Int {
    guard let backlog = settings.backlog else { return 0 }
    var framesSeen = 0
    var keepFrom = Int.max
    for index in stride(from: waiting.lines.count - 1, through: 0, by: -1)
    where waiting.lines[index].kind == .frame {
      framesSeen += 1
      if framesSeen <= backlog { keepFrom = index }
    }
    if ledger.replaying {
      if framesSeen > 0, ledger.replayBegan == nil { ledger.replayBegan = waiting.readAt }
      if framesSeen <= backlog, let began = ledger.replayBegan,
        waiting.readAt - began >= ResumeLedger.replaySeconds
      {
        ledger.replaying = false
      }
      keepFrom = 0
    }
    return keepFrom
  }

  /// The server's counters, as asked: the reply goes where the command was.
  func answer(stats line: String, into output: inout [UInt8]) {
    precondition(awaitingStats, "ServedStream: stats it did not ask for")
    awaitingStats = false
    write(line, into: &output)
    repliesEnd = out.bytesAppended
  }

  /// A line over the limit: named in an error, and skipped.
  private func skipTooLong(_ length: Int, number: Int, into output: inout [UInt8]) {
    // Counted in the clock, as the file reader does: frames without `t` keep their times.
    decoder?.skipLine()
    if !isOpen { headerMissingSince = headerMissingSince ?? number }
    reportBadLine(
      PoseFileError(
        file: name, line: number,
        message:
          "line is \(length) bytes long; the limit is \(settings.maxLineBytes) bytes, so it was "
          + "skipped"), into: &output)
  }

  /// One whole line: a stats command, the header, or a frame (dropped if `late`).
  private func handle(
    _ line: UnsafeBufferPointer<UInt8>, number: Int, kind: LineKind, late: Bool,
    _ waiting: WaitingLines, _ runtime: Runtime, _ output: inout [UInt8]
  ) {
    if kind == .blank { return }
    if kind == .statsCommand {
      commandsThisRound += 1
      awaitingStats = true
      requests.append(.stats)
      return
    }
    guard let session, decoder != nil else {
      startSession(line, number: number, kind: kind, runtime: runtime, into: &output)
      return
    }
    if late && kind == .frame {
      // Dropped, but counted in the clock: frames without `t` after it keep their times.
      decoder!.skipLine()
      counters.droppedFrames! += 1
      tally.droppedFrames += 1
      return
    }
    switch decoder!.decode(line, line: number, into: &waiting.frame) {  // in place: it keeps state
    case .frame:
      let t = waiting.frame.t
      if ledger.resendFrom != nil, !takeResent(t, into: &output) { return }
      tally.frames += 1
      session.push(waiting.frame) { send($1, person: $0, into: &output) }
      afterSession()
      ledger.counted(frameAt: t)
      if uid != nil && ledger.checkpointDue(at: t) {
        // With no counted set under way, the resume point follows the stream, the backfill
        // horizon behind it (a set recognised later may count reps from that far back).
        if !ledger.countedSetUnderWay {
          moveResumePoint(to: t - session.runtime.options.historySeconds)
        }
        checkpoint(at: t)
      }
    case .skipped(let error): reportBadLine(error, into: &output)
    case .end: break
    }
  }

  /// Reports a line that was skipped with an `error` event; the summary's `bad_lines` counts
  /// it.
  private func reportBadLine(_ error: PoseFileError, into output: inout [UInt8]) {
    tally.errors += 1
    if let session {
      session.reportBadLine(error) { send($1, person: $0, into: &output) }
    } else {
      counters.badLines += 1
      send(.error(t: nil, line: error.line, message: error.description), into: &output)
    }
  }

  // MARK: the session

  /// Starts the session from a header line. Until a header comes, each line is tried as one;
  /// a line that is not one is skipped with an error naming it, which says what is wrong with
  /// it as a header, or, for a frame after the first such line, that the stream has no header.
  private func startSession(
    _ line: UnsafeBufferPointer<UInt8>, number: Int, kind: LineKind, runtime server: Runtime,
    into output: inout [UInt8]
  ) {
    var header: PoseFileHeader
    do {
      header = try PoseFileHeader(line: line, file: name)
    } catch {
      let message =
        if let first = headerMissingSince, kind == .frame {
          "the stream has no header (line \(first) was not one), so this frame was skipped; "
            + "send a pose-file header such as "
        } else if kind == .frame {
          "the stream starts with a frame, so it was skipped; the first line must be a "
            + "pose-file header such as "
        } else {
          "\(error.message); the first line must be a pose-file header such as "
        }
      headerMissingSince = headerMissingSince ?? number
      reportBadLine(
        PoseFileError(file: name, line: number, message: message + PoseFileHeader.example),
        into: &output)
      return
    }
    let options = HeaderOptions(taking: &header)
    decoder = PoseLineDecoder(header: header, name: name)
    for problem in options.problems { tell(t: nil, line: number, problem, into: &output) }
    records.name(options.person)
    let runtime = options.runtime(from: server)
    let exercise = options.exercise(in: runtime.catalogue)
    if let problem = exercise.problem { tell(t: nil, line: number, problem, into: &output) }
    let count = options.people ?? settings.people
    catalogue = runtime.catalogue
    session =
      exercise.exercise.map { runtime.makeSession(counting: $0, people: count) }
      ?? runtime.makeSession(people: count, batchingPredictions: count == 1)
    guard count == 1 else {
      if options.resume != nil {
        tell(
          t: nil, line: number,
          "header \"resume\": a stream of several people cannot be resumed; the "
            + "stream goes on as a new one", into: &output)
      }
      return
    }
    records.startOne(source: "spotter serve, \(name)")
    let uid = UUID().uuidString.lowercased()
    self.uid = uid
    if let resume = options.resume {
      // The session event comes with the answer. The frames that come meanwhile are all
      // counted, however many wait when it comes (none is late until the stream has caught up).
      askedResume = true
      awaitingClaim = true
      ledger.replaying = true
      requests.append(.claim(id: resume, resumer: uid))
      return
    }
    write(sessionLine(), into: &output)
    requests.append(.live(uid: uid))
  }

  /// Whether the session has a prediction due (one person's): the daemon makes it with
  /// `makeDuePrediction`, after catching up its network state with the other due sessions'.
  var predictionDue: Bool { session?.predictionDue == true }

  /// Makes the session's due prediction; its events join the output.
  func makeDuePrediction(into output: inout [UInt8]) {
    session?.makeDuePrediction { send($0, into: &output) }
    afterSession()
  }

  /// Ends the session (if any): the exercise under way, the summary to the client, and its
  /// record held for the history until the client has read it (`delivered`).
  func finish(into output: inout [UInt8]) {
    guard let session, !awaitingClaim else { return }
    if ledger.resumed != nil, let set = ledger.endBeforeResent() {
      // Resumed, and ended before a frame after the checkpoint came: the set then under way
      // keeps the checkpoint's reps.
      session.carry([set])
      records.add(set)
    }
    out.finishing = true
    counters.droppedEvents = eventsDroppedBefore + out.droppedEvents
    session.finish(emit: { send($1, person: $0, into: &output) }, counters: counters)
    out.finishing = false
    if let record = records.endOne(), !(askedResume && isEmpty(record)) {
      records.hold(record, uid: uid!, end: bytesAppended)
    }
    self.session = nil
  }

  /// A stream that asked to resume and counted nothing of its own nor carried anything stores
  /// no record: a resume that could not be honoured leaves nothing empty behind.
  private func isEmpty(_ record: SessionRecord) -> Bool {
    record.sets.isEmpty && !ledger.lastCounted.isFinite
  }

  /// The client has read the first `written` bytes of the stream's output: the records whose
  /// summaries are among them are stored (`.record`), and with `closing` (the connection is
  /// gone), the rest, as not delivered.
  func delivered(_ written: Int, closing: Bool = false) {
    guard records.holdsRecords else { return }
    records.deliver(written: written, closing: closing) {
      requests.append(.record($0, uid: $1))
    }
  }

  // MARK: resuming

  /// The stream's first event: `{"type":"session","session":"<id>"}`, and for a resumed one
  /// the session it goes on from and the time after which the client resends its frames.
  private func sessionLine() -> String {
    var line = "{\"type\":\"session\",\"session\":\(JSONText.quote(uid ?? ""))"
    if let resumed = ledger.resumed {
      line +=
        ",\"resumed\":\(JSONText.quote(resumed.uid)),\"resend_from\":"
        + ResumeLedger.written(resumed.t)
    }
    return line + "}"
  }

  /// The history's answer to the header's `resume` (nil: the server keeps no history, and the
  /// session is not live on it): the session goes on from the checkpoint, or (with an `error`
  /// saying why) as a new one; a session resumed already or ended is not resumed twice: the
  /// stream ends with an `error` (`ended`), with no session. The lines that came meanwhile
  /// are handled at the next `receive`. No error quotes the id: it is the session's key.
  func claimed(
    _ answer: Result<Checkpoint.Claim, HistoryError>?, into output: inout [UInt8]
  ) {
    awaitingClaim = false
    var problem: String?
    switch answer {
    case .success(.resumed(let checkpoint)):
      let rate = session?.tickClock.rate ?? 30
      ledger.resume(from: checkpoint, rate: rate)
      session?.startClock(at: checkpoint.t + 1 / rate)
      session?.carry(checkpoint.record.sets)
      records.continueOne(from: checkpoint.record)
    case .success(.resumedAlready):
      return end(
        "header \"resume\": that session was resumed already, by another stream; a session is "
          + "resumed once (resume the newest id you were given), so this stream ends",
        into: &output)
    case .success(.finished):
      return end(
        "header \"resume\": that session has ended and is stored; start a new stream without "
          + "\"resume\", so this stream ends", into: &output)
    case .success(.unknown):
      problem = "there is no such session to resume (expected an id from a \"session\" event)"
    case .failure(let error):
      problem = "the history could not be asked for the session to resume (\(error))"
    case nil:
      problem = "this server keeps no history and the session is not live on it"
    }
    write(sessionLine(), into: &output)
    if let uid { requests.append(.live(uid: uid)) }
    if let problem {
      tell(
        t: nil, line: nil,
        "header \"resume\": " + problem + "; the stream goes on as a new session",
        into: &output)
    }
  }

  /// Ends the stream, with no session, telling the client why.
  private func end(_ message: String, into output: inout [UInt8]) {
    (session, uid, records) = (nil, nil, SessionRecords())
    (heldLines, nextHeld, ended) = ([], 0, true)
    tell(t: nil, line: nil, message, into: &output)
  }

  // MARK: taking a live session over

  /// A session of one person under way, moving from the connection it was on to the one whose
  /// client reconnected (README, "Resuming a session").
  struct LiveSession {
    let uid: String
    fileprivate let session: Session
    fileprivate let catalogue: ExerciseCatalogue?
    fileprivate let records: SessionRecords
    fileprivate let ledger: ResumeLedger
    fileprivate let counters: StreamCounters
    fileprivate let droppedEvents: Int
  }

  /// Whether another connection may take the stream's session over: one person's, under way.
  var isLive: Bool { uid != nil && session != nil && !awaitingClaim && !ended }

  /// Gives the live session up to the connection that resumed it: the client here is told,
  /// and the stream ends (`ended`). Nil when it is not live.
  func handOver(into output: inout [UInt8]) -> LiveSession? {
    guard isLive, let session, let uid else { return nil }
    let live = LiveSession(
      uid: uid, session: session, catalogue: catalogue, records: records, ledger: ledger,
      counters: counters, droppedEvents: eventsDroppedBefore + out.droppedEvents)
    ledger = ResumeLedger()
    end(
      "the session was resumed on another connection and goes on there; this connection closes",
      into: &output)
    return live
  }

  /// Goes on with a live session from another connection, in place of the one this stream's
  /// header started: its id, sets, reps and state are the live session's. The client resends
  /// the frames after `resend_from` (the last resume point it was told; absent when it was
  /// told none: it resends all it kept), and those up to the last counted are skipped.
  func takeOver(_ live: LiveSession, into output: inout [UInt8]) {
    awaitingClaim = false
    (session, catalogue, records, ledger) = (
      live.session, live.catalogue, live.records, live.ledger
    )
    (uid, counters, eventsDroppedBefore) = (live.uid, live.counters, live.droppedEvents)
    let from = ledger.takeOver(keepsHistory: settings.keepsHistory)
    var line = "{\"type\":\"session\",\"session\":\(JSONText.quote(live.uid))"
    line += ",\"resumed\":\(JSONText.quote(live.uid))"
    if let from { line += ",\"resend_from\":" + ResumeLedger.written(from) }
    write(line + "}", into: &output)
  }

  /// Whether a frame after a resume is counted (`ResumeLedger.takeResent`). When the client
  /// did not resend the frames after the checkpoint, the set then under way keeps the
  /// checkpoint's reps, and the client is told.
  private func takeResent(_ t: Double, into output: inout [UInt8]) -> Bool {
    switch ledger.takeResent(t, tickRate: session?.tickClock.rate ?? 30) {
    case .skipped: return false
    case .counted: return true
    case .notResent(let set, let from):
      session?.carry([set])
      records.add(set)
      tell(
        t: t, line: nil,
        "frames after \(ResumeLedger.written(from)) s were not resent: the "
          + "\(set.exercise) set under way keeps the \(set.count) reps of its checkpoint, and "
          + "counting goes on from here", into: &output)
      return ledger.resendFrom == nil
    }
  }

  /// Moves the resume point forward, up to `t` (`ResumeLedger.moveResumePoint`).
  private func moveResumePoint(to t: Double) {
    guard let session else { return }
    let clock = session.tickClock
    ledger.moveResumePoint(to: t, rate: clock.rate, predictionStride: clock.predictionStride)
  }

  /// Asks the history to keep the session's progress: the resume point, the set under way,
  /// and the finished sets it has not yet stored (`ResumeLedger.setsStored`).
  private func checkpoint(at t: Double) {
    guard let uid, let recorder = records.one, settings.keepsHistory else { return }
    ledger.checkpointTaken(at: t)
    var record = recorder.record
    let firstSet = min(ledger.setsStored, record.sets.count)
    record.sets = Array(record.sets[firstSet...])
    requests.append(
      .checkpoint(
        Checkpoint(
          uid: uid, t: ledger.resumePoint, record: record, underWay: recorder.underWay,
          firstSet: firstSet)))
  }

  /// A checkpoint was stored (`stored`'s time and sets): the client need not keep the frames
  /// before its time, and the next checkpoint carries only the sets after its.
  func checkpointStored(_ stored: Checkpoint, into output: inout [UInt8]) {
    let t = stored.t
    guard isOpen, ledger.tell(stored: t, setsThrough: stored.setsThrough) else { return }
    write("{\"type\":\"checkpoint\",\"resend_from\":\(ResumeLedger.written(t))}", into: &output)
  }

  /// What waits for the session to return from a call: a set that ended moves the resume
  /// point, and is checkpointed.
  private func afterSession() {
    guard let t = ledger.setEndedAt else { return }
    ledger.setEndedAt = nil
    moveResumePoint(to: t)
    checkpoint(at: t)
  }

  // MARK: events

  /// An event of a stream of one person (or the stream's own): to the client, to the
  /// session's record, and to the resume ledger.
  func send(_ event: SpotterEvent, into output: inout [UInt8]) {
    records.take(event)
    out.append(event, person: nil, to: &output)
    guard uid != nil else { return }
    switch event {
    case .exerciseStarted(_, let exercise, _):
      ledger.countedSetUnderWay = catalogue?.definition(forLabel: exercise) != nil
    case .rep(let t, _, _, _):
      checkpoint(at: t)
    case .exerciseEnded(let t, _, _):
      // The session is busy emitting: the resume point moves once it has returned.
      ledger.countedSetUnderWay = false
      ledger.setEndedAt = t
    default: break
    }
  }

  /// An event of one person in a stream of several (nil: the stream's own, a bad line). Each
  /// person is a session of the history, held for it when their summary comes: when they
  /// leave, or when the stream ends.
  private func send(_ event: SpotterEvent, person id: Int?, into output: inout [UInt8]) {
    guard let id else { return send(event, into: &output) }
    out.append(event, person: id, to: &output)
    if let record = records.take(event, person: id, stream: name) {
      records.hold(record, uid: UUID().uuidString.lowercased(), end: bytesAppended)
    }
  }

  /// Tells the client what went wrong with its stream in an `error` event (which goes on), and
  /// counts it in the server's errors.
  private func tell(t: Double?, line: Int?, _ message: String, into output: inout [UInt8]) {
    tally.errors += 1
    send(.error(t: t, line: line, message: message), into: &output)
  }

  /// A reply or a line of the stream's own (`session`, `checkpoint`): never dropped
  /// (`takesLines` bounds how many wait).
  private func write(_ line: String, into output: inout [UInt8]) {
    out.write(line, to: &output)
  }
}
