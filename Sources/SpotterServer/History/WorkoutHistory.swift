import Foundation
import Spotter

/// The workout history: one JSON line per finished session, in a file that a crash can never
/// leave with a torn record.
///
/// Each append writes the whole new file beside the old one, flushes it to disk, and renames
/// it over the old: readers see the file before or after, never half a line. A history is a
/// few kilobytes a month, so rewriting it is cheap.
public enum WorkoutHistory {
  /// `$XDG_DATA_HOME/spotter/history.jsonl`, else `~/.local/share/spotter/history.jsonl`.
  public static var defaultPath: String {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (NSHomeDirectory() + "/.local/share")
    return base + "/spotter/history.jsonl"
  }

  /// Appends one record (a JSON object, without a newline).
  public static func append(_ record: String, to path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    var contents = FileManager.default.contents(atPath: path) ?? Data()
    if let last = contents.last, last != UInt8(ascii: "\n") { contents.append(UInt8(ascii: "\n")) }
    contents.append(Data((record + "\n").utf8))
    let temporary = path + ".tmp-\(getpid())"
    guard FileManager.default.createFile(atPath: temporary, contents: contents) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
    try handle.synchronize()
    try handle.close()
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      try? FileManager.default.removeItem(atPath: temporary)
      throw CocoaError(
        .fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: reason])
    }
  }

  /// A session's summary as a history record.
  public static func record(date: Date, source: String, summary: [ExerciseTotal]) -> String {
    let stamp = ISO8601DateFormatter().string(from: date)
    let exercises = JSONText.exercises(summary)
    return #"{"date":"\#(stamp)","source":\#(JSONText.quote(source)),"exercises":\#(exercises)}"#
  }
}
