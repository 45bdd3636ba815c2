import Foundation
import History
import MotionSynth
import Poses
import Spotter
import TestSupport
import Testing

@testable import SpotterServer

/// Checkpoints and resumes through a served stream (README, "Resuming a session"): what the
/// stream asks the history to keep, what it tells its client, and a session that goes on from
/// a checkpoint in another stream with the totals of a stream that was never interrupted.
@Suite struct ResumeClaimTests {
  /// The workout streamed whole: the reps of its summary.
  static let uninterrupted: [String: Int] = {
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.send(Recordings.text(Recordings.workout), chunk: 4096)
    driver.end()
    return Recordings.summary(driver.receivedLines)
  }()

  /// The workout's first `share` of frames through one stream, which then disappears: its
  /// last checkpoint, as the history keeps it.
  static func interrupted(at share: Double) -> (checkpoint: Checkpoint, told: [String]) {
    let driver = StreamDriver(runtime: Recordings.runtime)
    let lines = Recordings.workout
    driver.send(Recordings.text(Array(lines.prefix(Int(Double(lines.count) * share)))), chunk: 4096)
    return (driver.checkpoints.last!, driver.receivedLines.filter { $0.contains("checkpoint") })
  }

  /// A stream of one person asks for a checkpoint at each rep and set's end, and every 5 s of
  /// stream otherwise; the client is told each resume point once it is stored, never one
  /// earlier than it was told before. The resume point never goes back, and stays behind
  /// every rep of the set under way.
  @Test func checkpointsFollowTheRepsAndAreTold() {
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.send(Recordings.text(Recordings.workout), chunk: 4096)
    let reps = driver.receivedLines.filter { $0.contains(#""type":"rep""#) }.count
    let checkpoints = driver.checkpoints
    #expect(checkpoints.count >= reps)
    #expect(checkpoints.allSatisfy { $0.uid == driver.stream.uid })
    let points = checkpoints.map(\.t)
    #expect(points == points.sorted(), "\(points)")
    for checkpoint in checkpoints {
      #expect(checkpoint.underWay?.reps.allSatisfy { $0.t > checkpoint.t } ?? true)
    }
    let told = driver.receivedLines.compactMap(Recordings.object).filter {
      $0["type"] as? String == "checkpoint"
    }.compactMap { $0["resend_from"] as? Double }
    // As the events write times: to the millisecond.
    let written = Set(points.map { Double(ResumeLedger.written($0))! }).sorted()
    #expect(told == written, "each resume point told once, in order")
  }

  /// A checkpoint carries the finished sets the history has not stored: while the history
  /// stores every checkpoint, a set only until it is heard stored (a round), so a
  /// checkpoint's cost does not grow with the session; while it stores none, all of them.
  @Test(arguments: [true, false])
  func aCheckpointCarriesTheSetsNotYetStored(stored: Bool) {
    let driver = StreamDriver(runtime: Recordings.runtime)
    driver.storesCheckpoints = stored
    let lines = Recordings.lines(
      "squat:5, rest:4, jumping_jack:8, rest:4, squat:5, rest:4", seed: 43)
    driver.send(Recordings.text(lines), chunk: 4096)
    let sets = driver.receivedLines.filter { $0.contains(#""type":"exercise_ended""#) }.count
    #expect(sets >= 2)
    let last = driver.sentCheckpoints.last!
    #expect(last.setsThrough == sets)
    if stored {
      #expect(last.firstSet == sets && last.record.sets.isEmpty)
      let carrying = driver.sentCheckpoints.filter { !$0.record.sets.isEmpty }
      #expect(carrying.allSatisfy { $0.record.sets.count == 1 })
    } else {
      #expect(last.firstSet == 0 && last.record.sets.count == sets)
    }
    #expect(driver.checkpoints.last!.record.sets.count == sets)
  }

  /// The history's answer comes later: meanwhile the stream sends nothing, takes no lines,
  /// and holds those that came with the header. Resumed, it counts on from the checkpoint's
  /// time: the frames resent up to it are skipped, and its totals are those of the
  /// uninterrupted stream.
  @Test(arguments: [0.3, 0.55, 0.8])
  func aResumedStreamEndsWithTheTotalsOfOneNeverInterrupted(share: Double) {
    let (checkpoint, told) = Self.interrupted(at: share)
    #expect(!told.isEmpty)
    let driver = StreamDriver(runtime: Recordings.runtime)
    var lines = Recordings.workout
    lines[0] = Recordings.header(lines[0], #""resume":"\#(checkpoint.uid)""#)
    driver.send(Recordings.text(lines), chunk: 1 << 20)
    #expect(driver.claims.map(\.id) == [checkpoint.uid])
    #expect(driver.claims.first?.resumer == driver.stream.uid)
    #expect(driver.received.isEmpty && !driver.stream.takesLines(pending: 0, written: 0))
    driver.answerClaim(.success(.resumed(checkpoint)))
    driver.end()
    #expect(
      driver.receivedLines.first
        == #"{"type":"session","session":"<uid>","resumed":"\#(checkpoint.uid)","resend_from":"#
        + ResumeLedger.written(checkpoint.t) + "}")
    #expect(!driver.eventLines.contains { $0.contains(#""type":"error""#) }, "\(driver.eventLines)")
    #expect(Recordings.summary(driver.receivedLines) == Self.uninterrupted)
    #expect(driver.records.count == 1)
    #expect(driver.records.first?.uid == driver.stream.uid)
  }

  /// Taken over mid-set on one daemon (its client reconnected while its old connection was
  /// still open), which then dies mid-set; resumed on another from the history's checkpoint:
  /// the client still holds the frames the checkpoint needs (it was told to keep those after
  /// the last resume point, not after the last frame counted), so no rep is counted twice.
  @Test func aSessionTakenOverThenCutMidSetCountsAsOneNeverCut() throws {
    let lines = Recordings.lines(
      "squat:8, rest:3, jumping_jack:12, rest:2, bicep_curl:8", seed: 6001)
    let times =
      [-Double.infinity] + lines.dropFirst().map { Recordings.object($0)!["t"] as! Double }
    func lineAfter(_ t: Double) -> Int { times.firstIndex { $0 > t }! }
    func keepsAfter(_ read: [String]) -> Double? {
      read.compactMap(Recordings.object)
        .filter { ["session", "checkpoint"].contains($0["type"] as? String) }
        .compactMap { $0["resend_from"] as? Double }.last
    }
    let whole = StreamDriver(runtime: Recordings.runtime)
    whole.send(Recordings.text(lines), chunk: 1500)
    whole.end()
    let expected = Recordings.summary(whole.receivedLines)
    let jacks = whole.receivedLines.compactMap(Recordings.object).filter {
      $0["type"] as? String == "rep" && $0["exercise"] as? String == "jumping_jack"
    }.compactMap { $0["t"] as? Double }
    try #require(jacks.count >= 8)

    let first = StreamDriver(runtime: Recordings.runtime)  // three jacks in, then silent
    first.send(Recordings.text(Array(lines[..<lineAfter(jacks[2] + 0.3)])), chunk: 1500)
    let id = try #require(first.stream.uid)
    var keep = try #require(keepsAfter(first.receivedLines))
    let second = StreamDriver(runtime: Recordings.runtime)  // the same daemon: taken over
    second.send(Recordings.text([Recordings.header(lines[0], #""resume":"\#(id)""#)]))
    #expect(second.takeOver(from: first))
    #expect(first.receivedLines.last?.contains("resumed on another connection") == true)
    second.send(
      Recordings.text(Array(lines[lineAfter(keep)..<lineAfter(jacks[6] + 0.3)])), chunk: 1500)
    keep = keepsAfter(second.receivedLines) ?? keep  // then this daemon dies
    let checkpoint = try #require(second.checkpoints.last)
    #expect(checkpoint.underWay?.exercise == "jumping_jack")
    #expect(
      keep <= Double(ResumeLedger.written(checkpoint.t))!,
      "the client keeps the frames after \(keep) s; the checkpoint resumes from \(checkpoint.t) s")
    let third = StreamDriver(runtime: Recordings.runtime)  // another daemon
    third.send(Recordings.text([Recordings.header(lines[0], #""resume":"\#(id)""#)]))
    third.answerClaim(.success(.resumed(checkpoint)))
    third.send(Recordings.text(Array(lines[lineAfter(keep)...])), chunk: 1500)
    third.end()
    #expect(!third.eventLines.contains { $0.contains(#""type":"error""#) }, "\(third.eventLines)")
    #expect(Recordings.summary(third.receivedLines) == expected)
  }

  /// A session that resumed a checkpoint is taken over before it counted a frame (its new
  /// connection broke at once): the client is told the checkpoint's point, resends all it kept,
  /// and the session counts as one never cut, nothing twice.
  @Test func aResumedSessionTakenOverBeforeItsFirstFrameCountsAsOneNeverCut() {
    let (checkpoint, _) = Self.interrupted(at: 0.55)
    let lines = Recordings.workout
    let resumer = StreamDriver(runtime: Recordings.runtime)
    resumer.send(Recordings.text([Recordings.header(lines[0], #""resume":"\#(checkpoint.uid)""#)]))
    resumer.answerClaim(.success(.resumed(checkpoint)))
    let id = resumer.stream.uid!
    let mover = StreamDriver(runtime: Recordings.runtime)
    mover.send(Recordings.text([Recordings.header(lines[0], #""resume":"\#(id)""#)]))
    #expect(mover.takeOver(from: resumer))
    #expect(
      mover.receivedLines.first?.hasSuffix(
        #""resend_from":"# + ResumeLedger.written(checkpoint.t) + "}") == true,
      "\(mover.receivedLines.first ?? "")")
    mover.send(Recordings.text(Array(lines.dropFirst())), chunk: 4096)
    mover.end()
    #expect(!mover.eventLines.contains { $0.contains(#""type":"error""#) }, "\(mover.eventLines)")
    #expect(Recordings.summary(mover.receivedLines) == Self.uninterrupted)
    #expect(mover.records.count == 1 && resumer.records.isEmpty)
  }

  /// A resume point is told to the millisecond, rounded down, however long the stream: the
  /// frames after it cover every frame after the point.
  @Test func resumePointsAreToldRoundedDown() {
    #expect(ResumeLedger.written(1234.5678) == "1234.567")
    #expect(ResumeLedger.written(141.367) == "141.367")
    #expect(ResumeLedger.written(12_345.6789) == "12345.678")
    #expect(ResumeLedger.written(0.0004) == "0.000")
  }

  /// A client that does not resend the frames after the checkpoint: the set under way keeps
  /// the checkpoint's reps, and the client is told.
  /// The fleet check's first workout (`spotter-bench fleet`: squats, jumping jacks, curls; its
  /// frames a camera's, at times off any 30 fps clock), cut wherever, resumed from the last
  /// checkpoint by a stream that gets every frame again, and that one cut 10 s later and
  /// resumed in turn: the summary is the uninterrupted one's. A resumed session keeps the first
  /// one's clock (`Session.startClock`), and so do its own checkpoints; on a clock of its own,
  /// a fraction of a tick off, a rep near its threshold could go either way.
  @Test func aStreamResumedWhereverItWasCutCountsAsOneNeverCut() throws {
    var options = RecordingOptions()
    options.camera = .front
    options.fps = 30
    let recording = Recorder.record(
      try WorkoutPlan.parse("squat:8, rest:3, jumping_jack:12, rest:2, bicep_curl:8"),
      options: options, seed: 6001)
    let lines =
      [recording.header.jsonLine]
      + recording.frames.map {
        PoseFileWriter.jsonFrameLine(
          t: $0.t, people: $0.pose.hasPerson ? [$0.pose] : [], header: recording.header)
      }
    let whole = StreamDriver(runtime: Recordings.runtime)
    whole.send(Recordings.text(lines), chunk: 1500)
    whole.end()
    let expected = Recordings.summary(whole.receivedLines)
    /// A stream resumed from `checkpoint` that gets the frames up to `cut` (all without one).
    func resumed(from checkpoint: Checkpoint, upTo cut: Int? = nil) -> StreamDriver {
      let stream = StreamDriver(runtime: Recordings.runtime)
      stream.send(Recordings.text([Recordings.header(lines[0], #""resume":"x""#)]), chunk: 1500)
      stream.answerClaim(.success(.resumed(checkpoint)))
      stream.send(Recordings.text(Array(lines[1..<(cut ?? lines.count)])), chunk: 1500)
      if cut == nil { stream.end() }
      return stream
    }
    var resumes = 0
    for cut in stride(from: 60, to: lines.count, by: 30) {
      let first = StreamDriver(runtime: Recordings.runtime)
      first.send(Recordings.text(Array(lines.prefix(cut))), chunk: 1500)
      guard let checkpoint = first.checkpoints.last else { continue }
      resumes += 1
      #expect(
        Recordings.summary(resumed(from: checkpoint).receivedLines) == expected,
        "cut at \(recording.frames[cut - 2].t) s, resumed from \(checkpoint.t) s")
      guard cut + 300 < lines.count,
        let again = resumed(from: checkpoint, upTo: cut + 300).checkpoints.last,
        again.t > checkpoint.t
      else { continue }
      #expect(
        Recordings.summary(resumed(from: again).receivedLines) == expected,
        "cut at \(recording.frames[cut - 2].t) s and 10 s later, resumed from \(again.t) s")
    }
    #expect(resumes > 40)
  }

  @Test func aClientThatDoesNotResendIsTold() throws {
    let (checkpoint, _) = Self.interrupted(at: 0.2)
    let underWay = try #require(checkpoint.underWay)
    let driver = StreamDriver(runtime: Recordings.runtime)
    let lines = Recordings.workout
    let later = lines.dropFirst().drop {
      (Recordings.object($0)?["t"] as? Double ?? 0) < checkpoint.t + 3
    }
    driver.send(
      Recordings.text([Recordings.header(lines[0], #""resume":"x""#)] + later), chunk: 4096)
    driver.answerClaim(.success(.resumed(checkpoint)))
    driver.end()
    let errors = driver.eventLines.filter { $0.contains(#""type":"error""#) }
    #expect(errors.count == 1)
    #expect(
      errors.first?.contains(
        "were not resent: the \(underWay.exercise) set under way keeps the \(underWay.count) reps"
      ) == true, "\(errors)")
    let stored = try #require(driver.records.first?.record)
    #expect(stored.sets.first?.exercise == underWay.exercise)
    #expect(stored.sets.first?.count == underWay.count)
  }

  /// A resume the history does not know, or cannot answer: a new session, with an error saying
  /// why (never quoting the id), and the held lines counted.
  @Test(arguments: [
    (Result<Checkpoint.Claim, HistoryError>.success(.unknown), "there is no such session"),
    (
      .failure(HistoryError(.database, location: "test", "the disk is gone")),
      "the history could not be asked for the session to resume"
    ),
  ])
  func aResumeThatCannotBeHonouredGoesOnAsANewSession(
    answer: Result<Checkpoint.Claim, HistoryError>, reason: String
  ) {
    let driver = StreamDriver(runtime: Recordings.runtime)
    var lines = Recordings.squats
    lines[0] = Recordings.header(lines[0], #""resume":"x-secret""#)
    driver.send(Recordings.text(lines), chunk: 4096)
    driver.answerClaim(answer)
    driver.end()
    #expect(driver.receivedLines.first == #"{"type":"session","session":"<uid>"}"#)
    let errors = driver.eventLines.filter { $0.contains(#""type":"error""#) }
    #expect(errors.count == 1 && errors[0].contains(reason), "\(errors)")
    #expect(errors.first?.contains("; the stream goes on as a new session") == true)
    #expect(!driver.receivedLines.contains { $0.contains("x-secret") })
    #expect(Recordings.summary(driver.receivedLines)["squat"] == 6)
    #expect(driver.records.count == 1)
  }

  /// A session resumed already, or ended: one client twice must not become two workouts. The
  /// stream is told why and ends, with no session, storing nothing; its lines are not handled.
  @Test(arguments: [
    (Checkpoint.Claim.resumedAlready(by: "other-secret"), "was resumed already"),
    (.finished, "has ended and is stored"),
  ])
  func aResumeOfASessionTakenOrEndedEndsTheStream(answer: Checkpoint.Claim, reason: String) {
    let driver = StreamDriver(runtime: Recordings.runtime)
    var lines = Recordings.squats
    lines[0] = Recordings.header(lines[0], #""resume":"x-secret""#)
    driver.send(Recordings.text(lines), chunk: 4096)
    driver.answerClaim(.success(answer))
    #expect(driver.stream.ended && !driver.stream.takesLines(pending: 0, written: 0))
    driver.end()
    #expect(driver.receivedLines.count == 1, "\(driver.receivedLines)")
    #expect(driver.receivedLines.first?.contains(reason) == true)
    #expect(!driver.receivedLines.contains { $0.contains("secret") })
    #expect(driver.records.isEmpty)
  }

  /// Resumed, and the connection ends before a frame after the checkpoint came: the set then
  /// under way keeps the checkpoint's reps, in the summary and the record, under the new
  /// session.
  @Test func aResumeEndedBeforeItsFirstFrameKeepsTheCheckpointsReps() {
    let (checkpoint, _) = Self.interrupted(at: 0.55)
    let kept =
      checkpoint.record.sets.reduce(0) { $0 + $1.count } + (checkpoint.underWay?.count ?? 0)
    #expect(kept > 0)
    let driver = StreamDriver(runtime: Recordings.runtime)
    let header = Recordings.header(
      Recordings.workout[0], #""resume":"\#(checkpoint.uid)""#)
    driver.send(Recordings.text([header]))
    driver.answerClaim(.success(.resumed(checkpoint)))
    driver.end()
    #expect(Recordings.summary(driver.receivedLines).values.reduce(0, +) == kept)
    #expect(driver.records.count == 1)
    #expect(driver.records.first?.uid == driver.stream.uid)
    #expect(driver.records.first?.record.sets.reduce(0) { $0 + $1.count } == kept)
  }

  /// A resume nobody can honour (no history here, no session live) that counts no frame
  /// stores nothing: no empty session.
  @Test func aResumeThatCountsNothingStoresNothing() {
    let driver = StreamDriver(
      runtime: Recordings.runtime, settings: StreamDriver.settings(keepsHistory: false))
    driver.send(Recordings.text([Recordings.header(Recordings.squats[0], #""resume":"x""#)]))
    driver.end()
    #expect(driver.receivedLines.contains { $0.contains("keeps no history") })
    #expect(driver.records.isEmpty)
  }

  /// A server with no history takes no checkpoints, and tells of none.
  @Test func noHistoryNoCheckpoints() {
    let driver = StreamDriver(
      runtime: Recordings.runtime, settings: StreamDriver.settings(keepsHistory: false))
    driver.send(Recordings.text(Recordings.workout), chunk: 4096)
    driver.end()
    #expect(driver.checkpoints.isEmpty)
    #expect(!driver.receivedLines.contains { $0.contains("checkpoint") })
    #expect(driver.records.count == 1)
  }
}
