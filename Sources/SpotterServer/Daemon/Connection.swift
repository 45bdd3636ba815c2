import Foundation
import History
import Poses
import RepCounting
import Spotter

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One client of the daemon: its bytes in and out, and its session once the header came.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
final class Connection {
  let descriptor: FileDescriptor
  let name: String
  /// The connection's number since the daemon started: which connection a history reply is
  /// for (a descriptor is reused once closed).
  let serial: Int
  /// Unchecked: the daemon owns its connections and outlives them, and a checked `unowned`
  /// reference pays a reference count on every use, several times a frame.
  unowned(unsafe) let daemon: Daemon
  @exclusivity(unchecked) var lastActivity: Double
  /// The client closed its side: no more lines will come; the events still go out.
  @exclusivity(unchecked) private(set) var inputEnded = false
  /// The socket failed (or the client is gone): nothing more can be sent.
  @exclusivity(unchecked) var closed = false
  /// Received bytes, split into lines (a line over the limit comes out as too long).
  private let lines: LineSplitter
  /// The waiting lines and the decoded frame, shared with the daemon's other connections.
  private let scratch: Scratch
  /// Events not yet written: appended as they come, written once a round (`flush`).
  @exclusivity(unchecked) private var output: [UInt8] = []
  /// Whether `output` holds bytes, kept beside the flags the daemon reads each round: asking
  /// the array would touch its buffer, cold in a connection with nothing to send.
  @exclusivity(unchecked) private(set) var hasOutput = false
  /// Queued with the daemon: for the round's batch of predictions, and for a write at the end
  /// of the round.
  @exclusivity(unchecked) var queuedForPrediction = false
  @exclusivity(unchecked) var queuedForFlush = false
  /// What the poller waits for on this connection: lines, and room to write.
  @exclusivity(unchecked) var interest = (read: true, write: false)
  /// The stream's session, nil before the header came. One person's predictions the daemon
  /// makes at the end of a round; several people's (`"people": N` above 1) are made in-line.
  @exclusivity(unchecked) private(set) var session: Session?
  /// The header came: frames go to `session`.
  var isOpen: Bool { session != nil }
  @exclusivity(unchecked) private var decoder: PoseLineDecoder?
  @exclusivity(unchecked) private var counters = StreamCounters(droppedFrames: 0, droppedEvents: 0)
  /// The session's sets and reps for the history, from the events sent; in a stream of
  /// several people, a record each (`personRecorders`), stored when their summary is sent.
  @exclusivity(unchecked) private var recorder: SessionRecorder?
  @exclusivity(unchecked) private var personRecorders: [(id: Int, recorder: SessionRecorder)] = []
  /// Who the header says the stream is (its `person` or `client`), for the history.
  @exclusivity(unchecked) private var streamPerson: String?
  /// The first line that should have been the header and was not, while no header has come.
  @exclusivity(unchecked) private var headerMissingSince: Int?
  /// The exercises the stream's sessions count (a label without one, `other`, starts no
  /// counted set).
  @exclusivity(unchecked) private var catalogue: ExerciseCatalogue?

