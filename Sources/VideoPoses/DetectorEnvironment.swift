import Foundation
import Poses

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The Python virtual environment the pose detector runs in, under Spotter's cache folder:
/// `$XDG_CACHE_HOME/spotter/mediapipe-0.10.14` (else `~/.cache/spotter/...`).
///
/// Made once, on the first video, with the interpreter `PythonInterpreter.find` gives:
/// `python -m venv`, then pip installs MediaPipe 0.10.14 without its declared dependencies and,
/// beside it, only what `mp.solutions.pose` imports (`packages`). MediaPipe's own list pulls in
/// opencv-contrib-python with its GUI libraries and sounddevice, 1.1 GB in all, for nothing
/// the detector uses; this set is about 410 MB. The BlazePose models are inside the wheel, so
/// nothing is downloaded when a video runs.
///
/// The environment is ready when its marker file is there and its Python can be run: the
/// marker is written last, after the helper's own `check` found both models, so an interrupted
/// set-up is never taken for a finished one; and a Python gone since (the interpreter the
/// environment was made from removed or upgraded, its link left dangling) makes the
/// environment not ready either, so the next run (or `--setup`) removes it and sets it up
/// again rather than failing the same way for ever. A lock file keeps two Spotters from setting
/// up at once.
public struct DetectorEnvironment: Sendable {
  public static let mediapipeVersion = "0.10.14"
  /// Installed beside `mediapipe==0.10.14 --no-deps`: numpy and protobuf below the versions
  /// MediaPipe 0.10.14 was not built for; OpenCV without a GUI, to decode videos; and the rest
  /// of what `mp.solutions` imports.
  public static let packages = [
    "numpy<2", "protobuf<5", "opencv-python-headless", "absl-py", "attrs", "flatbuffers",
    "matplotlib",
  ]

