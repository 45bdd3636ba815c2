import Linalg
import TestSupport
import Testing

@testable import ActionModel

/// Streams caught up together (`StreamState.catchUp(together:)`, the daemon's due predictions)
/// give each stream's own probabilities, bit for bit.
@Suite struct StreamsCaughtUpTogetherTests {
  /// Five streams asked at different paces (so their pending counts differ and only some join
  /// a group), in both precisions, against the same streams caught up alone.
  @Test(arguments: [NetworkConfig.tiny(classes: 4), .standard(classes: 13)])
  func streamsCaughtUpTogetherEqualEachAlone(config: NetworkConfig) {
    let classifier = Fixtures.randomClassifier(config, seed: 41)
    let paces = [10, 10, 7, 10, 3]
    let frames = paces.indices.map {
      Fixtures.randomFrames(200, features: config.inputFeatures, seed: 50 + UInt64($0))
    }
    for precision in WeightPrecision.allCases {
      let together = paces.map { _ in classifier.makeStream(precision: precision) }
      let alone = paces.map { _ in classifier.makeStream(precision: precision) }
      var groups = 0
      for index in 0..<200 {
        for stream in paces.indices {
          frames[stream][index].withUnsafeBufferPointer {
            together[stream].push($0)
            alone[stream].push($0)
          }
        }
        let due = paces.indices.filter { index % paces[$0] == paces[$0] - 1 }
        guard !due.isEmpty else { continue }
        if due.filter({ together[$0].pendingFrames == together[due[0]].pendingFrames }).count > 1 {
          groups += 1
        }
        StreamState.catchUp(together: due.map { together[$0] })
        for stream in due {
          #expect(together[stream].probabilities() == alone[stream].probabilities())
        }
      }
      #expect(groups > 10)
    }
  }
}
