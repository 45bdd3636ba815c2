import ArgumentParsing
import MotionSynth

/// `--camera VIEW` (and `--azimuth`, `--elevation` to narrow it) for the commands that record
/// synthetic people: where the camera may stand.
enum CameraOption {
  static func options(default view: String) -> [Option] {
    [
      .value("camera", "VIEW", "any, front, side, oblique or back.", default: view),
      .value(
        "azimuth", "A:B", "Narrow the view to cameras A to B degrees round from the front."),
      .value("elevation", "A:B", "Narrow the view to cameras A to B degrees above the person."),
    ]
  }

  static func parse(_ arguments: ParsedArguments, command: Command) throws -> VirtualCamera.Range {
    guard var range = VirtualCamera.Range.named(arguments.string("camera")!) else {
      throw CLIError.usage("--camera must be any, front, side, oblique or back", command: command)
    }
    if let azimuth = try degrees("azimuth", arguments, within: -360...360, command: command) {
      range.azimuth = azimuth
    }
    if let elevation = try degrees("elevation", arguments, within: -90...90, command: command) {
      range.elevation = elevation
    }
    return range
  }

  private static func degrees(
    _ name: String, _ arguments: ParsedArguments, within limits: ClosedRange<Double>,
    command: Command
  ) throws -> ClosedRange<Double>? {
    guard let text = arguments.string(name) else { return nil }
    let parts = text.split(separator: ":").compactMap { Double($0) }
    guard parts.count == 2, parts[0] <= parts[1], limits.contains(parts[0]),
      limits.contains(parts[1])
    else {
      throw CLIError.usage(
        "--\(name) takes A:B degrees with A ≤ B within "
          + "\(Int(limits.lowerBound))…\(Int(limits.upperBound)), got '\(text)'",
        command: command)
    }
    return parts[0]...parts[1]
  }
}
