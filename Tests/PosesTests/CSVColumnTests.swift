import Foundation
import TestSupport
import Testing

@testable import Poses

/// A CSV's column row says which column holds what: columns are read by their names, in any
/// order, and a row that names columns wrongly is refused with the column it got wrong.
@Suite struct CSVColumnTests {
  /// A CSV of the squatter in coco17, as the writer puts it out: `# header`, column row, rows.
  static func csvLines() throws -> [String] {
    let path = Fixtures.temporaryFolder() + "/poses.csv"
    let writer = try PoseFileWriter(
      path: path, format: .csv, header: PoseFileHeader(layout: .coco17))
    for frame in PoseFileRoundTripTests.frames() {
      try writer.write(t: frame.t, people: frame.people)
    }
    try writer.flush()
    return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
  }

  /// The same lines with each row's (and the column row's) columns taken in `order`.
  static func reordered(_ lines: [String], _ order: [Int]) -> [String] {
    lines.map { line in
      guard !line.hasPrefix("#") else { return line }
      let cells = line.split(separator: ",", omittingEmptySubsequences: false)
      return order.map { String(cells[$0]) }.joined(separator: ",")
    }
  }

  static func read(_ lines: [String]) throws -> [PeopleFrame] {
    let path = Fixtures.file(named: "poses.csv", lines.joined(separator: "\n") + "\n")
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(path))
    #expect(errors.isEmpty, "\(errors)")
    return frames
  }

  /// With or without the `#` header: the nose's columns moved to the end (confidence first),
  /// `t` among the joints and one joint's x and y swapped read as the file in writer's order.
  @Test(arguments: [true, false])
  func columnsAreReadByTheirNamesInAnyOrder(withHeader: Bool) throws {
    let lines = try Self.csvLines().filter { withHeader || !$0.hasPrefix("#") }
    let order = [5, 4] + Array(6...40) + [0] + Array(41...51) + [3, 1, 2]
    #expect(Set(order) == Set(0...51))
    let expected = try Self.read(lines)
    let read = try Self.read(Self.reordered(lines, order))
    #expect(read.count == expected.count)
    for (got, want) in zip(read, expected) {
      #expect(got.t == want.t)
      #expect(got.people == want.people)
    }
  }

  /// A column row whose names are no joint's (a spreadsheet's own headings) is read in order.
  @Test func aColumnRowOfOtherNamesIsReadInOrder() throws {
    let lines = try Self.csvLines()
    let headings = (0..<52).map { "column\($0)" }.joined(separator: ",")
    let read = try Self.read([lines[0], headings] + lines.dropFirst(2))
    let expected = try Self.read(lines)
    #expect(read.map(\.people) == expected.map(\.people))
  }

  static let badColumnRows: [(rename: [Int: String], header: Bool, message: String)] = [
    (
      [2: "nose_z"], true,
      "column 3 of the column row is \"nose_z\": not t or the _x, _y or _c of a coco17 joint"
    ),
    ([5: "nose_x"], true, "column 6 of the column row repeats \"nose_x\" (column 2)"),
    (
      [0: "time"], true,
      "column 1 of the column row is \"time\": not t or the _x, _y or _c of a coco17 joint"
    ),
    // Without a header the names choose the layout; these name no layout's joints exactly.
    (
      [1: "mid_hip_x", 2: "mid_hip_y", 3: "mid_hip_c"], false,
      "the column row names the joints of no one layout; the nearest, coco17: column 2 of the "
        + "column row is \"mid_hip_x\": not t or the _x, _y or _c of a coco17 joint"
    ),
  ]

  @Test(arguments: badColumnRows)
  func aColumnRowThatNamesAColumnWronglySaysWhich(
    _ bad: (rename: [Int: String], header: Bool, message: String)
  ) throws {
    var lines = try Self.csvLines()
    var names = lines[1].split(separator: ",").map(String.init)
    for (index, name) in bad.rename { names[index] = name }
    lines[1] = names.joined(separator: ",")
    if !bad.header { lines.removeFirst() }
    let path = Fixtures.file(named: "poses.csv", lines.joined(separator: "\n") + "\n")
    #expect(throws: PoseFileError(file: path, line: bad.header ? 2 : 1, message: bad.message)) {
      try PoseFiles.open(path)
    }
  }

  @Test func aColumnRowMissingAColumnNamesIt() throws {
    var lines = try Self.csvLines()
    lines = Self.reordered(lines, Array(0...50))  // every row without right_ankle_c
    let path = Fixtures.file(named: "poses.csv", lines.joined(separator: "\n") + "\n")
    #expect(
      throws: PoseFileError(
        file: path, line: 2,
        message:
          "the column row has no \"right_ankle_c\"; coco17 needs t, then x, y and c for each of "
          + "its 17 joints")
    ) {
      try PoseFiles.open(path)
    }
  }
}