  /// The session's id, for a stream of one person: its first event, the uid its record is
  /// stored under, and what a client resumes it by.
  @exclusivity(unchecked) private(set) var uid: String?
  /// Resuming (README, "Resuming a session"): the header asked to resume a session, and the
  /// history has not answered yet. Nothing is read meanwhile; the lines that came with the
  /// header wait in `heldLines`.
  @exclusivity(unchecked) private(set) var awaitingClaim = false
  private var heldLines: [(line: HeldLine, number: Int, kind: LineKind)] = []
  enum HeldLine {
    case text([UInt8])
    case tooLong(Int)
  }
  /// The checkpoint resumed, until the first frame after it shows whether the client resent
  /// the frames after its `t`.
  private var resumed: Checkpoint?
  /// Frames up to this time were counted before the resume: resent ones are skipped.
  @exclusivity(unchecked) private var resendFrom: Double?
  /// The client is resending the frames after a resume: none is dropped as late until a
  /// round finds no more than the backlog waiting.
  @exclusivity(unchecked) private var replaying = false
  /// Checkpoints: the stream time a resumed session would count on from (behind every set
  /// under way, and the backfill horizon behind the stream while none is), when the last was
  /// taken, what the client was last told, and whether a counted set is under way.
  @exclusivity(unchecked) private var resumePoint = 0.0
  @exclusivity(unchecked) private var lastCheckpoint = -Double.infinity
  @exclusivity(unchecked) private var resumePointTold = -Double.infinity
  @exclusivity(unchecked) private var countedSetUnderWay = false
  /// A set ended during the session's last call: the resume point moves there, and a checkpoint
  /// is taken, once the call has returned (`afterSession`).
  @exclusivity(unchecked) private var setEndedAt: Double?
  /// The time of the first frame this session counted (ticks are reckoned from it).
  @exclusivity(unchecked) private var firstFrame: Double?
  /// Output bytes so far, appended and written: a record is stored once its summary's bytes
  /// are written (`summary_delivered`), or when the connection closes without them.
  @exclusivity(unchecked) private var bytesAppended = 0
  @exclusivity(unchecked) private var bytesWritten = 0
  private var undelivered: [(end: Int, uid: String, record: SessionRecord)] = []
  /// The session is being finished: its last events are never dropped.
  @exclusivity(unchecked) private var finishing = false

  /// The key this client must send in its header (a listener that is not loopback), if any.
  private let token: [UInt8]?
  /// Why the client is refused (its first line was no header with the token): the daemon sends
  /// this alone and ends the connection, before any frame is read.
  private(set) var refusal: String?

  init(
    descriptor: FileDescriptor, serial: Int, now: Double, maxLine: Int, daemon: Daemon,
    scratch: Scratch, token: [UInt8]? = nil
  ) {
    self.token = token
    self.descriptor = descriptor
    self.serial = serial
    self.name = "connection \(serial)"
    self.daemon = daemon
    self.scratch = scratch
    lastActivity = now
    lines = LineSplitter(maxLineLength: maxLine)
    output.reserveCapacity(4096)
  }

  /// What a connection holds only while it handles what it read: the whole lines not yet
  /// handled (with their numbers and kinds, pointing into its `lines` until released), and
  /// the frame decoded from one. Connections are served one at a time, and each handles all
  /// it read before the next is served, so the daemon's connections share one: buffers that
  /// stay in cache, not a cold pair for every connection and frame.
  ///
  /// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
  final class Scratch {
    @exclusivity(unchecked) var waiting: [(line: LineSplitter.Line, number: Int, kind: LineKind)] =
      []
    @exclusivity(unchecked) var frame = PeopleFrame()

    init() { waiting.reserveCapacity(64) }
  }

  /// Reads what the socket has, up to four reads a round, so one fast sender cannot hold the
  /// loop (poll reports the rest next round); then handles the whole lines. A read that does
  /// not fill the space offered took everything there was: the socket is not asked again in
  /// this round only to say it is empty.
  func receive(now: Double) {
    guard wantsInput else { return }
    for _ in 0..<4 {
      do {
        var result = FileDescriptor.ReadResult.wouldBlock
        var offered = 0
        try lines.fill { free in
          offered = free.count
          result = try descriptor.read(into: free)
          if case .bytes(let count) = result { return count }
          return 0
        }
        guard case .bytes(let count) = result else {
          if result == .end { endInput() }
          break
        }
        lastActivity = now
        takeLines()
        if count < offered { break }
      } catch {
        closed = true
        break
      }
    }
    processPending()
  }

  /// The client closed its side: a last line without its newline still counts, and one too
  /// long is still named.
  private func endInput() {
    lines.finish()
    takeLines()
    inputEnded = true
  }

