import Foundation

/// One labelled stretch of a recording, as Create ML's action classifier annotations give it:
/// `{"file_name": "clip.jsonl", "label": "squat", "start_time": 0.0, "end_time": 8.0}`, with
/// optional `reps` and `rep_bounds` ([[start, end], ...] in seconds). Other keys are ignored.
public struct Annotation: Codable, Equatable, Sendable {
  /// The pose file, relative to the annotation file's folder as written; see `resolvedPath`.
  public var fileName: String
  public var label: String
  public var startTime: Double?
  public var endTime: Double?
  public var reps: Int?
  public var repBounds: [[Double]]?
  /// In a recording of several people: whose set this is (1 for the first person's plan).
  public var person: Int?
  /// The pose file's path resolved against the annotation file's folder (not encoded).
  public var resolvedPath: String = ""

  enum CodingKeys: String, CodingKey {
    case fileName = "file_name"
    case label
    case startTime = "start_time"
    case endTime = "end_time"
    case reps
    case repBounds = "rep_bounds"
    case person
  }

  public init(
    fileName: String, label: String, startTime: Double? = nil, endTime: Double? = nil,
    reps: Int? = nil, repBounds: [[Double]]? = nil, person: Int? = nil
  ) {
    self.fileName = fileName
    self.label = label
    self.startTime = startTime
    self.endTime = endTime
    self.reps = reps
    self.repBounds = repBounds
    self.person = person
    resolvedPath = fileName
  }
}

/// Reads and writes Create ML annotation files.
public enum Annotations {
  /// Reads the annotation array at `path`, checks every entry, and resolves file names against
  /// the annotation file's folder.
  ///
  /// - Throws: `PoseFileError` naming the entry and field that is wrong.
  public static func read(_ path: String) throws -> [Annotation] {
    guard let data = FileManager.default.contents(atPath: path) else {
      let missing = !FileManager.default.fileExists(atPath: path)
      throw PoseFileError(
        file: path, message: missing ? "no such annotation file" : "cannot read the annotation file"
      )
    }
    let entries: [Annotation]
    do {
      entries = try JSONDecoder().decode([Annotation].self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      throw PoseFileError(
        file: path, message: "\(place(context.codingPath)) has no \"\(key.stringValue)\"")
    } catch let DecodingError.typeMismatch(type, context) {
      throw PoseFileError(file: path, message: "\(place(context.codingPath)) is not a \(type)")
    } catch let DecodingError.valueNotFound(type, context) {
      throw PoseFileError(
        file: path, message: "\(place(context.codingPath)) is null; expected a \(type)")
    } catch {
      let reason = JSONSyntax.errorPlace(in: data).map { "not valid JSON at \($0)" }
      throw PoseFileError(
        file: path,
        message: "not a JSON array of annotations: \(reason ?? error.localizedDescription)")
    }
    let folder = (path as NSString).deletingLastPathComponent
    return try entries.enumerated().map { index, entry in
      func fail(_ message: String) -> PoseFileError {
        PoseFileError(file: path, message: "entry \(index) (\(entry.fileName)): \(message)")
      }
      if let start = entry.startTime, let end = entry.endTime,
        !(start.isFinite && end.isFinite && start <= end)
      {
        throw fail("start_time \(start) must be finite and not after end_time \(end)")
      }
      if let reps = entry.reps, reps < 0 { throw fail("reps is \(reps); expected 0 or more") }
      for bound in entry.repBounds ?? [] {
        guard bound.count == 2, bound[0] <= bound[1] else {
          throw fail("rep_bounds entry \(bound) must be [start, end] with start ≤ end")
        }
      }
      if let reps = entry.reps, let bounds = entry.repBounds, bounds.count != reps {
        throw fail("reps is \(reps) but rep_bounds has \(bounds.count) entries")
      }
      var resolved = entry
      resolved.resolvedPath =
        entry.fileName.hasPrefix("/") || folder.isEmpty
        ? entry.fileName : (folder as NSString).appendingPathComponent(entry.fileName)
      return resolved
    }
  }

  /// Writes annotations as a pretty-printed JSON array.
  public static func write(_ annotations: [Annotation], to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(annotations)
    guard FileManager.default.createFile(atPath: path, contents: data) else {
      throw PoseFileError(file: path, message: "cannot write the annotation file")
    }
  }

  private static func place(_ path: [any CodingKey]) -> String {
    guard let first = path.first?.intValue else { return "the file" }
    let field = path.dropFirst().map(\.stringValue).joined(separator: ".")
    return field.isEmpty ? "entry \(first)" : "entry \(first) field \"\(field)\""
  }
}
