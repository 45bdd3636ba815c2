import Poses

/// What a weights file says about its model besides the numbers: enough to run it exactly as
/// it was trained, and to know where it came from.
public struct ModelMetadata: Codable, Equatable, Sendable {
  public var architecture: NetworkConfig
  /// K labels, in output order. A user-trained model may have its own.
  public var labels: [String]
  /// The frame rate the model was trained at; the runtime resamples input to it.
  public var fps: Double
  /// How frames become features: the runtime and the trainer both follow it.
  public var features: FeatureSpec
  public var provenance: Provenance
  /// The logits are divided by this before the softmax, so that a window's top probability is
  /// how often windows like it are right (`spotter calibrate`, fitted on windows the model did
  /// not train on). Absent: 1, the network's own softmax (files before calibration).
  public var temperature: Double?
  /// The same for streams whose frames were each normalised to their own box
  /// (`FrameBoxCorrector`), on which a model is right less often than it is sure: the session
  /// uses it once it knows its stream is one. Absent: `temperature`.
  public var normalisedFramesTemperature: Double?

  public init(
    architecture: NetworkConfig, labels: [String], fps: Double = 30,
    features: FeatureSpec = FeatureSpec(), provenance: Provenance, temperature: Double? = nil,
    normalisedFramesTemperature: Double? = nil
  ) {
    self.architecture = architecture
    self.labels = labels
    self.fps = fps
    self.features = features
    self.provenance = provenance
    self.temperature = temperature
    self.normalisedFramesTemperature = normalisedFramesTemperature
  }

  enum CodingKeys: String, CodingKey {
    case architecture, labels, fps, features, provenance, temperature
    case normalisedFramesTemperature = "normalised_frames_temperature"
  }

  /// Where the weights came from.
  public struct Provenance: Codable, Equatable, Sendable {
    /// The command line that made the file.
    public var command: String
    /// The random seed, when the weights came from seeded training or initialisation.
    public var seed: UInt64?
    /// The data the model learned from, one description per source.
    public var data: [String]
    /// Free-form facts: training time, validation accuracy, and so on.
    public var notes: [String: String]

    public init(
      command: String, seed: UInt64? = nil, data: [String] = [], notes: [String: String] = [:]
    ) {
      self.command = command
      self.seed = seed
      self.data = data
      self.notes = notes
    }
  }

  /// What is wrong with the metadata on its own, if anything.
  var problem: String? {
    if let problem = architecture.problem { return "architecture: \(problem)" }
    if labels.count != architecture.classes {
      return "\(labels.count) labels for \(architecture.classes) classes; they must match"
    }
    if Set(labels).count != labels.count { return "labels repeat: \(labels)" }
    if !FeatureSpec.versions.contains(features.version) {
      return
        "feature spec version \(features.version); this build computes versions "
        + "\(FeatureSpec.versions.lowerBound) to \(FeatureSpec.versions.upperBound)"
    }
    if architecture.inputFeatures != features.featuresPerFrame {
      return
        "the architecture takes \(architecture.inputFeatures) features a frame; feature spec "
        + "version \(features.version) makes \(features.featuresPerFrame)"
    }
    if !(fps > 0 && fps.isFinite) { return "fps is \(fps); expected a number above 0" }
    for (key, value) in [
      ("temperature", temperature), ("normalised_frames_temperature", normalisedFramesTemperature),
    ] {
      if let value, !(value >= 0.05 && value <= 20) {
        return "\(key) is \(value); expected a number from 0.05 to 20"
      }
    }
    return nil
  }
}
