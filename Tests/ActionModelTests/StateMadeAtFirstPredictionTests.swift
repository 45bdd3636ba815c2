import Linalg
import TestSupport
import Testing

@testable import ActionModel

/// A feature stream makes its network state at the first probabilities, from the window's
/// frames (`FeatureStream.streamState`): its probabilities are those of a state made at the
/// start and given every frame, bit for bit.
@Suite struct StateMadeAtFirstPredictionTests {
  static let configs: [NetworkConfig] = [
    .tiny(classes: 4), .standard(classes: 13),
    NetworkConfig(
      inputFeatures: 5, window: 12, convolutions: [.init(kernel: 2, dilation: 3, channels: 3)],
      classes: 2),
  ]

  /// First asked before, at and past the window's length and the forced catch-ups, then every
  /// frame, every 3 or every 10, in both precisions.
  @Test(arguments: configs, [1, 3, 10])
  func theStateMadeLateEqualsOneMadeAtTheStart(config: NetworkConfig, stride: Int) {
    let classifier = Fixtures.randomClassifier(config, seed: 61)
    let frames = Fixtures.randomFrames(400, features: config.inputFeatures, seed: 62)
    let window = config.window
    let firsts = [1, 9, 10, window - 1, window, window + 1, 31, 32, 33, 64, 95, 100, 127, 203]
    for precision in WeightPrecision.allCases {
      for first in firsts {
        let early = classifier.makeStream(precision: precision)
        let late = FeatureStream(classifier: classifier, precision: precision)
        var compared = 0
        for index in 0..<(first + 120) {
          frames[index].withUnsafeBufferPointer {
            early.push($0)
            late.push(features: $0)
          }
          let seen = index + 1
          guard seen == first || (seen > first && (seen - first) % stride == 0) else { continue }
          #expect(
            late.probabilities() == early.probabilities(),
            "first asked at \(first), \(seen) frames, \(precision)")
          // The state holds what it needs of the frames: the window keeps presence only.
          #expect(!late.window.keepsFeatures)
          compared += 1
        }
        #expect(compared > 10)
      }
    }
  }

  /// The pooled outputs read only the last T frames: the pooled columns and their receptive
  /// field span exactly the window, and streams that differ only before it agree bit for bit
  /// (and do not when they differ at its oldest frame).
  @Test(arguments: configs)
  func onlyTheWindowsFramesCount(config: NetworkConfig) {
    #expect(config.pooledFrames + config.receptiveField - 1 == config.window)
    let classifier = Fixtures.randomClassifier(config, seed: 71)
    let frames = Fixtures.randomFrames(150, features: config.inputFeatures, seed: 72)
    let other = frames.map { $0.map { $0 + 0.5 } }
    func probabilities(differingBefore cut: Int) -> [Float] {
      let stream = classifier.makeStream()
      for index in 0..<150 {
        (index < cut ? other : frames)[index].withUnsafeBufferPointer { stream.push($0) }
        if index % 10 == 9 { _ = stream.probabilities() }
      }
      return stream.probabilities()
    }
    let reference = probabilities(differingBefore: 0)
    #expect(probabilities(differingBefore: 150 - config.window) == reference)
    #expect(probabilities(differingBefore: 150 - config.window + 1) != reference)
  }
}