  private func takeLines() {
    while let line = lines.next() {
      let kind: LineKind
      if case .text(let text) = line { kind = LineKind(text) } else { kind = .other }
      scratch.waiting.append((line, lines.lineNumber, kind))
    }
  }

  /// Handles the waiting lines. When more frames wait than the daemon's `backlog`, the older
  /// ones are late and dropped: the newest poses win, so a server that fell behind catches up
  /// instead of queueing without bound. A server that keeps up drops nothing, however fast a
  /// client sends.
  func processPending() {
    guard !scratch.waiting.isEmpty else { return }
    var keepFrom = 0  // the index of the first frame line kept
    if let backlog = daemon.configuration.backlog {
      var framesSeen = 0
      keepFrom = Int.max
      for index in stride(from: scratch.waiting.count - 1, through: 0, by: -1)
      where scratch.waiting[index].kind == .frame {
        framesSeen += 1
        if framesSeen <= backlog { keepFrom = index }
      }
      // A resumed stream's resent frames are not late: all are kept until it has caught up.
      if replaying {
        if framesSeen <= backlog { replaying = false }
        keepFrom = 0
      }
    }
    for index in scratch.waiting.indices where refusal == nil {
      let (line, number, kind) = scratch.waiting[index]
      if awaitingClaim {
        // The header asked to resume: the lines after it wait for the history's answer.
        switch line {
        case .text(let text): heldLines.append((.text(Array(text)), number, kind))
        case .tooLong(let length): heldLines.append((.tooLong(length), number, kind))
        }
        continue
      }
      if token != nil, !isOpen, kind != .blank {
        refusal = Self.refusal(of: line, token: token!)
        if refusal != nil { break }
      }
      switch line {
      case .text(let text): handle(text, number: number, kind: kind, late: index < keepFrom)
      case .tooLong(let length): skipTooLong(length, number: number)
      }
    }
    scratch.waiting.removeAll(keepingCapacity: true)
    lines.release()
  }

  /// A line over the limit: named in an error, and skipped.
  private func skipTooLong(_ length: Int, number: Int) {
    // Counted in the clock, as the file reader does: frames without `t` keep their times.
    decoder?.skipLine()
    if !isOpen { headerMissingSince = headerMissingSince ?? number }
    reportBadLine(
      PoseFileError(
        file: name, line: number,
        message:
          "line is \(length) bytes long; the limit is \(lines.maxLineLength) bytes, so it was "
          + "skipped"))
  }

  /// One whole line: a stats command, the header, or a frame (dropped if `late`).
  private func handle(
    _ line: UnsafeBufferPointer<UInt8>, number: Int, kind: LineKind, late: Bool
  ) {
    if kind == .blank { return }
    if kind == .statsCommand {
      write(daemon.statsLine())
      return
    }
    guard isOpen, decoder != nil else {
      startSession(line, number: number, kind: kind)
      return
    }
    if late && kind == .frame {
      // Dropped, but counted in the clock: frames without `t` after it keep their times.
      decoder!.skipLine()
      counters.droppedFrames! += 1
      daemon.countDropped(1)
      return
    }
    switch decoder!.decode(line, line: number, into: &scratch.frame) {  // in place: it keeps state
    case .frame:
      if resendFrom != nil, !takeResent(scratch.frame.t) { return }
      daemon.countFrame()
      session!.push(scratch.frame) { send($1, person: $0) }
      afterSession()
      if firstFrame == nil { firstFrame = scratch.frame.t }
      if uid != nil && scratch.frame.t - lastCheckpoint >= Daemon.checkpointSeconds {
        // With no counted set under way, the resume point follows the stream, the backfill
        // horizon behind it (a set recognised later may count reps from that far back).
        if !countedSetUnderWay { moveResumePoint(to: scratch.frame.t - daemon.backfillSeconds) }
        checkpoint(at: scratch.frame.t)
      }
    case .skipped(let error): reportBadLine(error)
    case .end: break
    }
  }

