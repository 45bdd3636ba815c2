import ActionModel
import Poses
import RepCounting

/// One stream of poses, of one person or several: decoding's output in, events out (README,
/// "How the code is laid out"). Made by the runtime for the classifier's exercises or for one
/// the person chose (`Runtime.makeSession`); the rest works the same for both.
///
/// Frame times are checked here, once: a frame whose time is not finite or is before the
/// previous frame's is refused with an `error` event (counted in the summary's `bad_lines`),
/// as is a bad line the caller reports; the stream goes on. One person (the most prominent)
/// is one `PersonSession`, its events carrying no id; several are a `Crowd`, each event
/// saying whose it is (nil for the stream's own: an `error`).
///
/// `emit` must not call back into the session (as none of its callbacks may). The closures
/// that take only the event are for a session of one person.
public final class Session {
  public let runtime: Runtime
  /// The one person's session; nil when the stream follows several (`crowd`).
  private let one: PersonSession?
  private let crowd: Crowd?
  /// The frames' times so far: a caller of the library may send anything, where the pose-file
  /// readers have already mended them.
  @exclusivity(unchecked) private var frameTimes = FrameTimeCheck()
  /// Frames refused and bad lines reported, for the summaries.
  @exclusivity(unchecked) public private(set) var badLines = 0

  init(runtime: Runtime, people: Int, leaveSeconds: Double, person: @escaping () -> PersonSession) {
    precondition(
      PeopleLimit.range.contains(people), "follows \(PeopleLimit.range) people, not \(people)")
    self.runtime = runtime
    if people == 1 {
      one = person()
      crowd = nil
    } else {
      one = nil
      crowd = Crowd(people: people, leaveSeconds: leaveSeconds, makePerson: person)
    }
  }

  /// The one person's session, for what only a stream of one person has.
  private var person: PersonSession {
    guard let one else { preconditionFailure("a session of several people has no one person's") }
    return one
  }

  // MARK: the stream

  /// Takes one decoded frame; `emit` hears each event it causes, with the id of the person it
  /// is about when the stream follows several.
  public func push(_ frame: PeopleFrame, emit: (_ person: Int?, SpotterEvent) -> Void) {
    guard accept(frame.t, emit: emit) else { return }
    if let one {
      one.push(frame) { emit(nil, $0) }
    } else {
      crowd!.push(frame, emit: emit)
    }
  }

  /// Reports a bad input line as an `error` event; the stream goes on. A due prediction and
  /// the ticks held behind it are made first: the error comes after the events of the frames
  /// before it, as in a session that does not batch.
  public func reportBadLine(_ error: PoseFileError, emit: (_ person: Int?, SpotterEvent) -> Void) {
    refuse(line: error.line, error.description, emit: emit)
  }

  /// Runs a whole pose source through the session (bad lines reported, the stream going on),
  /// then finishes it. `afterFrame` runs after each frame's events (to flush a live output);
  /// `counters`, asked at the end, is what the caller lost on the way (`finish`).
  public func run(
    _ source: any PoseSource, emit: (_ person: Int?, SpotterEvent) -> Void,
    afterFrame: () throws -> Void = {}, counters: () -> StreamCounters = { StreamCounters() }
  ) throws {
    try source.readAll(
      frame: { push($0, emit: emit) }, skipped: { reportBadLine($0, emit: emit) },
      afterFrame: afterFrame)
    finish(emit: emit, counters: counters())
  }

  /// Ends the stream: the exercise under way ends and each person's summary follows, with the
  /// stream's bad lines and `counters` (what the caller lost on the way: the daemon's dropped
  /// frames and events, bad lines it reported itself). Whoever is in view at the end was there
  /// when they were lost.
  public func finish(
    emit: (_ person: Int?, SpotterEvent) -> Void, counters: StreamCounters = StreamCounters()
  ) {
    var counters = counters
    counters.badLines += badLines
    if let one {
      one.finish(emit: { emit(nil, $0) }, counters: counters)
    } else {
      crowd!.finish(counters: counters, emit: emit)
    }
  }

  /// The people followed now, by id; empty for a stream of one person.
  public var people: [Int] { crowd?.people ?? [] }

  /// Whether a frame's time may follow the last; if not, it is refused.
  private func accept(_ t: Double, emit: (_ person: Int?, SpotterEvent) -> Void) -> Bool {
    guard let problem = frameTimes.problem(with: t) else { return true }
    refuse(line: nil, problem, emit: emit)
    return false
  }

  private func refuse(
    line: Int?, _ message: String, emit: (_ person: Int?, SpotterEvent) -> Void
  ) {
    if let one { while one.predictionDue { one.makeDuePrediction { emit(nil, $0) } } }
    badLines += 1
    emit(nil, .error(t: nil, line: line, message: message))
  }

  // MARK: one person

  /// `push` for a stream of one person.
  public func push(_ frame: PeopleFrame, emit: (SpotterEvent) -> Void) {
    precondition(one != nil, "a session of several people says whose each event is")
    push(frame) { _, event in emit(event) }
  }

