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
  /// The streaming network's cached activations; nil when predictions are made from the window
  /// (by the caller, batched with other streams', or by `probabilities(into:)`).
  private let state: StreamState?
  /// One frame's F features, reused.
  private var features: [Float]
  /// For `probabilities(into:)` without a streaming state: the window, and the network's
  /// scratch.
  private var windowCopy: [Float] = []
  /// Made on first use: a stream whose windows are batched by its caller never needs one.
  private var workspace: Workspace?

  /// - Parameter streaming: keep the streaming network's state (a cheap step per frame); off
  ///   for a stream whose windows go through the network in batches with others'.
  public init(classifier: Classifier, streaming: Bool = true) {
    self.classifier = classifier
    let config = classifier.config
    extractor = FeatureExtractor(spec: classifier.metadata.features)
    window = PoseWindow(capacity: config.window, featureCount: config.inputFeatures)
    state = streaming ? classifier.makeStream() : nil
    features = [Float](repeating: 0, count: config.inputFeatures)
    if !streaming {
      windowCopy = [Float](repeating: 0, count: config.window * config.inputFeatures)
    }
  }

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
    state?.push(features)
    framesSeen += 1
  }

  /// The probabilities over the model's labels for the last T frames (K floats): the
  /// streaming state's, or the window's through the network.
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    if let state {
      state.probabilities(into: output)
      return
    }
    windowCopy.withUnsafeMutableBufferPointer { window.copy(into: $0) }
    if workspace == nil { workspace = Workspace(for: classifier, tile: 1) }
    windowCopy.withUnsafeBufferPointer {
      classifier.predict(windows: $0, count: 1, into: output, workspace: workspace!)
    }
  }

  /// The probabilities as a new array. Allocates: for tools and tests, not the live path.
  public func probabilities() -> [Float] {
    var output = [Float](repeating: 0, count: classifier.config.classes)
    output.withUnsafeMutableBufferPointer { probabilities(into: $0) }
    return output
  }

  /// Copies the last T frames of features, (T, F) oldest first, zero-padded at the start.
  public func copyWindow(into output: UnsafeMutableBufferPointer<Float>) {
    window.copy(into: output)
  }

  /// Back to the start of a stream.
  public func reset() {
    extractor.reset()
    window.removeAll()
    state?.reset()
    framesSeen = 0
  }
}
