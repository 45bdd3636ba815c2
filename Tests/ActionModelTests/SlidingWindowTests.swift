import TestSupport
import Testing

@testable import ActionModel

/// Windows that slide, predicted from their new frames only (`SlidingWindowState`), equal the
/// window pass: whatever the step between windows (none, one frame, the runtime's 10, more than
/// the 32 that may wait, a whole window or more) and however many streams share a batch.
@Suite struct SlidingWindowTests {
  @Test(arguments: [NetworkConfig.tiny(classes: 4), .standard(classes: 13)])
  func slidingWindowsEqualTheWindowPass(config: NetworkConfig) {
    let classifier = Fixtures.randomClassifier(config, seed: 9)
    let streams = 3
    let states = (0..<streams).map { _ in SlidingWindowState(classifier: classifier) }
    let workspace = Workspace(for: classifier, tile: 1, strategy: .shiftedGEMM)
    var frames = (0..<streams).map {
      Fixtures.randomFrames(700, features: config.inputFeatures, seed: UInt64(40 + $0))
    }
    // A run of nobody longer than the window: all-zero frames slide onto themselves.
    for index in 300..<(300 + config.window + 20) {
      frames[1][index] = [Float](repeating: 0, count: config.inputFeatures)
    }
    let steps = [10, 10, 1, 0, 10, 45, 10, 61, 3, 10, 10, 200, 10, 10, 33, 10, 0, 10]
    var end = config.window
    var worst: Float = 0
    for step in steps {
      end += step
      // Each stream's window ends `stream` frames apart, so streams differ within a batch.
      let windows = (0..<streams).flatMap { stream in
        frames[stream][(end - config.window - stream)..<(end - stream)].flatMap { $0 }
      }
      var batched = [Float](repeating: 0, count: streams * config.classes)
      var alone = [Float](repeating: 0, count: streams * config.classes)
      windows.withUnsafeBufferPointer { input in
        batched.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: streams, into: $0, states: states)
        }
        alone.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: streams, into: $0, workspace: workspace)
        }
      }
      worst = max(worst, Approximate.maxDifference(batched, alone))
    }
    #expect(worst <= 1e-5)
  }

  @Test func theNewFramesAreFoundByTheirShift() {
    let config = NetworkConfig.tiny(classes: 4)
    let classifier = Fixtures.randomClassifier(config, seed: 9)
    let state = SlidingWindowState(classifier: classifier)
    let frames = Fixtures.randomFrames(200, features: config.inputFeatures, seed: 1)
    func window(endingAt end: Int) -> [Float] { frames[(end - config.window)..<end].flatMap { $0 } }
    var probabilities = [Float](repeating: 0, count: config.classes)
    func new(_ end: Int) -> Int {
      let window = window(endingAt: end)
      let count = window.withUnsafeBufferPointer {
        state.newFrames(in: $0.baseAddress!, frames: config.window, features: config.inputFeatures)
      }
      window.withUnsafeBufferPointer { input in
        probabilities.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: 1, into: $0, states: [state])
        }
      }
      return count
    }
    #expect(new(60) == config.window)  // the first window is all new
    #expect(new(70) == 10)
    #expect(new(70) == 0)
    #expect(new(71) == 1)
    #expect(new(190) == config.window)  // nothing shared
  }
}
