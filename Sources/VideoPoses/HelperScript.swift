import Foundation

/// Where the detector helper (`Helper/spotter_pose_helper.py`, Spotter's own script) is: in
/// the package's resource bundle beside the program (`Spotter_VideoPoses.resources`, as
/// `swift build` lays it out and as an installed `spotter` ships it), else in the sources it was
/// built from.
///
/// Not `Bundle.module`, which stops the process when the bundle is missing; and not beside a
/// library as the exercise definitions also are, since only the command line runs videos.
enum HelperScript {
  static let name = "spotter_pose_helper.py"
  static let bundle = "Spotter_VideoPoses.resources"

  /// - Throws: `VideoError.helperFailed` saying where it looked.
  static func path() throws -> String {
    let installed = Bundle.main.bundleURL.appendingPathComponent(bundle)
      .appendingPathComponent("Helper").appendingPathComponent(name).path
    if FileManager.default.fileExists(atPath: installed) { return installed }
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Helper").appendingPathComponent(name).path
    if FileManager.default.fileExists(atPath: sources) { return sources }
    throw VideoError.helperFailed(
      detail:
        "its script is not installed: looked for \(installed) and \(sources); ship the "
        + "\(bundle) folder beside the spotter program")
  }
}
