import Foundation

/// A program run as a child of Spotter: Python, pip, the detector helper.
///
/// Its standard error always goes to a file, never a pipe: MediaPipe and pip write a lot there,
/// and a pipe nobody drains while its standard output is read would stop the child once full.
/// The file is read back when the child ends, for the error message. Unless it is a log to
/// keep, it is removed from its folder as soon as both ends have it open, so no run, however
/// it ends, leaves it behind.
final class ChildProcess {
  private let process = Process()
  private let output = Pipe()
  /// Where the child's standard error is read back from.
  private let errors: FileHandle
  private var buffer = Data()
  private var ended = false

  /// Starts `executable` with `arguments`; `input` is written to its standard input (then
  /// closed), and its standard error goes to `errorLog` (appended to; a temporary file when
  /// nil).
  init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    input: Data? = nil, errorLog: String? = nil
  ) throws {
    let errorFile =
      errorLog
      ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(
        "spotter-child-\(getpid())-\(UUID().uuidString).log")
    if !FileManager.default.fileExists(atPath: errorFile) {
      _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
    }
    guard let writing = FileHandle(forWritingAtPath: errorFile),
      let reading = FileHandle(forReadingAtPath: errorFile)
    else {
      throw VideoError.helperFailed(detail: "cannot write \(errorFile)")
    }
    if errorLog == nil { try? FileManager.default.removeItem(atPath: errorFile) }
    writing.seekToEndOfFile()
    reading.seekToEndOfFile()
    errors = reading
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = output
    process.standardError = writing
    let inputPipe = Pipe()
    process.standardInput = inputPipe
    do {
      try process.run()
    } catch {
      throw VideoError.helperFailed(detail: "cannot start \(executable): \(error)")
    }
    try? writing.close()
    if let input { inputPipe.fileHandleForWriting.write(input) }
    try? inputPipe.fileHandleForWriting.close()
  }

  deinit {
    if process.isRunning { process.terminate() }
  }

  /// The next line the child wrote to standard output, without its newline; nil once it has
  /// closed it. Blocks until a whole line (or the end) is there.
  func nextLine() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = buffer[buffer.startIndex..<newline]
        buffer.removeSubrange(buffer.startIndex...newline)
        return String(decoding: line, as: UTF8.self)
      }
      if ended {
        guard !buffer.isEmpty else { return nil }
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
      }
      let data = output.fileHandleForReading.availableData
      if data.isEmpty { ended = true } else { buffer.append(data) }
    }
  }

  /// Waits for the child to end (reading and dropping what it still writes); returns its exit
  /// status, and the last `errorLines` lines it wrote to standard error.
  func finish(errorLines: Int = 12) -> (status: Int32, errors: String) {
    while nextLine() != nil {}
    process.waitUntilExit()
    let text = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(errorLines)
    let status =
      process.terminationReason == .uncaughtSignal
      ? 128 + process.terminationStatus : process.terminationStatus
    return (status, lines.joined(separator: "\n"))
  }

  /// Runs `executable` to its end: its status and standard output (standard error to
  /// `errorLog` when given).
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    errorLog: String? = nil
  ) throws -> (status: Int32, output: String, errors: String) {
    let child = try ChildProcess(
      executable, arguments, environment: environment, errorLog: errorLog)
    var lines: [String] = []
    while let line = child.nextLine() { lines.append(line) }
    let (status, errors) = child.finish()
    return (status, lines.joined(separator: "\n"), errors)
  }
}
