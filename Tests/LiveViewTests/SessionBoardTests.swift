import Foundation
import Poses
import RepCounting
import Spotter
import Testing

@testable import LiveView

/// What the page is sent, from the session's events and frames.
@Suite struct SessionBoardTests {
  static func state(_ board: SessionBoard) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(board.state().utf8)) as? [String: Any])
  }

  static func rep(_ count: Int, at t: Double) -> SpotterEvent {
    .rep(
      t: t, exercise: "squat",
      rep: Rep(
        count: count, start: t - 1, end: t, rangeOfMotion: 0.5, timeDown: 0.5, timeUp: 0.5),
      backfilled: false)
  }

  @Test func theCountFollowsTheSetUnderWayAndTheSetsAreListed() throws {
    let board = SessionBoard(source: "a camera", pictured: false, imageSize: nil)
    board.take(.exerciseStarted(t: 1, exercise: "squat", confidence: 0.9))
    board.take(Self.rep(1, at: 2))
    board.take(Self.rep(2, at: 3))
    board.take(.cue(t: 3, exercise: "squat", message: "Go deeper"))
    var state = try Self.state(board)
    #expect(state["exercise"] as? String == "squat" && state["count"] as? Int == 2)
    #expect(state["cue"] as? String == "Go deeper" && state["status"] as? String == "live")
    board.take(.exerciseEnded(t: 5, exercise: "squat", reps: 2))
    board.take(.exerciseStarted(t: 7, exercise: "lunge", confidence: 0.8))
    state = try Self.state(board)
    #expect(state["exercise"] as? String == "lunge" && state["count"] as? Int == 0)
    let sets = try #require(state["sets"] as? [[String: Any]])
    #expect(sets.map { $0["exercise"] as? String } == ["squat", "lunge"])
    #expect(sets.map { $0["reps"] as? Int } == [2, 0])
    #expect(sets.map { $0["open"] as? Bool } == [false, true])
    board.end(failure: "the camera failed")
    state = try Self.state(board)
    #expect(state["status"] as? String == "failed")
    #expect(state["message"] as? String == "the camera failed")
  }

  /// A camera's poses are shown only with the picture they were found in.
  @Test func aPicturedBoardShowsPosesOnlyWithTheirPictures() {
    let board = SessionBoard(source: "a camera", pictured: true, imageSize: (640, 480))
    var pose = Pose()
    pose[.nose] = Joint(x: 10, y: 20, confidence: 1)
    board.take(people: [pose], t: 1, picture: nil)
    #expect(board.frameVersion == 0)
    board.take(people: [pose], t: 2, picture: Data([0xFF, 0xD8, 0xFF, 0xD9]))
    let update = board.wait(after: SessionBoard.Seen(), timeout: 0)
    #expect(update.frame?.contains("\"jpeg\":\"\\/9j\\/2Q==\"") == true, "\(update.frame ?? "")")
    #expect(update.frame?.contains("[10,20]") == true)
    #expect(update.frame?.contains("\"size\":[640,480]") == true)
    // Sent once: the next update of the same picture leaves it out.
    board.take(.presence(t: 3, present: false))
    let next = board.wait(after: update.seen, timeout: 0)
    #expect(next.frame == nil && next.state != nil)
  }
}
