import ActionModel
import ArgumentParsing

/// `--architecture NAME`, shared by the commands that make networks.
enum ArchitectureOption {
  static let option = Option.value(
    "architecture", "NAME", "standard (0.15 M parameters) or tiny (for tests).", default: "standard"
  )

  static func config(_ arguments: ParsedArguments, classes: Int, command: Command) throws
    -> NetworkConfig
  {
    switch arguments.string("architecture")! {
    case "standard": return .standard(classes: classes)
    case "tiny": return .tiny(classes: classes)
    case let other:
      throw CLIError.usage(
        "unknown architecture '\(other)'; expected standard or tiny", command: command)
    }
  }
}