  /// Reports a line that was skipped with an `error` event; the summary's `bad_lines` counts
  /// it.
  private func reportBadLine(_ error: PoseFileError) {
    daemon.countError()
    if let session {
      session.reportBadLine(error) { send($1, person: $0) }
    } else {
      counters.badLines += 1
      send(.error(t: nil, line: error.line, message: error.description))
    }
  }

  /// The header's own goals (`"goal": "squat:20"` or a list of them), if it names any; a bad
  /// one is an error to report, and the stream keeps the server's goals.
  static func goals(in header: PoseFileHeader) -> (goals: [Goal]?, error: String?) {
    guard let text = header.extra["goal"] else { return (nil, nil) }
    let value = try? JSONSerialization.jsonObject(
      with: Data(text.utf8), options: .fragmentsAllowed)
    guard let texts = (value as? [String]) ?? (value as? String).map({ [$0] }) else {
      return (nil, "header \"goal\" is \(text); expected a goal such as \"squat:20\" or a list")
    }
    var goals: [Goal] = []
    for text in texts {
      guard let goal = Goal(text) else {
        return (
          nil, "header \"goal\" \"\(text)\" is not a goal; expected squat:20, 60s or lunge:45s"
        )
      }
      goals.append(goal)
    }
    return (goals, nil)
  }

  /// The header's number of people to follow (`"people": 2`), if it names one; a bad one is
  /// an error to report, and the stream follows one person.
  static func people(in header: PoseFileHeader) -> (people: Int?, error: String?) {
    guard let text = header.extra["people"] else { return (nil, nil) }
    guard let people = Int(text), PeopleLimit.range.contains(people) else {
      let (lowest, highest) = (PeopleLimit.range.lowerBound, PeopleLimit.range.upperBound)
      return (
        1, "header \"people\" is \(text); expected a whole number from \(lowest) to \(highest)"
      )
    }
    return (people, nil)
  }

  /// The exercise the header chooses (`"exercise": "squat"`), if it names one: counted from
  /// the first frame with no classifier. An unknown one is an error to report, and the
  /// classifier chooses.
  static func exercise(in header: PoseFileHeader, catalogue: ExerciseCatalogue)
    -> (exercise: ExerciseDefinition?, error: String?)
  {
    guard let text = header.extra["exercise"] else { return (nil, nil) }
    let name =
      (try? JSONSerialization.jsonObject(
        with: Data(text.utf8), options: .fragmentsAllowed)) as? String ?? text
    guard let definition = catalogue.definition(named: name) else {
      let known = catalogue.definitions.map(\.name).joined(separator: ", ")
      return (nil, "header \"exercise\" is \(text); expected one of \(known)")
    }
    return (definition, nil)
  }

  /// Why the first line of a client that must send `token` is refused, or nil for a header
  /// that carries it. The token is compared in constant time (the time depends on its length,
  /// not on where a guess goes wrong), and never written anywhere.
  static func refusal(of line: LineSplitter.Line, token: [UInt8]) -> String? {
    let needs = "this listener needs a token: send it in the header (\"token\": \"…\")"
    guard case .text(let text) = line, let header = try? PoseFileHeader(line: text, file: "")
    else { return "the first line must be a pose-file header; " + needs }
    guard let written = header.extra["token"] else { return needs }
    // The header keeps a key's JSON text: a token (no quotes or backslashes) inside its quotes.
    var given = Array(written.utf8)
    if given.count >= 2, given.first == 0x22, given.last == 0x22 {
      given = Array(given.dropFirst().dropLast())
    }
    return Self.isSame(given, token) ? nil : "wrong token"
  }

  /// Byte for byte, in a time that depends only on `expected`'s length.
  static func isSame(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
    var difference: UInt8 = given.count == expected.count ? 0 : 1
    for index in expected.indices {
      difference |= expected[index] ^ (index < given.count ? given[index] : 0)
    }
    return difference == 0
  }

