import Foundation

/// A Python interpreter to make the detector's virtual environment with.
///
/// MediaPipe 0.10.14 ships wheels for CPython 3.8 to 3.12 and numpy below 2 for 3.9 to 3.12,
/// so only those will do: a Python 3.13 would make an environment in which pip then finds
/// nothing to install. `SPOTTER_PYTHON` names one; otherwise `python3` is tried, then the
/// versioned names, so a machine whose `python3` is too new still finds its `python3.12`.
public struct PythonInterpreter: Equatable, Sendable {
  /// The executable, as found on the `PATH` (or as given).
  public let path: String
  public let version: Version

  public struct Version: Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public static func < (a: Version, b: Version) -> Bool {
      (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    /// `3.11.7` as `python -c 'import sys; print(...)'` prints it; nil for anything else.
    public init?(_ text: String) {
      let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
      guard parts.count == 3, let major = Int(parts[0]), let minor = Int(parts[1]),
        let patch = Int(parts[2])
      else { return nil }
      self.major = major
      self.minor = minor
      self.patch = patch
    }
  }

  /// The versions the detector's wheels are made for: 3.9 to 3.12.
  public static let supported = SupportedRange(lowestMinor: 9, highestMinor: 12)

  public struct SupportedRange: Sendable, CustomStringConvertible {
    let lowestMinor: Int
    let highestMinor: Int

    public func contains(_ version: Version) -> Bool {
      version.major == 3 && (lowestMinor...highestMinor).contains(version.minor)
    }

    public var description: String { "3.\(lowestMinor) to 3.\(highestMinor)" }
  }

  /// The names tried, in order, when `SPOTTER_PYTHON` is not set.
  static let candidates = ["python3", "python3.12", "python3.11", "python3.10", "python3.9"]

  /// The first suitable interpreter.
  ///
  /// - Throws: `VideoError.noPython` saying what each candidate was (not found, or its
  ///   version).
  public static func find(environment: [String: String]) throws -> PythonInterpreter {
    let names = environment["SPOTTER_PYTHON"].map { [$0] } ?? candidates
    var tried: [String] = []
    for name in names {
      guard let path = executable(named: name, path: environment["PATH"] ?? "") else {
        tried.append("\(name): not found")
        continue
      }
      guard let version = version(of: path) else {
        tried.append("\(path): does not run as Python")
        continue
      }
      guard supported.contains(version) else {
        tried.append("\(path): Python \(version)")
        continue
      }
      return PythonInterpreter(path: path, version: version)
    }
    throw VideoError.noPython(tried: tried)
  }

  /// `name` itself when it holds a slash, else the first executable of that name on `path`.
  static func executable(named name: String, path: String) -> String? {
    if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
    for folder in path.split(separator: ":") where !folder.isEmpty {
      let candidate = "\(folder)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  private static func version(of path: String) -> Version? {
    guard
      let run = try? ChildProcess.run(
        path, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"]),
      run.status == 0
    else { return nil }
    return Version(run.output)
  }
}
