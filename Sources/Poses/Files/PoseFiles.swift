import Foundation

/// Opens any pose input Spotter reads, by path: a JSON Lines pose file, a CSV, a folder of
/// OpenPose JSON files, or `-` for standard input.
///
/// The format is the folder's, for a folder; otherwise it is sniffed from the first byte that is
/// not white space, after a UTF-8 byte order mark if there is one: `{` is JSON Lines, anything
/// else CSV.
public enum PoseFiles {
  /// Reader settings that the files themselves may not carry.
  public struct Options: Sendable {
    /// The frame rate for sources without times (an OpenPose folder), or to override a CSV's.
    public var fps: Double?
    public var maxLineLength: Int

    public init(fps: Double? = nil, maxLineLength: Int = LineReader.defaultMaxLineLength) {
      self.fps = fps
      self.maxLineLength = maxLineLength
    }
  }

  public static func open(_ path: String, options: Options = Options()) throws -> any PoseSource {
    if path == "-" {
      return try open(
        lines: LineReader(descriptor: 0, closing: false, maxLineLength: options.maxLineLength),
        name: "<stdin>", options: options)
    }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw PoseFileError(file: path, message: "no such file or folder")
    }
    if isFolder.boolValue { return try OpenPoseFolderReader(folder: path, fps: options.fps ?? 30) }
    return try open(
      lines: LineReader(path: path, maxLineLength: options.maxLineLength), name: path,
      options: options)
  }

  static func open(lines: LineReader, name: String, options: Options) throws -> any PoseSource {
    try lines.skipByteOrderMark()
    guard let first = try lines.firstSignificantByte() else {
      throw PoseFileError(
        file: name,
        message: "the file is empty; expected a header line such as \(PoseFileHeader.example)")
    }
    if first == UInt8(ascii: "{") {
      return try JSONLinesPoseReader(lines: lines, name: name)
    }
    return try CSVPoseReader(lines: lines, name: name, fps: options.fps)
  }
}

extension LineReader {
  /// The first byte that is not white space, without consuming anything; nil for empty input.
  func firstSignificantByte() throws -> UInt8? {
    try peek { bytes in bytes.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } }
  }
}