  /// Starts the session from a header line. Until a header comes, each line is tried as one;
  /// a line that is not one is skipped with an error naming it, which says what is wrong with
  /// it as a header, or, for a frame after the first such line, that the stream has no header.
  private func startSession(_ line: UnsafeBufferPointer<UInt8>, number: Int, kind: LineKind) {
    var header: PoseFileHeader
    do {
      header = try PoseFileHeader(line: line, file: name)
    } catch {
      let message =
        if let first = headerMissingSince, kind == .frame {
          "the stream has no header (line \(first) was not one), so this frame was skipped; "
            + "send a pose-file header such as "
        } else {
          "\(error.message); the first line must be a pose-file header such as "
        }
      headerMissingSince = headerMissingSince ?? number
      reportBadLine(
        PoseFileError(file: name, line: number, message: message + PoseFileHeader.example))
      return
    }
    header.extra["token"] = nil  // never kept: the decoder's header may be shown
    let resumeID = Self.resumeID(in: header)
    header.extra["resume"] = nil
    decoder = PoseLineDecoder(header: header, name: name)
    let goals = Self.goals(in: header)
    if let error = goals.error {
      tell(t: nil, line: number, "\(error); the stream goes on without it")
    }
    let people = Self.people(in: header)
    if let error = people.error {
      tell(t: nil, line: number, "\(error); the stream goes on with one person")
    }
    streamPerson = header.person
    if let person = streamPerson, person.unicodeScalars.contains(where: { $0.value < 0x20 }) {
      // The history stores names whole or not at all: a control character (a NUL ends a C
      // string, and PostgreSQL's text refuses it) would be stored cut, or not stored.
      tell(
        t: nil, line: number,
        "header \"person\"/\"client\" holds a control character; the session is "
          + "stored without a name")
      streamPerson = nil
    }
    let runtime = daemon.runtime(goals: goals.goals)
    let exercise = Self.exercise(in: header, catalogue: runtime.catalogue)
    if let error = exercise.error {
      tell(t: nil, line: number, "\(error); the classifier chooses the exercises")
    }
    let count = people.people ?? daemon.configuration.people
    catalogue = runtime.catalogue
    session =
      exercise.exercise.map { runtime.makeSession(counting: $0, people: count) }
      ?? runtime.makeSession(people: count, batchingPredictions: count == 1)
    guard count == 1 else {
      if resumeID != nil {
        tell(
          t: nil, line: number,
          "header \"resume\": a stream of several people cannot be resumed; the "
            + "stream goes on as a new one")
      }
      return
    }
    recorder = SessionRecorder(source: "spotter serve, \(name)", person: streamPerson)
    uid = UUID().uuidString.lowercased()
    daemon.track(self)
    if let resumeID, daemon.claim(resumeID, for: self) {
      awaitingClaim = true  // the session event comes with the history's answer
      return
    }
    if resumeID != nil {
      tell(
        t: nil, line: number,
        "header \"resume\": this server keeps no history, so it has no session to "
          + "resume; the stream goes on as a new session")
    }
    write(sessionLine())
  }

  /// Tells the client what went wrong with its stream in an `error` event (which goes on), and
  /// counts it in the server's errors.
  private func tell(t: Double?, line: Int?, _ message: String) {
    daemon.countError()
    send(.error(t: t, line: line, message: message))
  }

  /// The session a header asks to resume (`"resume": "<id>"`), if any.
  static func resumeID(in header: PoseFileHeader) -> String? {
    guard let text = header.extra["resume"] else { return nil }
    let value = try? JSONSerialization.jsonObject(
      with: Data(text.utf8), options: .fragmentsAllowed)
    return (value as? String) ?? text
  }

