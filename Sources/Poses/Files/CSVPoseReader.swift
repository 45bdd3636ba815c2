/// Reads poses from CSV, one person per row: `t`, then x, y, c for each joint of the layout.
///
/// ```
/// # {"spotter":"poses","version":1,"layout":"coco17","units":"pixels","fps":30}
/// t,nose_x,nose_y,nose_c,left_eye_x,left_eye_y,left_eye_c,...
/// 0.0,312.5,104.2,0.98,318.0,99.1,0.95,...
/// ```
/// Both leading lines are optional. The `#` line is a pose-file header (README, "Pose files").
/// A column row that names joints (`<joint>_x`, `_y`, `_c`, and `t`) places the columns by
/// name, in any order: a spreadsheet that moved a column still reads right, and a row that
/// names a column wrongly, twice or not at all is refused, naming it. Without a header, the
/// layout is the one whose joints the column row names, or else the one with (columns − 1) / 3
/// joints, read in the layout's order. An empty `t` is index / fps; an empty joint (x, y and c
/// all empty) is missing; an empty c alone means confidence 1.
public final class CSVPoseReader: PoseSource {
  public let header: PoseFileHeader
  public let name: String
  private let lines: LineReader
  private var clock: FrameClock
  private var joints: [Float]
  /// For each column, the value it holds: 0 is `t`, 1 + 3j + k the x, y or c (k = 0, 1, 2) of
  /// the layout's joint j.
  private let slots: [Int]
  /// One row's values by slot; nil for an empty cell.
  private var cells: [Double?]
  /// A first data row read while looking for the layout.
  private var pendingRow: (bytes: [UInt8], line: Int)?

