import Linalg
import TestSupport
import Testing

@testable import ActionModel

/// Every fast path against the naive reference, with stated tolerances.
@Suite struct ClassifierTests {
  static let configs: [NetworkConfig] = [
    .tiny(classes: 4),
    .standard(classes: 13),
    NetworkConfig(
      inputFeatures: 5, window: 12, convolutions: [.init(kernel: 2, dilation: 3, channels: 3)],
      classes: 2),
  ]

  static func flat(_ frames: [[Float]]) -> [Float] { frames.flatMap { $0 } }

  @Test(arguments: configs, ConvolutionStrategy.allCases)
  func eachLayerMatchesTheNaiveConvolution(config: NetworkConfig, strategy: ConvolutionStrategy) {
    let classifier = Fixtures.randomClassifier(config, seed: 11)
    let parameters = classifier.parameters
    let window = Fixtures.randomFrames(config.window, features: config.inputFeatures, seed: 3)
    let workspace = Workspace(for: classifier, tile: 1, strategy: strategy)
    var probabilities = [Float](repeating: 0, count: config.classes)
    Self.flat(window).withUnsafeBufferPointer { input in
      probabilities.withUnsafeMutableBufferPointer {
        classifier.predict(windows: input, count: 1, into: $0, workspace: workspace)
      }
    }
    var reference = window.map { $0.map(Double.init) }
    for (index, layer) in config.convolutions.enumerated() {
      reference = NaiveNetwork.convolution(
        reference,
        weight: parameters.convolution(index).weight,
        bias: parameters.convolution(index).bias,
        kernel: layer.kernel, dilation: layer.dilation)
      // The window's own frames come after the lead frames' (dropped before pooling).
      let (frames, lead) = (config.outputFrames(of: index), classifier.leadFrames)
      let fast = (0..<frames).map { t in
        (0..<layer.channels).map {
          workspace.activations[index + 1][(lead + t) * layer.channels + $0]
        }
      }
      let scale = Float(reference.flatMap { $0 }.map(abs).max() ?? 1)
      #expect(
        Approximate.maxDifference(fast.flatMap { $0 }, reference.flatMap { $0 }.map(Float.init))
          <= 1e-5 * max(scale, 1), "layer \(index)")
    }
    let naive = NaiveNetwork.forward(window, parameters: parameters).map(Float.init)
    #expect(Approximate.maxDifference(probabilities, naive) < 1e-5)
    #expect(abs(probabilities.reduce(0, +) - 1) < 1e-5)
  }

  @Test(arguments: configs, ConvolutionStrategy.allCases)
  func aBatchEqualsEachWindowAlone(config: NetworkConfig, strategy: ConvolutionStrategy) {
    let classifier = Fixtures.randomClassifier(config, seed: 5)
    let batch = 9
    let windows = (0..<batch).map {
      Fixtures.randomFrames(config.window, features: config.inputFeatures, seed: UInt64(100 + $0))
    }
    let workspace = Workspace(for: classifier, tile: 16, strategy: strategy)
    var probabilities = [Float](repeating: 0, count: batch * config.classes)
    Self.flat(windows.flatMap { $0 }).withUnsafeBufferPointer { input in
      probabilities.withUnsafeMutableBufferPointer {
        classifier.predict(windows: input, count: batch, into: $0, workspace: workspace)
      }
    }
    for (index, window) in windows.enumerated() {
      let naive = NaiveNetwork.forward(window, parameters: classifier.parameters).map(Float.init)
      let row = Array(probabilities[index * config.classes..<(index + 1) * config.classes])
      #expect(Approximate.maxDifference(row, naive) < 1e-5, "window \(index)")
    }
  }

  /// Asked every frame, every 7 frames, and every 45 (past the 32 frames that may wait), with
  /// the step's weights in single precision (within 1e-5 of the window pass) and in half
  /// precision (each weight rounded to 11 significant bits: within 2e-3).
  @Test(arguments: configs, [1, 7, 45])
  func streamingEqualsTheWindowForwardPass(config: NetworkConfig, askEvery: Int) {
    for precision in WeightPrecision.allCases {
      streaming(config: config, precision: precision) { $0 % askEvery == askEvery - 1 }
    }
  }

  /// Asked every 10 frames (catch-ups only, as a server's batched sessions are), then every
  /// frame: the step's running sums, made at its first step, are built then from histories
  /// well into the stream.
  @Test(arguments: configs)
  func stepsAfterCatchUpsEqualTheWindowForwardPass(config: NetworkConfig) {
    for precision in WeightPrecision.allCases {
      streaming(config: config, precision: precision) { $0 < 200 ? $0 % 10 == 9 : true }
    }
  }

  /// Asked after 1, 1, 2, 1, 10, 1, 1, 5, 1 … frames: the one-frame step and catch-ups of
  /// several frames take turns, so the step's running sums are rebuilt from the histories.
  @Test(arguments: configs)
  func streamingAskedIrregularlyEqualsTheWindowForwardPass(config: NetworkConfig) {
    let gaps = [1, 1, 2, 1, 10, 1, 1, 5, 1, 3]
    for precision in WeightPrecision.allCases {
      streaming(config: config, precision: precision) { index in
        (0..<gaps.count).contains { index % 25 == gaps[0...$0].reduce(0, +) - 1 }
      }
    }
  }

  /// Streams 400 frames, asking for probabilities after frame `index` where `asked(index)`;
  /// each equals the window pass within the tolerance of `precision`.
  func streaming(
    config: NetworkConfig, precision: WeightPrecision, asked: (_ index: Int) -> Bool
  ) {
    let classifier = Fixtures.randomClassifier(config, seed: 21)
    let stream = classifier.makeStream(precision: precision)
    let workspace = Workspace(for: classifier, tile: 1)
    // A long stream with runs of nobody, including one longer than the window.
    var frames = Fixtures.randomFrames(400, features: config.inputFeatures, seed: 8)
    for index in 150..<(150 + config.window + 5) {
      frames[index] = [Float](repeating: 0, count: config.inputFeatures)
    }
    var streamed = [Float](repeating: 0, count: config.classes)
    var windowed = [Float](repeating: 0, count: config.classes)
    var worst: Float = 0
    for (index, frame) in frames.enumerated() {
      frame.withUnsafeBufferPointer { stream.push($0) }
      guard asked(index) else { continue }
      streamed.withUnsafeMutableBufferPointer { stream.probabilities(into: $0) }
      // The window forward pass over the last T frames, zero-padded at the start.
      let start = index + 1 - config.window
      let window = (start...index).map {
        $0 >= 0 ? frames[$0] : [Float](repeating: 0, count: config.inputFeatures)
      }
      Self.flat(window).withUnsafeBufferPointer { input in
        windowed.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: 1, into: $0, workspace: workspace)
        }
      }
      worst = max(worst, Approximate.maxDifference(streamed, windowed))
    }
    #expect(worst <= (stream.precision == .half ? 2e-3 : 1e-5), "\(precision)")
    #expect(stream.framesSeen == frames.count)
  }

  @Test func resetStartsTheStreamAgain() {
    let config = NetworkConfig.tiny(classes: 3)
    let classifier = Fixtures.randomClassifier(config, seed: 2)
    let stream = classifier.makeStream()
    let fresh = stream.probabilities()
    for frame in Fixtures.randomFrames(90, features: config.inputFeatures, seed: 1) {
      frame.withUnsafeBufferPointer { stream.push($0) }
    }
    stream.reset()
    let again = stream.probabilities()
    #expect(fresh == again)
    #expect(stream.framesSeen == 0)
    // Before any frame, the stream sees a window of nobody.
    let zeros = [Float](repeating: 0, count: config.window * config.inputFeatures)
    #expect(Approximate.maxDifference(classifier.predict(window: zeros), fresh) <= 1e-6)
  }

  /// Three streams stepped in lockstep by one state (each GEMM over the three): each equals
  /// the window pass over its own frames, within the tolerance of one stream (1e-5 single,
  /// 2e-3 half), asked every frame, every 7, and irregularly.
  @Test(arguments: configs, [1, 7, 0])
  func streamsInLockstepEachEqualTheWindowForwardPass(config: NetworkConfig, askEvery: Int) {
    let classifier = Fixtures.randomClassifier(config, seed: 23)
    let workspace = Workspace(for: classifier, tile: 1)
    let count = 3
    let frames = (0..<count).map {
      Fixtures.randomFrames(150, features: config.inputFeatures, seed: 30 + UInt64($0))
    }
    let gaps = [1, 1, 2, 1, 10, 1, 1, 5, 1, 3]
    for precision in WeightPrecision.allCases {
      let state = classifier.makeStream(streams: count, precision: precision)
      var windowed = [Float](repeating: 0, count: config.classes)
      var worst: Float = 0
      for index in 0..<frames[0].count {
        Self.flat(frames.map { $0[index] }).withUnsafeBufferPointer { state.push($0) }
        let asked =
          askEvery > 0
          ? index % askEvery == askEvery - 1
          : (0..<gaps.count).contains { index % 25 == gaps[0...$0].reduce(0, +) - 1 }
        guard asked else { continue }
        let streamed = state.probabilities()
        for stream in 0..<count {
          let window = ((index + 1 - config.window)...index).map {
            $0 >= 0 ? frames[stream][$0] : [Float](repeating: 0, count: config.inputFeatures)
          }
          Self.flat(window).withUnsafeBufferPointer { input in
            windowed.withUnsafeMutableBufferPointer {
              classifier.predict(windows: input, count: 1, into: $0, workspace: workspace)
            }
          }
          let row = Array(streamed[stream * config.classes..<(stream + 1) * config.classes])
          worst = max(worst, Approximate.maxDifference(row, windowed))
        }
      }
      #expect(worst <= (state.precision == .half ? 2e-3 : 1e-5), "\(precision)")
    }
  }

  /// A reset in the middle of one-frame steps (running sums valid, histories part-shifted)
  /// starts the stream over: asked every frame after it, it equals the window pass over the
  /// frames since, zero-padded, within 1e-5 (single precision).
  @Test(arguments: configs)
  func aResetMidStreamEqualsTheWindowPassAfterIt(config: NetworkConfig) {
    let classifier = Fixtures.randomClassifier(config, seed: 4)
    let stream = classifier.makeStream(precision: .single)
    let workspace = Workspace(for: classifier, tile: 1)
    for frame in Fixtures.randomFrames(77, features: config.inputFeatures, seed: 3) {
      frame.withUnsafeBufferPointer { stream.push($0) }
      _ = stream.probabilities()
    }
    stream.reset()
    let frames = Fixtures.randomFrames(90, features: config.inputFeatures, seed: 6)
    var windowed = [Float](repeating: 0, count: config.classes)
    var worst: Float = 0
    for (index, frame) in frames.enumerated() {
      frame.withUnsafeBufferPointer { stream.push($0) }
      let window = ((index + 1 - config.window)...index).map {
        $0 >= 0 ? frames[$0] : [Float](repeating: 0, count: config.inputFeatures)
      }
      Self.flat(window).withUnsafeBufferPointer { input in
        windowed.withUnsafeMutableBufferPointer {
          classifier.predict(windows: input, count: 1, into: $0, workspace: workspace)
        }
      }
      worst = max(worst, Approximate.maxDifference(stream.probabilities(), windowed))
    }
    #expect(worst <= 1e-5)
  }

  @Test func batchNormFoldsIntoTheConvolution() {
    // y = W x + b, then BN, equals the folded W' x + b'.
    let weight: [Float] = [0.5, -1, 2, 0.25, 1.5, -0.75]  // (k 1, C_in 3, C_out 2)
    let bias: [Float] = [0.1, -0.2]
    let (gamma, beta, mean, variance): ([Float], [Float], [Float], [Float]) = (
      [1.5, 0.5], [0.2, -0.1], [0.3, -0.4], [2, 0.5]
    )
    let x: [Float] = [1, -2, 0.5]
    func convolve(_ w: [Float], _ b: [Float]) -> [Float] {
      (0..<2).map { o in b[o] + (0..<3).reduce(0) { $0 + x[$1] * w[$1 * 2 + o] } }
    }
    let plain = convolve(weight, bias)
    let normalised: [Float] = (0..<2).map { c in
      let scale: Float = gamma[c] / (variance[c] + 1e-5).squareRoot()
      return scale * (plain[c] - mean[c]) + beta[c]
    }
    var (w, b) = (weight, bias)
    BatchNormFolding.fold(
      weight: &w, bias: &b, gamma: gamma, beta: beta, mean: mean, variance: variance)
    #expect(Approximate.maxDifference(convolve(w, b), normalised) < 1e-5)
  }

  @Test func configurationArithmetic() {
    let config = NetworkConfig.standard(classes: 13)
    #expect(config.receptiveField == 31)
    #expect(config.pooledFrames == 30)
    #expect(config.outputFrames(of: 0) == 58)
    #expect(
      config.parameterCount == 54 * 3 * 96 + 96 + 96 * 3 * 128 + 128 + 2 * (128 * 3 * 128 + 128)
        + 128 * 13 + 13)
    #expect(config.flopsPerWindow / config.flopsPerStreamStep > 20)
    #expect(
      NetworkConfig(inputFeatures: 54, window: 20, convolutions: config.convolutions, classes: 13)
        .problem != nil)
  }
}

