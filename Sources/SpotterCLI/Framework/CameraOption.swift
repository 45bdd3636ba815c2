import ArgumentParsing
import MotionSynth

/// `--camera VIEW` (and `--azimuth`, `--elevation` to narrow it) for the commands that record
/// synthetic people: where the camera may stand.
enum CameraOption {
  static func options(default view: String) -> [Option] {
    [
      .value(
        "camera", "VIEW",
        "any, front, side, oblique, back, floor (a phone on the floor in front, looking up) or "
          + "elevated (from above head height).", default: view),
      .value(
        "azimuth", "A:B", "Narrow the view to cameras A to B degrees round from the front."),
      .value("elevation", "A:B", "Narrow the view to cameras A to B degrees above the person."),
    ]
  }

  static func parse(_ arguments: ParsedArguments, command: Command) throws -> VirtualCamera.Range {
    guard var range = VirtualCamera.Range.named(arguments.string("camera")!) else {
      throw CLIError.usage(
        "--camera must be one of " + VirtualCamera.Range.names.joined(separator: ", "),
        command: command)
    }
    if let azimuth = try arguments.interval("azimuth", within: -360...360) {
      range.azimuth = azimuth
    }
    if let elevation = try arguments.interval("elevation", within: -90...90) {
      range.elevation = elevation
    }
    return range
  }
}
