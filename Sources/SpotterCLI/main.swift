import ActionModel
import Poses

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `spotter`: exercise recognition and rep counting from pose streams (DESIGN §11).
///
/// Only this file maps errors to exit codes: 0 success, 1 failure, 64 usage error.
enum SpotterCommandLine {
  static let commands: [Command] = [
    InspectCommand.command,
    InitWeightsCommand.command,
    SynthCommand.command,
    CountCommand.command,
    ExercisesCommand.command,
    EvalCommand.command,
    TrainCommand.command,
    ClassifyCommand.command,
    DemoCommand.command,
    ServeCommand.command,
    StatusCommand.command,
  ]

  static let version = "0.1.0"

  static func topLevelHelp() -> String {
    var lines = [
      "spotter \(version): recognise exercises and count reps from 2D body-pose streams.", "",
      "Usage: spotter COMMAND [options] [arguments]", "", "Commands:",
    ]
    for command in commands {
      let name = command.name.padding(toLength: 12, withPad: " ", startingAt: 0)
      lines.append("  \(name)\(command.summary)")
    }
    lines += ["", "Run 'spotter COMMAND --help' for a command's options."]
    return lines.joined(separator: "\n")
  }

  static func run(_ words: [String]) -> Int32 {
    guard let first = words.first else {
      Terminal.error("Error: no command given\n\n" + topLevelHelp())
      return 64
    }
    if first == "--help" || first == "-h" || first == "help" {
      if words.count > 1, let command = commands.first(where: { $0.name == words[1] }) {
        print(command.help)
      } else {
        print(topLevelHelp())
      }
      return 0
    }
    if first == "--version" {
      print("spotter \(version)")
      return 0
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      Terminal.error(
        "Error: unknown command '\(first)'\nHint: run 'spotter --help' for the list of commands.")
      return 64
    }
    do {
      let arguments = try command.parse(Array(words.dropFirst()))
      if arguments.wantsHelp {
        print(command.help)
        return 0
      }
      return try command.run(arguments)
    } catch CLIError.usage(let message, let command) {
      var text = "Error: \(message)"
      if let command {
        text +=
          "\nUsage: \(command.usage)\nHint: run 'spotter \(command.name) --help' for its options."
      }
      Terminal.error(text)
      return 64
    } catch CLIError.failure(let message, let hint) {
      Terminal.error("Error: \(message)" + (hint.map { "\nHint: \($0)" } ?? ""))
      return 1
    } catch let error as WeightsFileError {
      Terminal.error(
        "Error: \(error)\nHint: Weights/FORMAT.md gives the format; --weights or SPOTTER_WEIGHTS picks another file."
      )
      return 1
    } catch let error as PoseFileError {
      Terminal.error(
        "Error: \(error)\nHint: the input formats are in README.md, under 'Pose files'.")
      return 1
    } catch {
      Terminal.error("Error: \(error)")
      return 1
    }
  }

}

exit(SpotterCommandLine.run(Array(CommandLine.arguments.dropFirst())))
