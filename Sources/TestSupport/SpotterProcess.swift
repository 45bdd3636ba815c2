import Foundation

/// Runs the real `spotter` binary, as a user would.
public enum SpotterProcess {
  /// The built `spotter` next to this test bundle.
  public static let binary: String = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = bundle.deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("spotter").path) {
      folder = folder.deletingLastPathComponent()
      precondition(folder.path != "/", "cannot find the spotter binary next to \(bundle.path)")
    }
    return folder.appendingPathComponent("spotter").path
  }()

  public struct Result: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
  }

  /// Runs `binary` (`spotter` unless given: the tests run `spotter-bench` too) with
  /// `arguments`, `stdin` written to its input, and `environment` over this process's own
  /// without `SPOTTER_WEIGHTS`; waits for it to exit.
  public static func run(
    _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
    binary: String = SpotterProcess.binary
  )
    throws -> Result
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    var inherited = ProcessInfo.processInfo.environment
    inherited["SPOTTER_WEIGHTS"] = nil
    process.environment = inherited.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
      stderr: String(decoding: stderr, as: UTF8.self))
  }
}
