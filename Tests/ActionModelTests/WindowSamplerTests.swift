import Randomness
import Testing

@testable import ActionModel

@Suite struct WindowSamplerTests {
  /// Class 0: 90 synthetic windows and 10 recorded; class 1: 50 synthetic only.
  struct Windows: TrainingWindows {
    var count: Int { 150 }
    func label(_ index: Int) -> Int { index < 100 ? 0 : 1 }
    func isRecorded(_ index: Int) -> Bool { index >= 90 && index < 100 }
    func copyWindow(_ index: Int, into target: UnsafeMutablePointer<Float>) {}
  }

  /// Of `draws` draws: how many of class 0, and how many of those recorded.
  static func tally(recordedWeight: Double, classWeights: [Double]? = nil, draws: Int = 20_000)
    -> (class0: Int, recorded: Int)
  {
    let sampler = WindowSampler(
      data: Windows(), classes: 2, classWeights: classWeights, recordedWeight: recordedWeight)
    var generator = SeededGenerator(seed: 7)
    var tally = (class0: 0, recorded: 0)
    for _ in 0..<draws {
      let index = sampler.draw(&generator)
      if index < 100 { tally.class0 += 1 }
      if Windows().isRecorded(index) { tally.recorded += 1 }
    }
    return tally
  }

  @Test func unweightedDrawsEveryWindowOfAClassAlike() {
    let tally = Self.tally(recordedWeight: 1)
    #expect(abs(Double(tally.class0) / 20_000 - 0.5) < 0.02)
    // 10 of class 0's 100 windows are recorded.
    #expect(abs(Double(tally.recorded) / Double(tally.class0) - 0.1) < 0.02)
  }

  @Test func aRecordedWindowIsDrawnWeightTimesAsOftenWithinItsClass() {
    // 9 × 10 recorded against 90 synthetic: half of class 0's draws.
    let tally = Self.tally(recordedWeight: 9)
    #expect(abs(Double(tally.class0) / 20_000 - 0.5) < 0.02)
    #expect(abs(Double(tally.recorded) / Double(tally.class0) - 0.5) < 0.03)
  }

  @Test func classWeightsStillShareTheDrawsBetweenClasses() {
    let tally = Self.tally(recordedWeight: 9, classWeights: [1, 3])
    #expect(abs(Double(tally.class0) / 20_000 - 0.25) < 0.02)
  }

  @Test func aWeightOfOneDrawsWhatTheSamplerAlwaysDrew() {
    // The recipe's weights stay bit for bit what they were: one uniform draw over the class.
    let sampler = WindowSampler(
      data: Windows(), classes: 2, classWeights: nil, recordedWeight: 1)
    var generator = SeededGenerator(seed: 3)
    var reference = SeededGenerator(seed: 3)
    for _ in 0..<1_000 {
      let label = reference.unit() < 0.5 ? 0 : 1
      let expected =
        label == 0
        ? Int(reference.next() % 100) : 100 + Int(reference.next() % 50)
      #expect(sampler.draw(&generator) == expected)
    }
  }
}
