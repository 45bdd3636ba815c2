import ActionModel
import Randomness
import Testing

@testable import Training

@Suite struct WindowSamplerTests {
  /// Class 0: 90 synthetic windows and 10 recorded; class 1: 50 synthetic; class 2: 20 recorded.
  struct Windows: TrainingWindows {
    var count: Int { 170 }
    func label(_ index: Int) -> Int { index < 100 ? 0 : index < 150 ? 1 : 2 }
    func isRecorded(_ index: Int) -> Bool { (index >= 90 && index < 100) || index >= 150 }
    func copyWindow(_ index: Int, into target: UnsafeMutablePointer<Float>) {}
  }

  /// Of `draws` draws, per class: how many, and how many of those recorded.
  static func tally(recordedWeight: Double, classWeights: [Double]? = nil, draws: Int = 30_000)
    -> [(drawn: Int, recorded: Int)]
  {
    let sampler = WindowSampler(
      data: Windows(), classes: 3, classWeights: classWeights, recordedWeight: recordedWeight)
    var generator = SeededGenerator(seed: 7)
    var tally = [(drawn: Int, recorded: Int)](repeating: (0, 0), count: 3)
    for _ in 0..<draws {
      let index = sampler.draw(&generator)
      let label = Windows().label(index)
      tally[label].drawn += 1
      if Windows().isRecorded(index) { tally[label].recorded += 1 }
    }
    return tally
  }

  static func share(_ part: Int, of whole: Int) -> Double { Double(part) / Double(whole) }

  @Test func unweightedDrawsEveryWindowOfAClassAlike() {
    let tally = Self.tally(recordedWeight: 1)
    for label in 0..<3 { #expect(abs(Self.share(tally[label].drawn, of: 30_000) - 1.0 / 3) < 0.02) }
    // 10 of class 0's 100 windows are recorded.
    #expect(abs(Self.share(tally[0].recorded, of: tally[0].drawn) - 0.1) < 0.02)
  }

  @Test func aRecordedWindowIsDrawnWeightTimesAsOftenWithinItsClass() {
    // 9 × 10 recorded against 90 synthetic: half of class 0's draws. Classes of one kind only
    // draw that kind, and the classes' shares do not move.
    let tally = Self.tally(recordedWeight: 9)
    for label in 0..<3 { #expect(abs(Self.share(tally[label].drawn, of: 30_000) - 1.0 / 3) < 0.02) }
    #expect(abs(Self.share(tally[0].recorded, of: tally[0].drawn) - 0.5) < 0.03)
    #expect(tally[1].recorded == 0 && tally[2].recorded == tally[2].drawn)
  }

  @Test func classWeightsStillShareTheDrawsBetweenClasses() {
    let tally = Self.tally(recordedWeight: 9, classWeights: [1, 3, 1])
    #expect(abs(Self.share(tally[1].drawn, of: 30_000) - 0.6) < 0.02)
  }

  /// A recipe that does not weight draws what it drew before the weight existed: one uniform
  /// choice over the class, so the shipped recipe's weights come out bit for bit the same.
  @Test func aWeightOfOneIsOneUniformDrawOverTheClass() {
    let sampler = WindowSampler(data: Windows(), classes: 3, classWeights: nil, recordedWeight: 1)
    var generator = SeededGenerator(seed: 3)
    var reference = SeededGenerator(seed: 3)
    let classes = [(first: 0, count: 100), (first: 100, count: 50), (first: 150, count: 20)]
    for _ in 0..<1_000 {
      let u = reference.unit()
      let label = u < 1.0 / 3 ? 0 : u < 2.0 / 3 ? 1 : 2
      let expected = classes[label].first + Int(reference.next() % UInt64(classes[label].count))
      #expect(sampler.draw(&generator) == expected)
    }
  }
}
