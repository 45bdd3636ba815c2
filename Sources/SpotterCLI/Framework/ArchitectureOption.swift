import ActionModel
import ArgumentParsing
import Poses

/// `--architecture NAME`, shared by the commands that make networks.
enum ArchitectureOption {
  static let option = Option.value(
    "architecture", "NAME",
    "standard (0.15–0.16 M parameters, by the features it is fed) or tiny (for tests).",
    default: "standard"
  )

  static func config(
    _ arguments: ParsedArguments, classes: Int, features: FeatureSpec = FeatureSpec(),
    command: Command
  ) throws -> NetworkConfig {
    let inputs = features.featuresPerFrame
    switch arguments.string("architecture")! {
    case "standard": return .standard(inputFeatures: inputs, classes: classes)
    case "tiny": return .tiny(inputFeatures: inputs, classes: classes)
    case let other:
      throw CLIError.usage(
        "unknown architecture '\(other)'; expected standard or tiny", command: command)
    }
  }
}
