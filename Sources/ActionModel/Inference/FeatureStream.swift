import Poses

/// One stream as the network sees it: each pose's features computed once, when it arrives
/// (`FeatureExtractor`), kept in the window ring (`PoseWindow`), and pushed through the
/// streaming network (`StreamState`). The one path from poses to probabilities, shared by the
/// runtime's sessions, evaluation and the C interface.
///
/// Allocates at `init`, never per frame. Not thread-safe: one per stream.
public final class FeatureStream {
  public let classifier: Classifier
  private var extractor: FeatureExtractor
  /// The last T frames of features.
  public private(set) var window: PoseWindow
  /// The streaming network's cached activations.
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

  /// The streaming network's state, for a caller that catches several streams up together
  /// (`StreamState.catchUp(together:)`).
  public var streamState: StreamState { state }

  /// Frames pushed since `init` or `reset()`.
  public private(set) var framesSeen = 0

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
    framesSeen += 1
  }

  /// The probabilities over the model's labels for the last T frames (K floats).
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    state.probabilities(into: output)
  }

  /// The probabilities as a new array. Allocates: for tools and tests, not the live path.
  public func probabilities() -> [Float] {
    var output = [Float](repeating: 0, count: classifier.config.classes)
    output.withUnsafeMutableBufferPointer { probabilities(into: $0) }
    return output
  }

  /// Back to the start of a stream.
  public func reset() {
    extractor.reset()
    window.removeAll()
    state.reset()
    framesSeen = 0
  }
}
