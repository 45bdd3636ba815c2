import Foundation

/// Writes canonical poses out in any format Spotter reads, in any layout: the inverse of the
/// readers, so that a written file reads back to the same poses.
public enum PoseFileFormat: String, CaseIterable, Sendable {
  /// JSON Lines (README, "Pose files"): a header line, then one frame per line.
  case jsonl
  /// CSV: a `# {header}` line, a column row, then one person per row.
  case csv
  /// A folder of OpenPose per-frame JSON files.
  case openposeFolder = "openpose"
}

public final class PoseFileWriter {
  public let header: PoseFileHeader
  public let format: PoseFileFormat
  private let output: TextOutput?
  private let folder: String?
  private var frameIndex = 0

  /// Starts a file at `path` (a folder for `.openposeFolder`) and writes its header.
  public init(path: String, format: PoseFileFormat, header: PoseFileHeader) throws {
    self.header = header
    self.format = format
    switch format {
    case .jsonl, .csv:
      let output = try TextOutput(creating: path)
      self.output = output
      folder = nil
      if format == .jsonl {
        output.writeLine(header.jsonLine)
      } else {
        output.writeLine("# " + header.jsonLine)
        output.writeLine(CSVPoseReader.columnRow(for: header.layout))
      }
    case .openposeFolder:
      guard header.layout == .openpose25 || header.layout == .createml18 else {
        throw PoseFileError(
          file: path,
          message: "OpenPose folders hold openpose25 or createml18, not \(header.layout.rawValue)")
      }
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      output = nil
      folder = path
    }
  }

  /// Writes to standard output (JSON Lines only).
  public init(output: TextOutput, header: PoseFileHeader) {
    self.header = header
    format = .jsonl
    self.output = output
    folder = nil
    output.writeLine(header.jsonLine)
  }

  /// Writes one frame of zero or more people. CSV holds one person a row: it writes the first
  /// person, or an empty row for nobody.
  public func write(t: Double, people: [Pose]) throws {
    defer { frameIndex += 1 }
    let persons = people.map { header.layout.layoutJoints(from: $0, space: header.space) }
    switch format {
    case .jsonl:
      output!.writeLine(Self.jsonFrameLine(t: t, layoutPeople: persons))
    case .csv:
      var fields = [Self.number(t)]
      let joints = persons.first ?? Array(repeating: .missing, count: header.layout.jointCount)
      for joint in joints {
        fields +=
          joint.isMissing
          ? ["", "", ""] : ["\(joint.x)", "\(joint.y)", "\(joint.confidence)"]
      }
      output!.writeLine(fields.joined(separator: ","))
    case .openposeFolder:
      let list = persons.map { joints in
        "{\"pose_keypoints_2d\":["
          + joints.map { $0.isMissing ? "0,0,0" : "\($0.x),\($0.y),\($0.confidence)" }.joined(
            separator: ",")
          + "]}"
      }
      let text = "{\"version\":1.3,\"people\":[" + list.joined(separator: ",") + "]}\n"
      let file = (folder! as NSString).appendingPathComponent(
        String(format: "%012d_keypoints.json", frameIndex))
      guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8)) else {
        throw PoseFileError(file: file, message: "cannot write the frame file")
      }
    }
  }

  /// Writes one frame of zero or more people as the layout has them, `header.layout.jointCount`
  /// joints each: what a detector gave, nothing lost on the way through the canonical joints
  /// (BlazePose's hands, feet and face stay in the file). JSON Lines only.
  public func write(t: Double, layoutPeople people: [[Joint]]) throws {
    precondition(format == .jsonl, "layout joints are written to JSON Lines only")
    precondition(
      people.allSatisfy { $0.count == header.layout.jointCount },
      "each person has the layout's \(header.layout.jointCount) joints")
    frameIndex += 1
    output!.writeLine(Self.jsonFrameLine(t: t, layoutPeople: people))
  }

  /// Writes out what is buffered.
  ///
  /// - Throws: `PoseFileError` for a write that failed, now or since the last flush (a full
  ///   disk): the file is then not whole.
  public func flush() throws { try output?.flush() }

  /// Writes out what is buffered and closes the file; the writer writes nothing after.
  ///
  /// - Throws: as `flush()`, and when the file cannot be closed.
  public func close() throws { try output?.close() }

  /// One JSON Lines frame, `pose` for one person and `people` otherwise.
  public static func jsonFrameLine(t: Double, people: [Pose], header: PoseFileHeader) -> String {
    jsonFrameLine(
      t: t, layoutPeople: people.map { header.layout.layoutJoints(from: $0, space: header.space) })
  }

  static func jsonFrameLine(t: Double, layoutPeople persons: [[Joint]]) -> String {
    let body: String
    if persons.count == 1 {
      body = "\"pose\":" + jsonJoints(persons[0])
    } else {
      body = "\"people\":[" + persons.map(jsonJoints).joined(separator: ",") + "]"
    }
    return "{\"t\":\(number(t)),\(body)}"
  }

  static func jsonJoints(_ joints: [Joint]) -> String {
    "["
      + joints.map { $0.isMissing ? "null" : "[\($0.x),\($0.y),\($0.confidence)]" }.joined(
        separator: ",") + "]"
  }

  /// Shortest text that reads back to the same Double.
  static func number(_ value: Double) -> String { PoseFileHeader.formatNumber(value) }
}