  /// The environment's folder.
  public let folder: String
  /// What the helper process runs in: the environment variables of Spotter's, without the
  /// user's Python paths (they must not shadow the environment's packages), and with
  /// MediaPipe's logging turned down to errors.
  let childEnvironment: [String: String]
  private let environment: [String: String]
  /// Hears of each process the set-up and the detector start (pip, the helper), for a caller
  /// that must stop them when it is stopped itself.
  public var watcher: ChildWatcher?

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    self.environment = environment
    folder = (SpotterCacheFolder.path(environment) as NSString).appendingPathComponent(
      "mediapipe-\(Self.mediapipeVersion)")
    var child = environment
    child["PYTHONPATH"] = nil
    child["PYTHONHOME"] = nil
    child["PYTHONNOUSERSITE"] = "1"
    child["GLOG_minloglevel"] = "2"
    child["TF_CPP_MIN_LOG_LEVEL"] = "3"
    childEnvironment = child
  }

  /// The environment's Python.
  public var python: String { (folder as NSString).appendingPathComponent("bin/python") }
  var marker: String { (folder as NSString).appendingPathComponent("spotter-ready.json") }
  /// Everything pip and venv said while setting it up.
  public var setupLog: String { folder + ".setup.log" }

  /// Set up, and still able to run: the marker is there and the environment's Python is an
  /// executable file (a dangling link is not).
  public var isReady: Bool {
    FileManager.default.fileExists(atPath: marker)
      && FileManager.default.isExecutableFile(atPath: python)
  }

  /// The folder's size on disk, in bytes (blocks allocated, as `du` counts them).
  public var diskBytes: Int64 { Self.allocatedBytes(under: folder) }

  /// Sets the environment up unless it is ready; `say` hears each step, for the person
  /// waiting (a first set-up downloads about 410 MB). Returns whether it set it up now.
  ///
  /// - Throws: `VideoError.noPython` when no suitable Python is found, `.setupFailed` naming
  ///   the step (venv, pip, the check) and what it said.
  @discardableResult
  public func prepare(say: (String) -> Void) throws -> Bool {
    if isReady { return false }
    let parent = (folder as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    } catch {
      throw VideoError.setupFailed(
        step: "making the cache folder \(parent)", detail: "\(error.localizedDescription)",
        log: nil)
    }
    let lock = open(folder + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
    guard lock >= 0 else {
      throw VideoError.setupFailed(
        step: "locking \(folder).lock", detail: String(cString: strerror(errno)), log: nil)
    }
    defer { close(lock) }
    if flock(lock, LOCK_EX | LOCK_NB) != 0 {
      say("Waiting for another Spotter that is setting up the pose detector...")
      _ = flock(lock, LOCK_EX)
    }
    if isReady { return false }  // the other one finished it
    let python = try PythonInterpreter.find(environment: environment)
    say(
      "Setting up the pose detector, once: a Python virtual environment in \(folder) with "
        + "MediaPipe \(Self.mediapipeVersion) from PyPI (about 410 MB; Python \(python.version), "
        + "\(python.path)).")
    try? FileManager.default.removeItem(atPath: folder)
    try? FileManager.default.removeItem(atPath: setupLog)
    _ = FileManager.default.createFile(atPath: setupLog, contents: nil)
    do {
      try install(with: python, say: say)
    } catch {
      // Hundreds of megabytes of an environment that does not work: gone, the log kept.
      try? FileManager.default.removeItem(atPath: folder)
      throw error
    }
    return true
  }

  /// The set-up's steps, into an empty `folder`; the marker last.
  private func install(with python: PythonInterpreter, say: (String) -> Void) throws {
    try step("python -m venv", python.path, ["-m", "venv", folder], say: say)
    let pip = ["-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    try step(
      "pip install mediapipe==\(Self.mediapipeVersion)", self.python,
      pip + ["--no-deps", "mediapipe==\(Self.mediapipeVersion)"], say: say)
    try step(
      "pip install " + Self.packages.joined(separator: " "), self.python, pip + Self.packages,
      say: say)
    let check = try step(
      "the detector's check", self.python, [try HelperScript.path(), "check"], say: say)
    let facts = try? JSONSerialization.jsonObject(with: Data(check.utf8)) as? [String: Any]
    guard (facts?["models"] as? [Any])?.count == 2 else {
      throw VideoError.setupFailed(
        step: "the detector's check",
        detail: "the BlazePose models are not inside the mediapipe wheel: \(check)",
        log: setupLog)
    }
    guard FileManager.default.createFile(atPath: marker, contents: Data((check + "\n").utf8))
    else {
      throw VideoError.setupFailed(
        step: "writing \(marker)", detail: "cannot create the file", log: nil)
    }
  }

  /// Runs one step of the set-up, its output to the set-up log; returns its standard output.
  @discardableResult
  private func step(
    _ name: String, _ executable: String, _ arguments: [String], say: (String) -> Void
  ) throws -> String {
    say("  " + name + "...")
    // The command first, then what it says on standard error (appended as it runs), then its
    // standard output: the log reads in the order things happened.
    Self.append("\n$ \(executable) \(arguments.joined(separator: " "))\n", to: setupLog)
    let run: (status: Int32, output: String, errors: String)
    do {
      run = try ChildProcess.run(
        executable, arguments, environment: childEnvironment, errorLog: setupLog,
        watcher: watcher)
    } catch {
      throw VideoError.setupFailed(step: name, detail: "\(error)", log: setupLog)
    }
    Self.append(run.output, to: setupLog)
    guard run.status == 0 else {
      throw VideoError.setupFailed(
        step: name, detail: Self.explain(run.errors, status: run.status), log: setupLog)
    }
    return run.output
  }

  /// Appends `text` to the file at `path` (the set-up log: a log it cannot write loses only
  /// the log).
  private static func append(_ text: String, to path: String) {
    guard let log = FileHandle(forWritingAtPath: path) else { return }
    log.seekToEndOfFile()
    log.write(Data(text.utf8))
    try? log.close()
  }

  /// The lines of a failed step that say why, with what is missing named where it is known.
  static func explain(_ errors: String, status: Int32) -> String {
    let lines = errors.split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty }
    if lines.contains(where: { $0.contains("ensurepip") }) {
      return "this Python has no venv or ensurepip module (Debian: apt-get install python3-venv)"
    }
    if lines.contains(where: { $0.contains("No module named pip") }) {
      return "this Python has no pip (Debian: apt-get install python3-pip python3-venv)"
    }
    let telling = lines.filter { $0.hasPrefix("ERROR") || $0.contains("Error") }
    let shown = (telling.isEmpty ? Array(lines.suffix(3)) : Array(telling.suffix(3)))
    return shown.isEmpty ? "exit status \(status)" : shown.joined(separator: " / ")
  }

  static func allocatedBytes(under folder: String) -> Int64 {
    var total: Int64 = 0
    var info = stat()
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
    for case let name as String in walker {
      if lstat((folder as NSString).appendingPathComponent(name), &info) == 0 {
        total += Int64(info.st_blocks) * 512
      }
    }
    return total
  }
}