  /// The stream's first event: `{"type":"session","session":"<id>"}`, and for a resumed one
  /// the session it goes on from and the time after which the client resends its frames.
  private func sessionLine() -> String {
    var line = "{\"type\":\"session\",\"session\":\(JSONText.quote(uid ?? ""))"
    if let resumed {
      line +=
        ",\"resumed\":\(JSONText.quote(resumed.uid)),\"resend_from\":"
        + JSONText.number(resumed.t)
    }
    return line + "}"
  }

  /// The history's answer to the header's `resume`: the session goes on from the checkpoint,
  /// or (with an `error` saying why) as a new one; then the lines that came meanwhile.
  func claimed(_ answer: Result<Checkpoint.Claim, HistoryError>, asked id: String) {
    awaitingClaim = false
    var problem: String?
    switch answer {
    case .success(.resumed(let checkpoint)):
      resumed = checkpoint
      resendFrom = checkpoint.t
      replaying = true
      resumePoint = checkpoint.t
      session?.carry(checkpoint.record.sets)
      var record = checkpoint.record
      record.person = record.person ?? streamPerson
      recorder = SessionRecorder(continuing: record)
    case .success(.resumedAlready(let other)):
      problem = "session \(id) was resumed already (as \(other)); a session is resumed once"
    case .success(.finished):
      problem = "session \(id) has ended and is stored"
    case .success(.unknown):
      problem = "there is no session \(id) to resume (expected an id from a \"session\" event)"
    case .failure(let error):
      problem = "the history could not be asked for session \(id) (\(error))"
    }
    write(sessionLine())
    if let problem {
      tell(t: nil, line: nil, problem + "; the stream goes on as a new session")
    }
    let held = heldLines
    heldLines = []
    for (line, number, kind) in held {
      switch line {
      case .text(let bytes):
        bytes.withUnsafeBufferPointer { handle($0, number: number, kind: kind, late: false) }
      case .tooLong(let length): skipTooLong(length, number: number)
      }
    }
  }

  /// Whether a frame after a resume is counted: frames up to the checkpoint's time were
  /// counted before it. The first one counted tells whether the client resent what followed
  /// the checkpoint; when it did not, the set then under way keeps the checkpoint's reps.
  private func takeResent(_ t: Double) -> Bool {
    // Half a tick past the resume point: the frame of its own tick, its time written rounded,
    // may come a hair after it.
    let halfTick = 0.5 / (session?.tickClock.rate ?? 30)
    guard let from = resendFrom, t > from + halfTick else { return false }
    resendFrom = nil
    if let checkpoint = resumed, var set = checkpoint.underWay, let last = set.reps.last,
      t > from + Daemon.resendSlack
    {
      set.end = last.t
      session?.carry([set])
      var record = recorder?.record ?? checkpoint.record
      record.sets.append(set)
      recorder = SessionRecorder(continuing: record)
      resumePoint = max(resumePoint, last.t)
      tell(
        t: t, line: nil,
        "frames after \(JSONText.number(from)) s were not resent: the "
          + "\(set.exercise) set under way keeps the \(set.count) reps of its checkpoint, and "
          + "counting goes on from here")
    }
    resumed = nil
    return true
  }

  /// Moves the resume point forward, up to `t`: to the last tick at or before it after which
  /// a prediction was made. A resumed session's first frame is then the next tick's, so its
  /// ticks fall on this one's and it predicts at the same ticks (predictions are counted from
  /// a session's first tick): its windows, and so its labels, are this session's.
  private func moveResumePoint(to t: Double) {
    guard let session, let first = firstFrame else { return }
    let clock = session.tickClock
    var tick = Int(((t - first) * clock.rate).rounded(.down))
    tick -= (tick + 1) % clock.predictionStride
    guard tick >= 0 else { return }
    resumePoint = max(resumePoint, first + Double(tick) / clock.rate)
  }

  /// Hands the history the session's progress: its sets so far and the resume point.
  private func checkpoint(at t: Double) {
    guard let uid, let recorder, daemon.configuration.history != nil else { return }
    lastCheckpoint = t
    daemon.checkpoint(
      Checkpoint(uid: uid, t: resumePoint, record: recorder.record, underWay: recorder.underWay))
  }

