import Testing

@testable import Spotter

@Suite struct EvaluationTests {
  /// A hand-made example: three labels, five clips, known windows and reps.
  @Test func theArithmeticOfAHandMadeExample() {
    var report = EvaluationReport(labels: ["squat", "lunge", "other"])
    let squat: [Float] = [0.8, 0.1, 0.1]
    let lunge: [Float] = [0.2, 0.7, 0.1]
    let other: [Float] = [0.1, 0.1, 0.8]
    // Clip 1, squat: windows squat, squat, lunge → mean says squat.
    report.addClip(truth: "squat", windows: [squat, squat, lunge], scores: [0.6, 0.3, 0.1])
    // Clip 2, squat: windows lunge, lunge → lunge.
    report.addClip(truth: "squat", windows: [lunge, lunge], scores: [0.2, 0.7, 0.1])
    // Clip 3, lunge: right.
    report.addClip(truth: "lunge", windows: [lunge], scores: [0.2, 0.7, 0.1])
    // Clip 4, other: right.
    report.addClip(truth: "other", windows: [other, other], scores: [0.1, 0.1, 0.8])
    // Clip 5: a label the model does not know.
    report.addClip(truth: "burpee", windows: [other], scores: [0.1, 0.1, 0.8])
    #expect(report.clips == 4)
    #expect(report.clipAccuracy == 0.75)
    #expect(report.windowsTotal == 8)
    #expect(report.windowsCorrect == 2 + 0 + 1 + 2)
    #expect(report.confusion == [[1, 1, 0], [0, 1, 0], [0, 0, 1]])
    #expect(report.precision(0) == 1)  // one squat predicted, right
    #expect(report.recall(0) == 0.5)  // two squats, one found
    #expect(report.precision(1) == 0.5)
    #expect(report.recall(1) == 1)
    #expect(report.unknownLabels == ["burpee": 1])

    report.addReps(label: "squat", counted: 10, truth: 10)
    report.addReps(label: "squat", counted: 9, truth: 12)  // |9 − 12| / 12 = 0.25
    report.addReps(label: "lunge", counted: 5, truth: 4)  // 0.25
    report.addReps(label: "lunge", counted: 0, truth: 0)  // no scale: left out of the MAE
    let squats = report.repError(for: "squat")!
    #expect(squats.clips == 2 && abs(squats.mae - 0.125) < 1e-12 && squats.offByOne == 0.5)
    let lunges = report.repError(for: "lunge")!
    #expect(lunges.clips == 2 && abs(lunges.mae - 0.25) < 1e-12 && lunges.offByOne == 1)
    let all = report.repError()!
    #expect(all.clips == 4 && abs(all.mae - 0.5 / 3) < 1e-12 && all.offByOne == 0.75)
  }
}