@Suite struct WinogradPlanTests {
  /// Tiles of `width` frames d apart, and along each residue mod d the frames left past whole
  /// tiles (fewer than `width`, at its end) computed directly: each frame once.
  @Test(arguments: [2, 4], [(58, 1), (56, 2), (50, 4), (30, 8), (8, 5), (1, 2), (7, 1), (0, 3)])
  func everyOutputFrameIsComputedExactlyOnce(width: Int, shape: (frames: Int, dilation: Int)) {
    let (frames, d) = shape
    let tiling = WinogradTiling(outputFrames: frames, dilation: d, width: width)
    let tiled = tiling.tileStarts.flatMap { start in (0..<width).map { start + $0 * d } }
    #expect((tiled + tiling.singles).sorted() == Array(0..<frames))
    #expect(tiling.singleRuns.flatMap { $0.start..<($0.start + $0.count) } == tiling.singles)
    for residue in 0..<min(d, frames) {
      let members = Array(stride(from: residue, to: frames, by: d))
      let left = members.count % width
      #expect(tiling.singles.filter { $0 % d == residue } == Array(members.suffix(left)))
    }
  }

  /// The lead frames ahead of a window leave no frame of the shipped shape's layers to be
  /// computed alone; a shape that no lead tiles whole gets none.
  @Test func leadFramesTileEveryLayerWhole() {
    let standard = NetworkConfig.standard(classes: 13)
    #expect(Classifier.leadFrames(for: standard) == 2)
    let classifier = Fixtures.randomClassifier(standard, seed: 1)
    for (four, two) in zip(classifier.winograd4Layers, classifier.winogradLayers) {
      #expect(four?.tiling.singles == [])
      #expect(two?.tiling.singles == [])
    }
    // 2 output frames; 20 would tile whole, but 18 lead frames are more work than they save.
    let odd = NetworkConfig(
      inputFeatures: 5, window: 12, convolutions: [.init(kernel: 3, dilation: 5, channels: 3)],
      classes: 2)
    #expect(Classifier.leadFrames(for: odd) == 0)
  }
}
