import ActionModel
import Testing

@testable import TrainingData

@Suite struct TrainingDataTests {
  @Test func syntheticWindowsAreTheSameForASeedAndLabelledFromTheWorkout() {
    let a = DatasetBuilder.synthetic(count: 3, seed: 4, labels: Labels.all)
    let b = DatasetBuilder.synthetic(count: 3, seed: 4, labels: Labels.all)
    #expect(a.count > 50)
    #expect(a.windows == b.windows && a.labels == b.labels && a.groups == b.groups)
    let c = DatasetBuilder.synthetic(count: 3, seed: 5, labels: Labels.all)
    #expect(c.windows != a.windows)
    #expect(Set(a.groups) == [0, 1, 2])
    #expect(a.labels.contains(Labels.all.firstIndex(of: "other")!))
    #expect(a.windows.count == a.count * 60 * 54)
  }

  @Test func aSplitKeepsEachRecordingOnOneSide() {
    let set = DatasetBuilder.synthetic(count: 8, seed: 2, labels: Labels.all)
    let (train, held) = set.split(holdingOut: 0.4, seed: 1)
    #expect(train.count + held.count == set.count)
    #expect(Set(train.groups).isDisjoint(with: Set(held.groups)))
    #expect(held.count > 0 && train.count > 0)
  }
}