  /// A checkpoint was stored: the client need not keep the frames before its time.
  func checkpointStored(_ t: Double) {
    guard isOpen, t > resumePointTold else { return }
    resumePointTold = t
    write("{\"type\":\"checkpoint\",\"resend_from\":\(JSONText.number(t))}")
  }

  /// Ends the session (if any): the exercise under way, the summary to the client and the
  /// history.
  func finish() {
    guard let session, !awaitingClaim else { return }
    finishing = true
    session.finish(emit: { send($1, person: $0) }, counters: counters)
    finishing = false
    if let recorder { keep(recorder.record, uid: uid!) }
    self.session = nil
    recorder = nil
  }

  /// Holds a finished record until its summary's bytes are written (`flush`), or the
  /// connection closes without them (`close`).
  private func keep(_ record: SessionRecord, uid: String) {
    undelivered.append((bytesAppended, uid, record))
  }

  /// Hands the history the records whose summaries are written, and with `closing`, the rest,
  /// as not delivered.
  func storeRecords(closing: Bool = false) {
    while let first = undelivered.first, closing || first.end <= bytesWritten {
      undelivered.removeFirst()
      var record = first.record
      record.summaryDelivered = first.end <= bytesWritten
      daemon.record(record, uid: first.uid)
    }
  }

  /// Lines are read while the client may send them: not while a resume waits for the history,
  /// nor while replies to its commands wait beyond twice the output limit (a client sending
  /// commands faster than it reads the replies is slowed, not answered with silence).
  var wantsInput: Bool {
    !inputEnded && !awaitingClaim && output.count < 2 * daemon.configuration.maxPendingOutput
  }

  /// Makes the session's due prediction; its events join the output.
  func makeDuePrediction() {
    session?.makeDuePrediction { send($0) }
    afterSession()
  }

  /// What waits for the session to return from a call: a set that ended moves the resume
  /// point, and is checkpointed.
  private func afterSession() {
    guard let t = setEndedAt else { return }
    setEndedAt = nil
    moveResumePoint(to: t)
    checkpoint(at: t)
  }

  func send(_ event: SpotterEvent) {
    recorder?.take(event)
    append(event, person: nil)
    guard uid != nil else { return }
    switch event {
    case .exerciseStarted(_, let exercise, _):
      countedSetUnderWay = catalogue?.definition(forLabel: exercise) != nil
    case .rep(let t, _, _, _):
      checkpoint(at: t)
    case .exerciseEnded(let t, _, _):
      // The session is busy emitting: the resume point moves once it has returned.
      countedSetUnderWay = false
      setEndedAt = t
    default: break
    }
  }

  /// Writes the event's line into the output (as bytes, with no string made), or counts it
  /// dropped when the client is that far behind. Past the output limit, the events of the
  /// moment (predictions, presence, cues, rejected reps) are dropped first; the workout's own
  /// (sets, reps, goals, errors) up to twice the limit; the events that end the session
  /// never: the client learns from them what it lost.
  private func append(_ event: SpotterEvent, person: Int?) {
    let limit = daemon.configuration.maxPendingOutput
    guard finishing || output.count < limit || (output.count < 2 * limit && event.isLasting)
    else {
      counters.droppedEvents! += 1
      return
    }
    let before = output.count
    event.appendJSON(person: person, to: &output)
    output.append(0x0A)
    bytesAppended += output.count - before
    hasOutput = true
    daemon.flushAtEndOfRound(self)
  }

