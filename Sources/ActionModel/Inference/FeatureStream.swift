import Linalg
import Poses

/// One stream as the network sees it: each pose's features computed once, when it arrives
/// (`FeatureExtractor`), kept in the window ring (`PoseWindow`), and pushed through the
/// streaming network (`StreamState`). The one path from poses to probabilities, shared by the
/// runtime's sessions, evaluation and the C interface.
///
/// The network's state (about 100 KB for the standard model) is made at the first
/// probabilities asked, from the window's frames (`streamState`): a stream that never shows
/// enough of a person to be classified (a server's idle sessions) holds only its window. Once
/// the state is made, the window's features are dropped (21 KB of the standard model's): the
/// state has what it needs of them, and the window goes on counting presence only.
///
/// Allocates at `init` and once more at the first probabilities, never per frame. Not
/// thread-safe: one per stream.
///
/// Stored properties skip Swift's run-time exclusivity checks (README, "Performance").
public final class FeatureStream {
  public let classifier: Classifier
  @exclusivity(unchecked) private var extractor: FeatureExtractor
  /// The last T frames: their features until the network's state is made, then their
  /// presence only.
  @exclusivity(unchecked) public private(set) var window: PoseWindow
  /// The streaming network's cached activations, once asked for.
  @exclusivity(unchecked) private var state: StreamState?
  /// One frame's F features, reused.
  @exclusivity(unchecked) private var features: [Float]

  /// The precision of the state's weights: the plan's unless a test names one.
  private let precision: WeightPrecision?

  public convenience init(classifier: Classifier) {
    self.init(classifier: classifier, precision: nil)
  }

  /// A stream whose state reads its weights in `precision` (the plan's when nil).
  init(classifier: Classifier, precision: WeightPrecision?) {
    self.classifier = classifier
    self.precision = precision
    let config = classifier.config
    extractor = FeatureExtractor(spec: classifier.metadata.features)
    window = PoseWindow(capacity: config.window, featureCount: config.inputFeatures)
    features = [Float](repeating: 0, count: config.inputFeatures)
  }

  /// The streaming network's state, for a caller that catches several streams up together
  /// (`StreamState.catchUp(together:)`). Made at first use (allocating), by replaying the
  /// window's frames into a fresh state: the same frames in the same pushes as a state made at
  /// `init` would have had, so the probabilities are the same, bit for bit.
  ///
  /// Why the replay is exact: the pooled columns are the last T − Σ(k − 1)·d of the last
  /// layer (`NetworkConfig.pooledFrames`), and each reads Σ(k − 1)·d + 1 frames back
  /// (`receptiveField`), so together they read exactly the last T frames, which the window
  /// holds. Up to T frames seen, they are replayed as they came. Past T, frames older than the
  /// window only made columns the pooling no longer reads; the replay pushes zeros in their
  /// place, as many as keep the count of frames pushed the same modulo `replayPeriod`, so the
  /// catch-ups split the frames where they did (at every `pendingLimit`), and the one-frame
  /// steps batch the deferred taps' products at the same columns, summed in the same order.
  /// (Spotter's own kernels give each row the same bits wherever it falls in a GEMM, and add
  /// the taps of a three-tap layer in the same order at any phase, so for them the zeros change
  /// nothing; they keep the replay exact for any kernel, OpenBLAS's included.)
  public var streamState: StreamState {
    if let state { return state }
    let state = classifier.makeStream(precision: precision)
    let replayed = window.count
    precondition(replayed == min(framesSeen, window.capacity), "the window lost frames")
    if framesSeen > replayed {
      let period = Self.replayPeriod(classifier.config, pendingLimit: state.pendingLimit)
      features.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
      features.withUnsafeBufferPointer { zeros in
        for _ in 0..<((framesSeen - replayed) % period) { state.push(zeros) }
      }
    }
    for age in stride(from: replayed - 1, through: 0, by: -1) {
      window.withFrame(age: age) { state.push($0) }
    }
    window.dropFeatures()
    self.state = state
    return state
  }

  /// The pushes after which a state's work repeats its pattern: every one-frame step's
  /// deferred batches ((k − 1 − j)·d columns of tap j) and the catch-ups forced every
  /// `pendingLimit` frames start afresh.
  static func replayPeriod(_ config: NetworkConfig, pendingLimit: Int) -> Int {
    func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
    var period = pendingLimit
    for layer in config.convolutions {
      for tap in 0..<(layer.kernel - 1) {
        let lag = (layer.kernel - 1 - tap) * layer.dilation
        period = period / gcd(period, lag) * lag
      }
    }
    return period
  }

  /// Frames pushed since `init` or `reset()`.
  @exclusivity(unchecked) public private(set) var framesSeen = 0

  /// How many of the last T frames show a person.
  public var framesWithAPerson: Int { window.presentCount }

  /// Whether at least `fraction` of the last T frames show a person: the windows a session
  /// classifies (`SessionOptions.presenceFraction`).
  public func showsAPerson(inAtLeast fraction: Float) -> Bool {
    Float(framesWithAPerson) >= fraction * Float(classifier.config.window)
  }

  /// The body size the features are scaled by, once a frame has measured one.
  public var bodySize: Float? { extractor.bodySize }

  /// Takes one pose (`.nobody` where nobody was seen): its features, into the window and the
  /// network (once it is made). Allocates nothing.
  public func push(_ pose: Pose) {
    features.withUnsafeMutableBufferPointer { extractor.extract(pose, into: $0) }
    features.withUnsafeBufferPointer { push(features: $0) }
  }

  /// Takes one frame's F features computed elsewhere (all zeros for nobody).
  public func push(features: UnsafeBufferPointer<Float>) {
    window.push(features)
    state?.push(features)
    framesSeen += 1
  }

  /// The probabilities over the model's labels for the last T frames (K floats). Allocates
  /// nothing once the network's state is made (the first call makes it, `streamState`).
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    streamState.probabilities(into: output)
  }

  /// The probabilities as a new array. Allocates: for tools and tests, not the live path.
  public func probabilities() -> [Float] {
    var output = [Float](repeating: 0, count: classifier.config.classes)
    output.withUnsafeMutableBufferPointer { probabilities(into: $0) }
    return output
  }

  /// Back to the start of a stream (a state already made is kept, reset).
  public func reset() {
    extractor.reset()
    window.removeAll()
    state?.reset()
    framesSeen = 0
  }
}
