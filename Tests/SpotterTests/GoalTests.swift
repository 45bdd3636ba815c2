import Testing

@testable import Spotter

@Suite struct GoalTests {
  @Test(arguments: [
    ("20", nil, Goal.Target.reps(20)), ("squat:20", "squat", .reps(20)),
    ("60s", nil, .seconds(60)), ("lunge:45s", "lunge", .seconds(45)),
    ("squat:2.5s", "squat", .seconds(2.5)),
  ])
  func goalsAreReadAndWrittenBack(_ text: String, _ exercise: String?, _ target: Goal.Target) {
    let goal = Goal(text)
    #expect(goal == Goal(exercise: exercise, target: target))
    #expect(goal?.description == text)
  }

  @Test(arguments: ["", "squat:", ":20", "0", "-3", "squat:0s", "twenty", "a:b:3"])
  func badGoalsAreRefused(_ text: String) {
    #expect(Goal(text) == nil)
  }

  /// A state machine's view: the goal ends the set, and the same exercise starts again only
  /// after the classifier has seen something else.
  @Test func aHeldLabelStartsAgainOnlyAfterSomethingElse() {
    var smoother = LabelSmoother(options: LabelSmootherTests.dwellOfThree, otherLabel: 2)
    var changes: [String] = []
    func observe(_ label: Int, _ t: Double) {
      let change = smoother.observe(label: label, confidence: 0.9, t: t)
      if let ended = change.ended { changes.append("end \(ended.label)") }
      if let started = change.started { changes.append("start \(started.label)") }
    }
    for t in 0..<5 { observe(0, Double(t)) }
    smoother.endAndHold()
    for t in 5..<12 { observe(0, Double(t)) }
    #expect(changes == ["start 0"])
    observe(2, 12)
    for t in 13..<17 { observe(0, Double(t)) }
    #expect(changes == ["start 0", "start 0"])
  }
}