  /// An event of one person in a stream of several. Each person is a session of the history
  /// (`person` the header's with `/id` added, `source` naming the id), stored when their
  /// summary comes: when they leave, or when the stream ends.
  private func send(_ event: SpotterEvent, person id: Int?) {
    guard let id else { return send(event) }  // the stream's own (a bad line)
    append(event, person: id)
    if !personRecorders.contains(where: { $0.id == id }) {
      personRecorders.append(
        (
          id,
          SessionRecorder(
            source: "spotter serve, \(name), person \(id)",
            person: streamPerson.map { "\($0)/\(id)" })
        ))
    }
    let index = personRecorders.firstIndex { $0.id == id }!
    personRecorders[index].recorder.take(event)
    if case .summary = event {
      keep(personRecorders.remove(at: index).recorder.record, uid: UUID().uuidString.lowercased())
    }
  }

  /// A reply or a line of the daemon's own (`session`, `checkpoint`): never dropped
  /// (`wantsInput` bounds how many wait).
  private func write(_ line: String) {
    output.append(contentsOf: line.utf8)
    output.append(0x0A)
    bytesAppended += line.utf8.count + 1
    hasOutput = true
    daemon.flushAtEndOfRound(self)
  }

  /// Writes what the socket takes now; the rest waits for the next POLLOUT. Records whose
  /// summaries are now written go to the history.
  func flush() {
    guard hasOutput else { return }
    defer {
      hasOutput = !output.isEmpty
      if !undelivered.isEmpty { storeRecords() }
    }
    do {
      while !output.isEmpty && !closed {
        let written = try output.withUnsafeBytes { try descriptor.write($0) }
        guard written > 0 else { return }
        output.removeFirst(written)
        bytesWritten += written
      }
    } catch {
      closed = true
    }
  }

  /// What a line is, told from its bytes once, when it arrives.
  enum LineKind {
    /// Only spaces.
    case blank
    /// `{"cmd":"stats"}`.
    case statsCommand
    /// Carries neither `"spotter"` (a header) nor `"cmd"`: a frame (or a bad line, which
    /// decoding names). A cheap test, exact enough to choose what to drop: a frame that slips
    /// by is decoded, not lost.
    case frame
    /// Anything else: a header, another command, a line that is not an object.
    case other

    init(_ line: UnsafeBufferPointer<UInt8>) {
      guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else {
        self = .blank
        return
      }
      let first = line.firstIndex { $0 != 0x20 && $0 != 0x09 }!
      let (command, header) = Self.contains(line, "\"cmd\"", "\"spotter\"")
      if command && Self.contains(line, "\"stats\"") {
        self = .statsCommand
      } else if line[first] == UInt8(ascii: "{") && !command && !header {
        self = .frame
      } else {
        self = .other
      }
    }

    /// Whether the line holds `a`, and `b`, in one walk over its quotes: each candidate start
    /// found with `memchr` (the needles open with a quote, a few of which a frame line has per
    /// joint).
    private static func contains(
      _ line: UnsafeBufferPointer<UInt8>, _ a: StaticString, _ b: StaticString
    ) -> (Bool, Bool) {
      guard let base = line.baseAddress else { return (false, false) }
      var found = (false, false)
      var offset = 0
      while !(found.0 && found.1), offset < line.count,
        let quote = memchr(base + offset, Int32(UInt8(ascii: "\"")), line.count - offset)
      {
        let start = UnsafePointer(quote.assumingMemoryBound(to: UInt8.self))
        let rest = line.count - (start - base)
        found.0 = found.0 || Self.opens(start, rest, with: a)
        found.1 = found.1 || Self.opens(start, rest, with: b)
        offset = start - base + 1
      }
      return found
    }

    private static func contains(_ line: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
      contains(line, text, text).0
    }

    private static func opens(_ start: UnsafePointer<UInt8>, _ count: Int, with text: StaticString)
      -> Bool
    {
      count >= text.utf8CodeUnitCount && memcmp(start, text.utf8Start, text.utf8CodeUnitCount) == 0
    }
  }
}

extension SpotterEvent {
  /// Part of the workout's story (a set, a rep, a goal, an error), not of the moment.
  fileprivate var isLasting: Bool {
    switch self {
    case .prediction, .presence, .cue, .repRejected: false
    default: true
    }
  }
}
