import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program running while a test talks to it: its standard input written as the test goes,
/// its standard output read line by line as it comes, its standard error kept in a file. For
/// tests of live sessions, which must see events before the program ends.
public final class RunningProcess {
  public let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let errorFile: String
  private var buffer = Data()
  private var ended = false

  /// Starts `executable` (`spotter` unless given) with `arguments`, and `environment` over
  /// this process's own without `SPOTTER_WEIGHTS`.
  public init(
    _ arguments: [String], environment: [String: String] = [:],
    executable: String = SpotterProcess.binary
  ) throws {
    errorFile = NSTemporaryDirectory() + "spotter-test-\(UUID().uuidString).err"
    _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var inherited = ProcessInfo.processInfo.environment
    inherited["SPOTTER_WEIGHTS"] = nil
    process.environment = inherited.merging(environment) { $1 }
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: errorFile)
    try process.run()
  }

  deinit {
    if process.isRunning { process.terminate() }
    try? FileManager.default.removeItem(atPath: errorFile)
  }

  /// Writes `text` to the program's standard input.
  public func write(_ text: String) {
    input.fileHandleForWriting.write(Data(text.utf8))
  }

  /// Closes the program's standard input: the end of its stream.
  public func closeInput() {
    try? input.fileHandleForWriting.close()
  }

  /// The next line of standard output, without its newline; nil when none came within
  /// `timeout` seconds or the output ended.
  public func nextLine(timeout: Double) -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex...newline)
        return line
      }
      let left = deadline.timeIntervalSinceNow
      guard !ended, left > 0 else { return nil }
      var ready = pollfd(
        fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, Int32(left * 1000)) > 0 else { continue }
      let data = output.fileHandleForReading.availableData
      if data.isEmpty { ended = true } else { buffer.append(data) }
    }
  }

  /// Every line of standard output from here to its end (or `timeout` seconds).
  public func remainingLines(timeout: Double) -> [String] {
    let deadline = Date().addingTimeInterval(timeout)
    var lines: [String] = []
    while let line = nextLine(timeout: deadline.timeIntervalSinceNow) { lines.append(line) }
    return lines
  }

  /// Waits up to `timeout` seconds for the program to end; its exit status, or nil if it is
  /// still running (then it is stopped).
  public func waitForExit(timeout: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    guard !process.isRunning else {
      process.terminate()
      return nil
    }
    return process.terminationStatus
  }

  /// What the program wrote to standard error so far.
  public var standardError: String {
    (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
  }
}
