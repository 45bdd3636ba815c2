/// A command-line program made of subcommands: top-level help, dispatch, and the one place
/// errors become exit codes (0 success, 1 failure, 64 usage error) and `Error:` lines.
public struct Program: Sendable {
  public let name: String
  public let version: String
  public let summary: String
  public let commands: [Command]
  /// Runs when the first word is not a command (nil: that is a usage error).
  public let defaultCommand: Command?
  /// A hint for failures of a kind the program knows (a bad weights file: where its format is
  /// described), shown under the error.
  public let hint: @Sendable (any Error) -> String?

  public init(
    name: String, version: String, summary: String, commands: [Command],
    defaultCommand: Command? = nil, hint: @escaping @Sendable (any Error) -> String? = { _ in nil }
  ) {
    self.name = name
    self.version = version
    self.summary = summary
    self.commands = commands
    self.defaultCommand = defaultCommand
    self.hint = hint
  }

  public var help: String {
    var lines = [
      "\(name) \(version): \(summary)", "", "Usage: \(name) COMMAND [options] [arguments]",
    ]
    lines += ["", "Commands:"]
    for command in commands {
      let padded = command.name + String(repeating: " ", count: max(1, 13 - command.name.count))
      lines.append("  \(padded) \(command.summary)")
    }
    lines += ["", "Run '\(name) COMMAND --help' for a command's options."]
    return lines.joined(separator: "\n")
  }

  /// Runs the words after the program's name; returns the exit code. `print` and `error` are
  /// standard output and standard error.
  public func run(
    _ words: [String], print: (String) -> Void, error: (String) -> Void
  ) -> Int32 {
    let first = words.first
    if first == "--help" || first == "-h" || first == "help" {
      if words.count > 1, let command = commands.first(where: { $0.name == words[1] }) {
        print(command.help(program: name))
      } else {
        print(help)
      }
      return 0
    }
    if first == "--version" {
      print("\(name) \(version)")
      return 0
    }
    let command: Command
    var arguments = words
    if let named = commands.first(where: { $0.name == first }) {
      command = named
      arguments.removeFirst()
    } else if let defaultCommand {
      command = defaultCommand
    } else if let first {
      error(
        "Error: unknown command '\(first)'\nHint: run '\(name) --help' for the list of commands.")
      return 64
    } else {
      error("Error: no command given\n\n" + help)
      return 64
    }
    do {
      let parsed = try command.parse(arguments)
      if parsed.wantsHelp {
        print(command.help(program: name))
        return 0
      }
      return try command.run(parsed)
    } catch CLIError.usage(let message, let command) {
      var text = "Error: \(message)"
      if let command {
        text +=
          "\nUsage: \(command.usage(program: name))\nHint: run '\(name) \(command.name) "
          + "--help' for its options."
      }
      error(text)
      return 64
    } catch CLIError.failure(let message, let hint) {
      error("Error: \(message)" + (hint.map { "\nHint: \($0)" } ?? ""))
      return 1
    } catch let failure {
      error("Error: \(failure)" + (hint(failure).map { "\nHint: \($0)" } ?? ""))
      return 1
    }
  }
}
