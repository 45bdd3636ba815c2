import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
  private let watcher: ChildWatcher?
  /// Whether there is no child to wait for: not started yet, or already waited for.
  private var waited = true
  /// The writing end of the child's standard input while it is kept open (`talking`), else
  /// -1. A signal handler may write to it (`write(2)` is safe there), so it is a raw descriptor.
  private(set) var inputDescriptor: Int32

  /// Starts `executable` with `arguments`; `input` is written to its standard input, which is
  /// then closed, unless `talking`: then it stays open for `send`. Its standard error goes to
  /// `errorLog` (appended to; a temporary file when nil). `watcher` hears its process id when
  /// it starts and when it has ended.
  init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    input: Data? = nil, talking: Bool = false, errorLog: String? = nil,
    watcher: ChildWatcher? = nil
  ) throws {
    self.watcher = watcher
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
    waited = false
    watcher?.started(process.processIdentifier)
    try? writing.close()
    if let input { inputPipe.fileHandleForWriting.write(input) }
    if talking {
      inputDescriptor = dup(inputPipe.fileHandleForWriting.fileDescriptor)
    } else {
      inputDescriptor = -1
    }
    try? inputPipe.fileHandleForWriting.close()
  }

  /// Writes `line` and a newline to the child's standard input (kept open by `talking`). A
  /// child that has ended reads nothing, and no error is raised for it: what it wrote before
  /// it ended tells why (SIGPIPE must be ignored, as the live command does).
  func send(_ line: String) {
    guard inputDescriptor >= 0 else { return }
    var bytes = Array((line + "\n").utf8)[...]
    while !bytes.isEmpty {
      let count = bytes.withUnsafeBytes { write(inputDescriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      bytes = bytes.dropFirst(count)
    }
  }

  deinit {
    closeInput()
    if !waited {
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
      watcher?.ended(process.processIdentifier)
    }
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

  /// Closes the child's standard input (kept open by `talking`): the end of what it reads.
  func closeInput() {
    if inputDescriptor >= 0 { close(inputDescriptor) }
    inputDescriptor = -1
  }

  /// Waits for the child to end (its standard input closed first, reading and dropping what it
  /// still writes); returns its exit status, and the last lines it wrote to standard error.
  func finish() -> (status: Int32, errors: String) {
    closeInput()
    while nextLine() != nil {}
    return waitForEnd()
  }

  /// Stops the child now (SIGTERM) and waits for it to end: for a child that has said something
  /// wrong, whose every further line would only be read and dropped (a whole video's frames,
  /// with `finish()`). Returns as `finish()` does.
  func stop() -> (status: Int32, errors: String) {
    closeInput()
    if process.isRunning { process.terminate() }
    return waitForEnd()
  }

  /// The last lines of standard error kept in an error message: enough for a Python traceback's
  /// end, not a screenful of MediaPipe's log.
  private static let errorLines = 12

  /// Waits for the child's end; its status (128 + the signal when a signal stopped it, as a
  /// shell says), and the last `errorLines` lines of its standard error.
  private func waitForEnd() -> (status: Int32, errors: String) {
    process.waitUntilExit()
    if !waited {
      waited = true
      watcher?.ended(process.processIdentifier)
    }
    let text = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(
      Self.errorLines)
    let status =
      process.terminationReason == .uncaughtSignal
      ? 128 + process.terminationStatus : process.terminationStatus
    return (status, lines.joined(separator: "\n"))
  }

  /// Runs `executable` to its end: its status and standard output (standard error to
  /// `errorLog` when given; `watcher` as for `init`).
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    errorLog: String? = nil, watcher: ChildWatcher? = nil
  ) throws -> (status: Int32, output: String, errors: String) {
    let child = try ChildProcess(
      executable, arguments, environment: environment, errorLog: errorLog, watcher: watcher)
    var lines: [String] = []
    while let line = child.nextLine() { lines.append(line) }
    let (status, errors) = child.finish()
    return (status, lines.joined(separator: "\n"), errors)
  }
}

/// Hears when a child process starts and when it has ended, by its process id: so that a
/// command line stopped by a signal can stop the children too. A child runs on when its parent
/// is stopped (a terminal's Ctrl-C need not reach it: Foundation may start it in a process group
/// of its own), and the detector would go on reading the video for minutes.
public struct ChildWatcher: Sendable {
  public var started: @Sendable (Int32) -> Void
  public var ended: @Sendable (Int32) -> Void

  public init(
    started: @escaping @Sendable (Int32) -> Void, ended: @escaping @Sendable (Int32) -> Void
  ) {
    self.started = started
    self.ended = ended
  }
}