  /// `reportBadLine` for a stream of one person.
  public func reportBadLine(_ error: PoseFileError, emit: (SpotterEvent) -> Void) {
    reportBadLine(error) { _, event in emit(event) }
  }

  /// `run` for a stream of one person.
  public func run(
    _ source: any PoseSource, emit: (SpotterEvent) -> Void, afterFrame: () throws -> Void = {}
  ) throws {
    precondition(one != nil, "a session of several people says whose each event is")
    try run(source, emit: { _, event in emit(event) }, afterFrame: afterFrame)
  }

  /// `finish` for a stream of one person.
  public func finish(emit: (SpotterEvent) -> Void, counters: StreamCounters = StreamCounters()) {
    precondition(one != nil, "a session of several people says whose each event is")
    finish(emit: { _, event in emit(event) }, counters: counters)
  }

  /// Takes one tick that the caller followed and resampled itself, as the session's own
  /// pipeline would (evaluation resamples a recording once and replays it clip by clip);
  /// `positionsAreLost` once the frames turned out normalised to their own box. Times are
  /// checked as `push` checks them.
  public func push(
    tick pose: Pose, t: Double, positionsAreLost lost: Bool = false,
    emit: (SpotterEvent) -> Void
  ) {
    let person = person
    guard accept(t, emit: { _, event in emit(event) }) else { return }
    person.push(tick: pose, t: t, positionsAreLost: lost, emit: emit)
  }

  /// Hears each tick (a frame followed and resampled, as the engines and the network get it),
  /// for pictures of the session (`spotter report`). Nil by default.
  public var onTick: ((Pose, Double) -> Void)? {
    get { person.onTick }
    set { person.onTick = newValue }
  }

  /// Hears each rep engine's signal and levels, frame by frame, with its exercise's label (for
  /// pictures of a set: `spotter report`). Samples of a set's backfill come when it is
  /// recognised, with their own times. Nil by default: then nothing is made.
  public var onSignalSample: ((String, SignalSample) -> Void)? {
    get { person.onSignalSample }
    set { person.onSignalSample = newValue }
  }

  /// Tests of the runtime's rules: the classifier's probabilities at each prediction are what
  /// `script` (given the prediction's time) writes over the network's, so a test says what the
  /// classifier sees and checks what the sets make of it, whatever the model. The network still
  /// runs, so a scripted session does a real one's work. A session of several people gives
  /// everyone the same script.
  func scriptPredictions(_ script: @escaping (_ t: Double, _ probabilities: inout [Float]) -> Void)
  {
    if let one { one.scriptPredictions(script) } else { crowd!.script = script }
  }

  /// The exercise under way, if any.
  public var currentExercise: String? { person.currentExercise }
  /// Reps of the exercise under way.
  public var currentReps: Int { person.currentReps }
  /// The summary so far: per exercise, reps and active seconds.
  public var summary: [ExerciseTotal] { person.summary }

  /// The one person's ticks so far (frames followed and resampled: tick k is at the first
  /// frame's time plus k / `rate`), and every how many ticks a prediction is made
  /// (`SessionOptions.stride`, counted from the first): where a resumed session's frames start
  /// so that its ticks and predictions fall where this one's did.
  public var tickClock: (ticks: Int, rate: Double, predictionStride: Int) {
    let clock = person.tickClock
    return (clock.ticks, clock.rate, runtime.options.stride)
  }

  /// The first tick falls at `t`, before the first frame: a session that goes on from another
  /// (the daemon resuming one whose daemon died) keeps the other's clock from the tick after
  /// the resume point, so its ticks, windows and predictions are the other's, not a fraction of
  /// a tick off them (frame times are seldom on the clock).
  public func startClock(at t: Double) { person.startClock(at: t) }

  /// Counts sets the person finished in an earlier session in this one's totals, so that its
  /// summary covers both: the daemon resuming a session whose own daemon died.
  public func carry(_ earlier: [SetRecord]) { person.carry(earlier) }

  // MARK: batched predictions (one person)

  /// A session made with `batchingPredictions` does not run the network inside `push`: when a
  /// prediction is due, `push` returns with this set (holding the ticks that come meanwhile),
  /// and the caller makes it with `makeDuePrediction(emit:)`, after catching up the network
  /// states of all its due sessions together (`PredictionBatch`) if it likes, so each weight
  /// read serves them all. Pushes that bring more ticks than the session holds (16: half a
  /// second) make the due prediction themselves, alone. Events and counts are those of a
  /// session that predicts on its own, byte for byte: the same frames go through the same
  /// layers.
  public var predictionDue: Bool { one?.predictionDue ?? false }

  /// Makes the due prediction (if any), then processes the ticks held since, up to the next
  /// prediction due. Allocates nothing.
  public func makeDuePrediction(emit: (SpotterEvent) -> Void) {
    one?.makeDuePrediction(emit: emit)
  }

  /// The one person's network state, for `PredictionBatch` only: no network type is on the
  /// runtime's surface.
  var streamState: StreamState { person.streamState }
}
