import Poses

/// One stream as the network sees it: each pose's features computed once, when it arrives
/// (`FeatureExtractor`), kept in the window ring (`PoseWindow`), and pushed through the
/// streaming network (`StreamState`). The one path from poses to probabilities, shared by the
/// runtime's sessions, evaluation and the C interface.
///
/// The window holds what the streaming state has consumed, so the last window can also go
/// through `Classifier.predict` with other streams' windows in one batch, with the same result.
///
/// Allocates at `init`, never per frame. Not thread-safe: one per stream.
public final class FeatureStream {
  public let classifier: Classifier
  private var extractor: FeatureExtractor
  /// The last T frames of features.
  public private(set) var window: PoseWindow
  private let state: StreamState
  /// One frame's F features, reused.
  private var features: [Float]

  public init(classifier: Classifier) {
    self.classifier = classifier
    let config = classifier.config
    extractor = FeatureExtractor(spec: classifier.metadata.features)
    window = PoseWindow(capacity: config.window, featureCount: config.inputFeatures)
    state = classifier.makeStream()
    features = [Float](repeating: 0, count: config.inputFeatures)
  }

  /// Frames pushed since `init` or `reset()`.
  public var framesSeen: Int { state.framesSeen }

  /// How many of the last T frames show a person.
  public var framesWithAPerson: Int { window.presentCount }

  /// The body size the features are scaled by, once a frame has measured one.
  public var bodySize: Float? { extractor.bodySize }

  /// Takes one pose (`.nobody` where nobody was seen): its features, into the window and the
  /// network. Allocates nothing.
  public func push(_ pose: Pose) {
    features.withUnsafeMutableBufferPointer { extractor.extract(pose, into: $0) }
    features.withUnsafeBufferPointer { push(features: $0) }
  }

  /// Takes one frame's F features computed elsewhere (all zeros for nobody).
  public func push(features: UnsafeBufferPointer<Float>) {
    window.push(features)
    state.push(features)
  }

  /// The probabilities over the model's labels for the last T frames (K floats).
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    state.probabilities(into: output)
  }

  /// The probabilities as a new array. Allocates: for tools and tests, not the live path.
  public func probabilities() -> [Float] { state.probabilities() }

  /// Copies the last T frames of features, (T, F) oldest first, zero-padded at the start.
  public func copyWindow(into output: UnsafeMutableBufferPointer<Float>) {
    window.copy(into: output)
  }

  /// Back to the start of a stream.
  public func reset() {
    extractor.reset()
    window.removeAll()
    state.reset()
  }
}