  public init(lines: LineReader, name: String, fps: Double? = nil) throws {
    self.lines = lines
    self.name = name
    var header: PoseFileHeader?
    var columnNames: [String]?
    var columnRowLine = 0
    var firstRow: (bytes: [UInt8], line: Int)?
    while firstRow == nil, let line = try lines.next() {
      guard case .text(let text) = line else {
        throw PoseFileError(
          file: name, line: lines.lineNumber,
          message: "line is longer than \(lines.maxLineLength) bytes before any data row")
      }
      let trimmed = String(decoding: text, as: UTF8.self).trimmingSpaces
      if trimmed.isEmpty { continue }
      if trimmed.hasPrefix("#") {
        guard header == nil, columnNames == nil else { continue }  // later comments are ignored
        let json = Array(trimmed.dropFirst().utf8)
        do {
          header = try json.withUnsafeBufferPointer { try PoseFileHeader(line: $0, file: name) }
        } catch let error as PoseFileError {
          throw PoseFileError(file: name, line: lines.lineNumber, message: error.message)
        }
      } else if columnNames == nil, let first = trimmed.first, first.isLetter {
        columnNames = trimmed.split(separator: ",", omittingEmptySubsequences: false).map {
          String($0).trimmingSpaces
        }
        columnRowLine = lines.lineNumber
      } else {
        firstRow = (Array(text), lines.lineNumber)
      }
    }
    var named: (layout: PoseLayout, slots: [Int])?
    if let columnNames {
      do {
        named = try CSVColumnRow.slots(of: columnNames, stated: header?.layout)
      } catch {
        throw PoseFileError(file: name, line: columnRowLine, message: error.message)
      }
    }
    let layout: PoseLayout
    if let named {
      layout = named.layout
    } else if let stated = header?.layout {
      layout = stated
    } else {
      let count =
        columnNames?.count
        ?? firstRow.map {
          $0.bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).count
        }
      guard let count else {
        throw PoseFileError(
          file: name, message: "the CSV has no rows; expected t, then x, y, c for each joint")
      }
      guard (count - 1) % 3 == 0,
        let inferred = PoseLayout.inferred(fromJointCount: (count - 1) / 3)
      else {
        let options = PoseLayout.allCases.map { "\(1 + 3 * $0.jointCount) (\($0.rawValue))" }
        throw PoseFileError(
          file: name, line: columnNames == nil ? firstRow?.line : columnRowLine,
          message:
            "cannot tell the layout from \(count) columns; expected "
            + "\(options.joined(separator: ", ")), or a '# {header}' line"
        )
      }
      layout = inferred
    }
    var resolved = header ?? PoseFileHeader(layout: layout)
    if let fps { resolved.fps = fps }
    let columnCount = 1 + 3 * layout.jointCount
    if named == nil, let columnNames, columnNames.count != columnCount {
      throw PoseFileError(
        file: name, line: columnRowLine,
        message:
          "the column row has \(columnNames.count) columns; \(layout.rawValue) needs "
          + "\(columnCount) (t, then x, y, c for each of its \(layout.jointCount) joints)"
      )
    }
    self.header = resolved
    clock = FrameClock(fps: resolved.fps)
    joints = Array(repeating: 0, count: layout.jointCount * 3)
    slots = named?.slots ?? Array(0..<columnCount)
    cells = Array(repeating: nil, count: columnCount)
    pendingRow = firstRow
  }

  /// The column row this reader's writer puts out for a layout.
  static func columnRow(for layout: PoseLayout) -> String {
    (0..<1 + 3 * layout.jointCount).map { CSVColumnRow.name(ofSlot: $0, layout) }.joined(
      separator: ",")
  }

  public func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
    if let pending = pendingRow {
      pendingRow = nil
      return pending.bytes.withUnsafeBufferPointer {
        row(text: $0, line: pending.line, into: &frame)
      }
    }
    while let line = try lines.next() {
      switch line {
      case .tooLong(let length):
        _ = clock.time(stated: nil)
        return .skipped(
          PoseFileError(
            file: name, line: lines.lineNumber,
            message:
              "line is \(length) bytes long; the limit is \(lines.maxLineLength) bytes, so it "
              + "was skipped"
          ))
      case .text(let text):
        if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) || text.first == UInt8(ascii: "#") {
          continue
        }
        return row(text: text, line: lines.lineNumber, into: &frame)
      }
    }
    return .end
  }

  private func row(text: UnsafeBufferPointer<UInt8>, line: Int, into frame: inout PeopleFrame)
    -> PoseReadResult
  {
    let stated: Double?
    do {
      stated = try parseRow(text, into: &joints)
    } catch {
      _ = clock.time(stated: nil)
      return .skipped(
        PoseFileError(file: name, line: line, column: error.column, message: error.message))
    }
    if let error = clock.stamp(&frame, stated: stated, line: line, file: name) {
      return .skipped(error)
    }
    frame.box = header.space.frameBox
    let pose = joints.withUnsafeBufferPointer {
      header.layout.canonicalPose(from: $0, space: header.space)
    }
    if pose.hasPerson { frame.people.append(pose) }
    return .frame
  }

  /// Parses one row into (x, y, c) triples, each column to its slot; returns its `t`, if
  /// stated.
  private func parseRow(_ text: UnsafeBufferPointer<UInt8>, into joints: inout [Float])
    throws(FrameLineError) -> Double?
  {
    let layout = header.layout
    let expected = slots.count
    var fields = 0
    for byte in text where byte == UInt8(ascii: ",") { fields += 1 }
    fields += 1
    guard fields == expected else {
      throw FrameLineError(
        column: 1,
        message:
          "row has \(fields) columns; expected \(expected) (t, then x, y, c for each of the "
          + "\(layout.jointCount) \(layout.rawValue) joints)"
      )
    }
    var scanner = ByteScanner(bytes: text)
    for (column, slot) in slots.enumerated() {
      scanner.skipSpace()
      cells[slot] = nil
      if scanner.peek != UInt8(ascii: ","), !scanner.isAtEnd {
        let start = scanner.position + 1
        let number = try scanner.number(named: columnName(column))
        guard number.isFinite else {
          throw FrameLineError(
            column: start,
            message: "\(columnName(column)) is \(number); values must be finite numbers")
        }
        cells[slot] = number
        scanner.skipSpace()
      }
      if column + 1 < expected {
        try scanner.expect(UInt8(ascii: ","), "',' after \(columnName(column))")
      } else if !scanner.isAtEnd {
        throw FrameLineError(
          column: scanner.position + 1, message: "unexpected text after the last column")
      }
    }
    for joint in 0..<layout.jointCount {
      let (x, y, c) = (cells[1 + 3 * joint], cells[2 + 3 * joint], cells[3 + 3 * joint])
      if x == nil && y == nil && c == nil {
        joints[3 * joint] = 0
        joints[3 * joint + 1] = 0
        joints[3 * joint + 2] = 0
        continue
      }
      guard let x, let y else {
        throw FrameLineError(
          column: 1,
          message: "joint \(joint) (\(layout.jointNames[joint])) has a confidence but no x or y")
      }
      if let c, c < 0 {
        throw FrameLineError(
          column: 1,
          message:
            "\(columnName(slots.firstIndex(of: 3 + 3 * joint)!)) is \(c); confidence must be 0 "
            + "or more"
        )
      }
      joints[3 * joint] = Float(x)
      joints[3 * joint + 1] = Float(y)
      joints[3 * joint + 2] = Float(c ?? 1)
    }
    return cells[0]
  }

  /// A column for messages: its number and what it holds, e.g. `column 2 (nose_x)`.
  private func columnName(_ column: Int) -> String {
    "column \(column + 1) (\(CSVColumnRow.name(ofSlot: slots[column], header.layout)))"
  }
}

extension String {
  var trimmingSpaces: String {
    var text = Substring(self)
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return String(text)
  }
}
