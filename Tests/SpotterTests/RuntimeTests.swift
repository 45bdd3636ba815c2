import ActionModel
import Dispatch
import Foundation
import MotionSynth
import Poses
import RepCounting
import TestSupport
import Testing

@testable import Spotter

/// The runtime end to end on synthetic workouts, the classifier scripted right
/// (`ScriptedClassifier`): hand-offs, presence, goals and threads are the runtime's doing,
/// whatever the shipped model makes of the same poses (`make eval` measures that). Batched
/// predictions run the shipped model's network unscripted: they compare its predictions made
/// two ways, which its quality does not change.
@Suite(.serialized) struct RuntimeTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
  static let catalogue = try! ExerciseCatalogue.load()
  /// The tests' own model: only its labels and window matter, the script writes its output.
  static let runtime = Runtime(
    classifier: try! WeightsFile.load(repository + "/Weights/tiny.spotter"), catalogue: catalogue)
  /// The shipped model, for its network's predictions made two ways.
  static let shipped = Runtime(
    classifier: try! WeightsFile.load(repository + "/Weights/default.spotter"),
    catalogue: catalogue)

  static func frames(_ recording: Recording) -> [PeopleFrame] {
    recording.frames.enumerated().map { index, sample in
      var frame = PeopleFrame()
      frame.t = sample.t
      frame.line = index + 1
      if sample.pose.hasPerson { frame.people = [sample.pose] }
      return frame
    }
  }

  /// The events of `frames` through one session, with `goals` if given, its classifier sure
  /// of `label(t)` at each prediction.
  static func run(
    _ frames: [PeopleFrame], goals: [Goal] = [], label: @escaping (Double) -> String
  ) -> [SpotterEvent] {
    var options = runtime.options
    options.goals = goals
    let session = Runtime(
      classifier: runtime.classifier, catalogue: runtime.catalogue, options: options
    ).makeSession()
    session.scriptPredictions(
      ScriptedClassifier.script(labels: runtime.classifier!.labels, label: label))
    var events: [SpotterEvent] = []
    for frame in frames { session.push(frame) { events.append($0) } }
    session.finish { events.append($0) }
    return events
  }

  /// The events of `recording` through one session whose classifier is always right.
  static func run(_ recording: Recording, goals: [Goal] = []) -> [SpotterEvent] {
    run(frames(recording), goals: goals) { ScriptedClassifier.truth(recording, at: $0) }
  }

  static func demo(seed: UInt64) -> Recording {
    var options = RecordingOptions()
    options.camera = .front
    return Recorder.record(.demo, options: options, seed: seed)
  }

  /// An `emit` that calls back into its own session is a programming error that stops the
  /// program, never a silent corruption: the properties that events are emitted from inside
  /// keep Swift's exclusivity check (README, "Performance").
  @Test func anEmitThatCallsBackIntoItsSessionStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      let recording = RuntimeTests.demo(seed: 7)
      let session = RuntimeTests.runtime.makeSession()
      session.scriptPredictions(
        ScriptedClassifier.truth(recording, labels: RuntimeTests.runtime.classifier!.labels))
      for frame in RuntimeTests.frames(recording) {
        session.push(frame) { _ in session.push(frame) { _ in } }
      }
    }
  }

  /// The hand-off: every exercise that starts ends, in order and without overlap; each set's
  /// reps are the reps reported for it, counted 1, 2, 3…; backfilled reps come out with the
  /// start, before any live rep; the summary adds up the sets.
  @Test func aDemoWorkoutIsHandedOffSetBySet() throws {
    let events = Self.run(Self.demo(seed: 5001))
    var open: (exercise: String, since: Double, reps: Int)?
    var totals: [String: Int] = [:]
    var live = false
    for event in events {
      switch event {
      case .exerciseStarted(let t, let exercise, _):
        #expect(open == nil, "\(exercise) started at \(t) inside \(open!.exercise)")
        open = (exercise, t, 0)
        live = false
      case .rep(_, let exercise, let rep, let backfilled):
        #expect(exercise == open?.exercise)
        #expect(rep.count == open!.reps + 1)
        #expect(!(backfilled && live), "a backfilled rep after a live one")
        live = live || !backfilled
        open?.reps += 1
      case .exerciseEnded(let t, let exercise, let reps):
        #expect(exercise == open?.exercise && reps == open?.reps && t >= open!.since)
        totals[exercise, default: 0] += reps
        open = nil
      default: break
      }
    }
    #expect(open == nil)
    guard case .summary(_, let exercises, _)? = events.last else {
      Issue.record("no summary last")
      return
    }
    #expect(Dictionary(uniqueKeysWithValues: exercises.map { ($0.name, $0.reps) }) == totals)
    let done = Set(Self.demo(seed: 5001).segments.map(\.label)).subtracting([Labels.other])
    #expect(done.allSatisfy { totals[$0, default: 0] > 0 }, "\(totals) of \(done)")
  }

  /// Three seconds with nobody in view are reported as such, and the person's return too. A
  /// stream that shows the person from its first frame starts with them in view once its
  /// first window is full enough to classify, not with "nobody in view" while it fills; one
  /// that starts empty says so at once.
  @Test(arguments: [false, true])
  func nobodyInViewIsReported(startsEmpty: Bool) {
    let recording = Self.fromTheFront([.rest(seconds: 6), .rest(seconds: 8)], 5003)
    var frames = Self.frames(recording)
    for index in frames.indices
    where (frames[index].t > 6 && frames[index].t < 10) || (startsEmpty && frames[index].t < 3) {
      frames[index].people = []
    }
    let presence = Self.run(frames) { ScriptedClassifier.truth(recording, at: $0) }.compactMap {
      event -> (Double, Bool)? in
      if case .presence(let t, let present) = event { return (t, present) } else { return nil }
    }
    #expect(presence.map(\.1) == (startsEmpty ? [false, true, false, true] : [true, false, true]))
    // In view once 60% of the window (36 of 60 frames) shows them: at the first prediction
    // after 1.2 s.
    let firstInView = presence.first { $0.1 }!.0
    #expect(startsEmpty ? firstInView > 3 : firstInView < 1.5, "\(presence)")
  }

  /// One movement is never counted by two exercises: when the classifier switches, the new
  /// exercise's backfill starts after the last rep the old one counted, and the old set ends
  /// no earlier than that rep. Six squats whose first one the classifier takes for a lunge
  /// (`spotter synth --exercise squat --reps 6 --seed 5 --fps 30`), as a model might: the lunge
  /// counts it, and the squats' backfill must not count it again.
  @Test func aMovementIsCountedByOneExerciseOnly() throws {
    var options = RecordingOptions()
    options.fps = 30
    let recording = Recorder.record(.single(.squat, reps: 6), options: options, seed: 5)
    let squats = try #require(recording.segments.first { $0.label == "squat" })
    let events = Self.run(Self.frames(recording)) { t in
      let truth = ScriptedClassifier.truth(recording, at: t)
      return truth == "squat" && t < squats.repBounds[0].upperBound + 1 ? "lunge" : truth
    }
    var reps: [(exercise: String, start: Double, end: Double)] = []
    for case .rep(_, let exercise, let rep, _) in events {
      reps.append((exercise, rep.start, rep.end))
    }
    #expect(reps.count == 6, "\(reps)")
    #expect(Set(reps.map(\.exercise)) == ["lunge", "squat"], "\(reps)")
    for (index, a) in reps.enumerated() {
      for b in reps[(index + 1)...] where a.exercise != b.exercise {
        let overlap = min(a.end, b.end) - max(a.start, b.start)
        #expect(overlap < 0.5 * min(a.end - a.start, b.end - b.start), "\(a) and \(b)")
      }
    }
  }

  static func fromTheFront(_ items: [WorkoutPlan.Item], _ seed: UInt64) -> Recording {
    var options = RecordingOptions()
    options.camera = .front
    return Recorder.record(WorkoutPlan(items: items), options: options, seed: seed)
  }

  static func isRep(_ event: SpotterEvent) -> Bool {
    if case .rep = event { return true } else { return false }
  }

  @Test func aStreamThatStartsMidRepDoesNotDoubleCount() throws {
    let recording = Self.demo(seed: 5004)
    let squats = try #require(recording.segments.first { $0.label == "squat" })
    let middle = (squats.repBounds[2].lowerBound + squats.repBounds[2].upperBound) / 2
    let events = Self.run(Self.frames(recording).filter { $0.t >= middle }) {
      ScriptedClassifier.truth(recording, at: $0)
    }
    guard case .summary(_, let exercises, _)? = events.last else {
      Issue.record("no summary")
      return
    }
    let counted = exercises.first { $0.name == "squat" }?.reps ?? 0
    // Seven whole squats remain, and the second half of one.
    #expect(counted >= 6 && counted <= 8, "\(counted)")
  }

  @Test func sessionsOnTwoThreadsGiveWhatEachGivesAlone() {
    let a = Self.demo(seed: 5005)
    let b = Self.demo(seed: 5006)
    let aloneA = Self.run(a).map(\.jsonLine)
    let aloneB = Self.run(b).map(\.jsonLine)
    let together = Results()
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      together.set(index, Self.run(index == 0 ? a : b).map(\.jsonLine))
    }
    #expect(together.get(0) == aloneA)
    #expect(together.get(1) == aloneB)
  }

  /// Sessions whose predictions are left to their caller (as the daemon does with many), their
  /// network states caught up together, give the same events, byte for byte, predictions
  /// included, as each predicting on its own. The caller makes them every fourth frame, so
  /// ticks wait meanwhile; the streams start 0, 3 and 10 frames apart.
  @Test func batchedPredictionsChangeNothing() {
    let starts = [0, 3, 10]
    let frames = [5007, 5008, 5007].map { Self.frames(Self.demo(seed: UInt64($0))) }
    var options = Self.shipped.options
    options.reportPredictions = true
    let runtime = Runtime(
      classifier: Self.shipped.classifier, catalogue: Self.shipped.catalogue, options: options)
    let alone = frames.map { frames in
      var lines: [String] = []
      let session = runtime.makeSession()
      for frame in frames { session.push(frame) { lines.append($0.jsonLine) } }
      session.finish { lines.append($0.jsonLine) }
      return lines
    }
    let sessions = starts.map { _ in runtime.makeSession(batchingPredictions: true) }
    var events = starts.map { _ in [String]() }
    var batches = 0
    var batch = PredictionBatch()
    for step in 0..<(frames.map(\.count).max()! + starts.max()!) {
      for (stream, session) in sessions.enumerated() {
        let index = step - starts[stream]
        guard frames[stream].indices.contains(index) else { continue }
        session.push(frames[stream][index]) { events[stream].append($0.jsonLine) }
      }
      guard step % 4 == 3 else { continue }
      while sessions.contains(where: \.predictionDue) {
        let due = sessions.filter(\.predictionDue)
        if due.count > 1 { batches += 1 }
        for session in due { batch.add(session) }
        batch.catchUp()
        for (stream, session) in sessions.enumerated() {
          session.makeDuePrediction { events[stream].append($0.jsonLine) }
        }
      }
    }
    for (stream, session) in sessions.enumerated() {
      session.finish { events[stream].append($0.jsonLine) }
    }
    #expect(batches > 50)
    #expect(alone[0].filter { $0.contains(#""type":"prediction""#) }.count > 200)
    for stream in starts.indices { #expect(events[stream] == alone[stream], "stream \(stream)") }
  }

  /// A session whose caller makes its predictions late loses no tick, however many come:
  /// frames pushed between the caller's batches a tick at a time, or in bursts (as a daemon
  /// reads a client that sends in bursts) of 150 ticks and of twice as many as the session
  /// holds (`PersonSession.heldTickLimit`), more than it holds after a prediction due at any
  /// of a burst's first 10 ticks; and one frame after five seconds unseen, whose push alone
  /// brings 150 ticks. The events are those of a session predicting on its own, byte for byte.
  @Test(arguments: [1, 2 * PersonSession.heldTickLimit, 150])
  func batchedPredictionsLoseNoTick(burstTicks: Int) {
    let recording = Self.demo(seed: 5007)
    let tickRate = Self.shipped.classifier!.metadata.fps
    let burst = Int((Double(burstTicks) * recording.header.fps / tickRate).rounded(.up))
    var frames = Self.frames(recording)
    let gapAt = frames.count / 3
    for index in gapAt..<frames.count { frames[index].t += 5 }
    var options = Self.shipped.options
    options.reportPredictions = true
    let runtime = Runtime(
      classifier: Self.shipped.classifier, catalogue: Self.shipped.catalogue, options: options)
    var alone: [String] = []
    let single = runtime.makeSession()
    for frame in frames { single.push(frame) { alone.append($0.jsonLine) } }
    single.finish { alone.append($0.jsonLine) }

    var batched: [String] = []
    let session = runtime.makeSession(batchingPredictions: true)
    for (index, frame) in frames.enumerated() {
      session.push(frame) { batched.append($0.jsonLine) }
      guard index % burst == burst - 1 else { continue }
      while session.predictionDue {
        StreamState.catchUp(together: [session.streamState])
        session.makeDuePrediction { batched.append($0.jsonLine) }
      }
    }
    session.finish { batched.append($0.jsonLine) }
    #expect(alone.filter { $0.contains(#""type":"prediction""#) }.count > 200)
    #expect(batched == alone)
  }

  /// A goal ends the set at its target, reps counted in backfill included; the person's
  /// further squats do not start another set until the classifier has seen something else.
  @Test func aGoalEndsTheSetAtItsTarget() throws {
    let events = Self.run(Self.demo(seed: 5001), goals: [Goal("squat:5")!])
    let reached = try #require(
      events.firstIndex {
        if case .goalReached(_, "squat", "squat:5") = $0 { true } else { false }
      })
    guard case .exerciseEnded(_, "squat", 5) = events[reached + 1] else {
      Issue.record("the set did not end at the goal: \(events[reached + 1])")
      return
    }
    let squatSets = events.filter {
      if case .exerciseStarted(_, "squat", _) = $0 { true } else { false }
    }
    #expect(squatSets.count == 1)
    guard case .summary(_, let exercises, _)? = events.last else { return }
    let squat = try #require(exercises.first { $0.name == "squat" })
    #expect(squat.reps == 5 && squat.goalsReached == 1)
  }

  /// A goal that backfill reaches, as the exercise starts (one squat), ends the set then: after
  /// the rep that reached it, and without touching the smoother while it reports the start
  /// (that was a fatal access conflict, ending the process).
  @Test func aGoalReachedByBackfillEndsTheSetAsItStarts() throws {
    let events = Self.run(Self.demo(seed: 5001), goals: [Goal("squat:1")!])
    let reached = try #require(
      events.firstIndex {
        if case .goalReached(_, "squat", "squat:1") = $0 { true } else { false }
      })
    guard case .rep(let repTime, "squat", let rep, true) = events[reached - 1],
      case .goalReached(let goalTime, _, _) = events[reached],
      case .exerciseEnded(goalTime, "squat", 1) = events[reached + 1]
    else {
      Issue.record("not rep, goal, end: \(events[(reached - 1)...(reached + 1)])")
      return
    }
    #expect(rep.count == 1 && goalTime >= repTime)
    guard case .summary(_, let exercises, _)? = events.last else { return }
    #expect(exercises.first { $0.name == "squat" }?.goalsReached == 1)
  }

  /// A time goal ends each set once it has gone on that long, counted from the set's start as
  /// reported (backdated to its first rep): `goal_reached` and `exercise_ended` come at the
  /// first frame past the target, and the summary's active seconds are the target's.
  @Test func aTimeGoalEndsEachSetWhenItHasGoneOnThatLong() throws {
    let events = Self.run(Self.demo(seed: 5001), goals: [Goal("8s")!])
    let frame = 1 / Self.runtime.classifier!.metadata.fps
    var started: (exercise: String, t: Double)?
    var reached: [String] = []
    for (index, event) in events.enumerated() {
      switch event {
      case .exerciseStarted(let t, let exercise, _): started = (exercise, t)
      case .goalReached(let t, let exercise, let goal):
        #expect(goal == "8s" && exercise == started?.exercise)
        let lasted = t - started!.t
        #expect(lasted >= 8 && lasted <= 8 + 2 * frame, "\(exercise): goal after \(lasted) s")
        guard case .exerciseEnded(t, exercise, _) = events[index + 1] else {
          Issue.record("the set did not end at the goal: \(events[index + 1])")
          continue
        }
        reached.append(exercise)
      default: break
      }
    }
    // The demo's squats, jumping jacks, push-ups and curls each go on for longer than 8 s.
    #expect(reached.contains("squat"), "\(reached)")
    guard case .summary(_, let exercises, _)? = events.last else { return }
    let squat = try #require(exercises.first { $0.name == "squat" })
    #expect(squat.goalsReached == 1 && squat.reps < 10, "\(squat)")
    #expect(abs(squat.activeSeconds - 8) <= 2 * frame, "\(squat)")
  }

  /// Two threads' results, behind a lock.
  final class Results: @unchecked Sendable {
    private var values: [[String]] = [[], []]
    private let lock = NSLock()
    func set(_ index: Int, _ value: [String]) { lock.withLock { values[index] = value } }
    func get(_ index: Int) -> [String] { lock.withLock { values[index] } }
  }
}
