import ArgumentParsing
import MotionSynth

/// `--camera VIEW` for the commands that record synthetic people: where the camera may stand.
enum CameraOption {
  static func option(default view: String) -> Option {
    .value("camera", "VIEW", "any, front, side, oblique or back.", default: view)
  }

  static func parse(_ arguments: ParsedArguments, command: Command) throws -> VirtualCamera.Range {
    guard let range = VirtualCamera.Range.named(arguments.string("camera")!) else {
      throw CLIError.usage("--camera must be any, front, side, oblique or back", command: command)
    }
    return range
  }
}
