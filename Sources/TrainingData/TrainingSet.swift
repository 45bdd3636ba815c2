import ActionModel
import Foundation
import MotionSynth
import Poses
import Randomness

/// Windows of features with labels, ready for the trainer: what the runtime would have seen
/// at the moment it made each prediction.
public struct TrainingSet: Sendable {
  public let window: Int
  public let features: Int
  /// (N, T, F), window after window.
  public private(set) var windows: [Float] = []
  public private(set) var labels: [Int] = []
  /// Which recording or clip each window came from, for splits that keep a person (or clip)
  /// on one side.
  public private(set) var groups: [Int] = []

  public init(window: Int = 60, features: Int = FeatureSpec.featuresPerFrame) {
    self.window = window
    self.features = features
  }

  public var count: Int { labels.count }

  mutating func append(_ frames: ArraySlice<Float>, label: Int, group: Int) {
    precondition(frames.count == window * features)
    windows += frames
    labels.append(label)
    groups.append(group)
  }

  /// Appends another set's windows; `groupOffset` keeps its groups apart from this set's.
  public mutating func append(contentsOf other: TrainingSet, groupOffset: Int = 0) {
    windows += other.windows
    labels += other.labels
    groups += other.groups.map { $0 + groupOffset }
  }

  /// Windows per label index, for balancing and reports.
  public func counts(classes: Int) -> [Int] {
    var counts = [Int](repeating: 0, count: classes)
    for label in labels { counts[label] += 1 }
    return counts
  }

  /// Splits by group: `fraction` of the groups (at least one, when there are two or more and
  /// the fraction is above 0), chosen by `seed`, go to the second set.
  public func split(holdingOut fraction: Double, seed: UInt64) -> (TrainingSet, TrainingSet) {
    var generator = SeededGenerator(seed: seed)
    var order = Set(groups).sorted()
    // Fisher–Yates with the seeded generator.
    for index in stride(from: order.count - 1, to: 0, by: -1) {
      order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
    }
    var count = Int((Double(order.count) * fraction).rounded())
    if fraction > 0 && order.count >= 2 { count = min(max(count, 1), order.count - 1) }
    var heldOut: [Int: Bool] = [:]
    for (index, group) in order.enumerated() { heldOut[group] = index < count }
    var train = TrainingSet(window: window, features: features)
    var test = TrainingSet(window: window, features: features)
    let size = window * features
    for index in labels.indices {
      let slice = windows[index * size..<(index + 1) * size]
      if heldOut[groups[index]]! {
        test.append(slice, label: labels[index], group: groups[index])
      } else {
        train.append(slice, label: labels[index], group: groups[index])
      }
    }
    return (train, test)
  }

  /// Features of a whole stream of ticks, computed frame by frame as the runtime does.
  static func features(of ticks: [Pose], spec: FeatureSpec) -> [Float] {
    var extractor = FeatureExtractor(spec: spec)
    var out = [Float](repeating: 0, count: ticks.count * FeatureSpec.featuresPerFrame)
    out.withUnsafeMutableBufferPointer { buffer in
      for (index, pose) in ticks.enumerated() {
        extractor.extract(
          pose, into: UnsafeMutableBufferPointer(rebasing: buffer[index * 54..<(index + 1) * 54]))
      }
    }
    return out
  }

  /// The window ending at frame `end` (inclusive), zero-padded before frame 0.
  static func window(ending end: Int, in features: [Float], window: Int) -> ArraySlice<Float> {
    let width = FeatureSpec.featuresPerFrame
    let start = end - window + 1
    if start >= 0 { return features[start * width..<(end + 1) * width] }
    return ArraySlice(
      [Float](repeating: 0, count: -start * width) + features[0..<(end + 1) * width])
  }
}
