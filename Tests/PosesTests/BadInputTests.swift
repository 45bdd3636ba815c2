import Foundation
import TestSupport
import Testing

@testable import Poses

/// Every kind of bad input gets an error naming the file, the line and what was wrong; a bad
/// frame is skipped and the stream goes on; a bad header stops the file.
@Suite struct BadInputTests {
  static let header = #"{"spotter":"poses","version":1,"layout":"coco17","fps":30}"#
  static func good(_ t: Double) -> String {
    PoseFileWriter.jsonFrameLine(
      t: t, people: [Fixtures.squatter(at: t)], header: PoseFileHeader(layout: .coco17))
  }
  static let seventeen = Array(repeating: "[1,2,0.5]", count: 17)

  /// Reads a file made of the header, a good frame, `bad`, and another good frame.
  static func readAround(_ bad: String, ext: String = "jsonl") throws -> (
    frames: [PeopleFrame], errors: [PoseFileError], path: String
  ) {
    let path = Fixtures.file(
      named: "bad.\(ext)", [header, good(0), bad, good(1)].joined(separator: "\n") + "\n")
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(path))
    return (frames, errors, path)
  }

  static let badFrames: [(line: String, column: Int?, message: String)] = [
    (#"{"t":0.5,"pose":[[1,2,0.5],"#, nil, "expected"),
    (#"not json at all"#, 1, "expected a frame object starting with '{', found 'n'"),
    (#"{"t":0.5,"pose":[[1,2,0.5]]}"#, 17, "pose has 1 joints; the layout has 17"),
    (#"{"t":0.5,"people":[[[1,2,0.5]]]}"#, 20, "person 0 has 1 joints; the layout has 17"),
    (
      #"{"t":0.5,"pose":[[NaN,2,0.5]"# + String(repeating: ",null", count: 16) + "]}", 19,
      "x of joint 0 (nose) is nan; coordinates must be finite numbers"
    ),
    (
      #"{"t":0.5,"pose":[[1,1e999,0.5]"# + String(repeating: ",null", count: 16) + "]}", 21,
      "y of joint 0 (nose) is inf; coordinates must be finite numbers"
    ),
    (
      #"{"t":0.5,"pose":[[1,2,-0.5]"# + String(repeating: ",null", count: 16) + "]}", 23,
      "confidence of joint 0 (nose) is -0.5; confidence must be 0 or more"
    ),
    (
      #"{"t":0.5,"pose":[[1]"# + String(repeating: ",null", count: 16) + "]}", 20,
      "joint 0 (nose) has 1 numbers; expected [x, y] or [x, y, c]"
    ),
    (#"{"t":"soon","pose":null}"#, 6, "\"t\": expected a number, found '\"'"),
    (#"{"t":0.5}"#, 1, "frame has neither \"pose\" nor \"people\""),
    (#"{"t":0.5,"pose":null,"people":[]}"#, 1, "frame has both \"pose\" and \"people\"; give one"),
    (#"{"t":0.5,"pose":null} trailing"#, 23, "unexpected text after the frame object"),
  ]

  @Test(arguments: badFrames)
  func aBadFrameLineIsNamedAndSkipped(_ bad: (line: String, column: Int?, message: String)) throws {
    let (frames, errors, path) = try Self.readAround(bad.line)
    #expect(frames.map(\.t) == [0, 1])
    #expect(frames.map(\.line) == [2, 4])
    try #require(errors.count == 1)
    #expect(errors[0].file == path)
    #expect(errors[0].line == 3)
    if let column = bad.column { #expect(errors[0].column == column) }
    #expect(errors[0].message.hasPrefix(bad.message), "got: \(errors[0].message)")
  }

  @Test func decreasingTimeIsAnErrorOnThatLine() throws {
    let (frames, errors, _) = try Self.readAround(
      Self.good(0.5).replacingOccurrences(of: "\"t\":0.5", with: "\"t\":-1"))
    #expect(frames.count == 2)
    #expect(errors.map(\.line) == [3])
    #expect(
      errors.first?.message
        == "t = -1.0 is before the previous frame's t = 0.0; t must never decrease")
  }

  static func read(times: [Double]) throws -> (frames: [PeopleFrame], errors: [PoseFileError]) {
    let lines = [Self.header] + times.map { Self.good($0) }
    let path = Fixtures.file(named: "times.jsonl", lines.joined(separator: "\n") + "\n")
    return try Fixtures.readAll(PoseFiles.open(path))
  }

  @Test func aFrameFarAheadLosesOneFrameNotTheRestOfTheStream() throws {
    // A glitch at 3,000 s, then the stream as it was: the first frame back is skipped (and
    // says why), and the next, behind too, shows the clock jumped: it goes on a frame after
    // 3,000 s, and the rest keep their spacing.
    let (frames, errors) = try Self.read(times: [0, 0.1, 3000, 0.2, 0.3, 0.4, 0.5])
    #expect(errors.map(\.line) == [5])
    #expect(
      errors.first?.message
        == "t = 0.2 is 2999.8 s before the previous frame's t = 3000.0; if the next frame is "
        + "that far behind too, the clock jumped (a frame stamped far ahead, or a source that "
        + "restarted its clock) and later frames go on from it")
    #expect(frames.count == 6)
    let after = frames.suffix(3).map(\.t)
    for (index, t) in after.enumerated() {
      #expect(abs(t - (3000 + 1.0 / 30 + 0.1 * Double(index))) < 1e-9, "\(after)")
    }
  }

  @Test func aFrameStampedFarBehindIsOneBadLineAndMovesNothing() throws {
    let (frames, errors) = try Self.read(times: [0, 1, 2, 3, 0.5, 4, 5])
    #expect(errors.map(\.line) == [6])
    #expect(frames.map(\.t) == [0, 1, 2, 3, 4, 5])
    // Followed by a frame a little behind (jitter): two bad lines, still nothing moved.
    let jittered = try Self.read(times: [0, 1, 2, 3, 0.5, 2.9, 4, 5])
    #expect(jittered.errors.map(\.line) == [6, 7])
    #expect(jittered.frames.map(\.t) == [0, 1, 2, 3, 4, 5])
  }

  @Test func aTimeBeyondTenToTheTwelveIsABadLine() throws {
    let (frames, errors) = try Self.read(times: [0, 1e300, 1, 2])
    #expect(errors.first?.message == "t = 1e+300 is beyond ±10¹² s; t is in seconds")
    #expect(frames.map(\.t) == [0, 1, 2])
  }

  @Test func aFrameWithoutTimeAmongTimedOnesSaysSo() throws {
    let late = [Self.header, Self.good(5), #"{"pose":null}"#, Self.good(6)]
    let path = Fixtures.file(named: "untimed.jsonl", late.joined(separator: "\n") + "\n")
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(path))
    #expect(frames.map(\.t) == [5, 6])
    #expect(
      errors.first?.message
        == "the frame has no t, and its index / fps (0.03333333333333333 s) is before the "
        + "previous frame's t = 5.0")
  }

  @Test func aTenMegabyteLineIsSkippedWithItsLength() throws {
    let huge = "{\"t\":0.5,\"pose\":[" + String(repeating: " ", count: 10 << 20) + "]}"
    let (frames, errors, _) = try Self.readAround(huge)
    #expect(frames.count == 2)
    #expect(errors.map(\.line) == [3])
    #expect(
      errors.first?.message
        == "line is \(huge.utf8.count) bytes long; the limit is 1048576 bytes, so it was skipped")
  }

  static let badHeaders: [(text: String, message: String)] = [
    ("", "the file is empty; expected a header line such as"),
    ("\n\n", "the file is empty"),
    (#"{"t":0,"pose":null}"#, "the file starts with a frame; the first line must be a header"),
    (
      #"{"spotter":"poses","layout":"coco18"}"#,
      "unknown layout \"coco18\"; expected one of createml18, vision19, coco17, mediapipe33, "
        + "openpose25"
    ),
    (#"{"spotter":"poses"}"#, "the header has no \"layout\""),
    (
      #"{"spotter":"frames","layout":"coco17"}"#,
      "the header's \"spotter\" is \"frames\"; expected \"poses\""
    ),
    (
      #"{"spotter":"poses","version":2,"layout":"coco17"}"#,
      "the header's version is 2; this reader knows version 1"
    ),
    (#"{"spotter":"poses","layout":"coco17","units":"inches"}"#, "unknown units \"inches\""),
    (#"{"spotter":"poses","layout":"coco17","origin":"centre"}"#, "unknown origin \"centre\""),
    (
      #"{"spotter":"poses","layout":"coco17","fps":0}"#,
      "\"fps\" is 0; expected a number from 0.01 to 10000"
    ),
    (#"{"spotter":"poses","layout":"coco17","image":{"width":-1}}"#, "\"image\" is"),
    (#"{"spotter":"poses","layout":"#, "the header is not valid JSON"),
  ]

  @Test(arguments: badHeaders)
  func aBadHeaderStopsTheFileWithOneError(_ bad: (text: String, message: String)) throws {
    let body = bad.text.hasPrefix("{") ? bad.text + "\n" + Self.good(0) + "\n" : bad.text
    let path = Fixtures.file(named: "h.jsonl", body)
    let source = try? PoseFiles.open(path)
    #expect(source == nil)
    do {
      _ = try PoseFiles.open(path)
    } catch let error as PoseFileError {
      #expect(error.file == path)
      #expect(error.message.hasPrefix(bad.message), "got: \(error.message)")
    }
  }

  @Test func aMissingFileSaysSo() {
    #expect(throws: PoseFileError(file: "/nonexistent/x.jsonl", message: "no such file or folder"))
    {
      try PoseFiles.open("/nonexistent/x.jsonl")
    }
  }

  @Test func csvWithAMissingColumnNamesTheRow() throws {
    let header = "# " + PoseFileHeader(layout: .coco17).jsonLine
    let full = (["0"] + (0..<17).flatMap { _ in ["1", "2", "0.5"] }).joined(separator: ",")
    let short = (["0.1"] + (0..<17).flatMap { _ in ["1", "2", "0.5"] }).dropLast().joined(
      separator: ",")
    let later = full.replacingOccurrences(of: "0,", with: "0.2,", options: .anchored)
    let path = Fixtures.file(named: "p.csv", [header, full, short, later].joined(separator: "\n"))
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(path))
    #expect(frames.map(\.t) == [0, 0.2])
    #expect(errors.map(\.line) == [3])
    #expect(
      errors.first?.message
        == "row has 51 columns; expected 52 (t, then x, y, c for each of the 17 coco17 joints)")
  }

  @Test func csvWithTextInANumberColumnNamesTheColumn() throws {
    let row = (["0"] + ["abc"] + (0..<50).map { _ in "1" }).joined(separator: ",")
    let path = Fixtures.file(
      named: "p.csv", "# " + PoseFileHeader(layout: .coco17).jsonLine + "\n" + row + "\n")
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(path))
    #expect(frames.isEmpty)
    #expect(errors.first?.message == "column 2 (nose_x): expected a number, found 'a'")
    #expect(errors.first?.column == 3)
  }

  @Test func aCSVWithAnUnknownColumnCountSaysWhatCountsWork() throws {
    let path = Fixtures.file(named: "p.csv", "1,2,3,4,5\n")
    #expect(throws: PoseFileError.self) { try PoseFiles.open(path) }
    do { _ = try PoseFiles.open(path) } catch let error as PoseFileError {
      #expect(
        error.message.hasPrefix("cannot tell the layout from 5 columns; expected 55 (createml18)"))
    }
  }

  @Test func badOpenPoseFilesAreSkippedAndTimeKeepsCounting() throws {
    let folder = Fixtures.temporaryFolder()
    let person =
      "{\"people\":[{\"pose_keypoints_2d\":["
      + Array(repeating: "1", count: 75).joined(separator: ",") + "]}]}"
    for (index, text) in [
      person, "{broken", person, "{\"people\":[{\"pose_keypoints_2d\":[1,2]}]}", person,
    ].enumerated() {
      #expect(
        FileManager.default.createFile(
          atPath: folder + "/f\(index)_keypoints.json", contents: Data(text.utf8)))
    }
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(folder))
    let expected: [Double] = [0, 2.0 / 30, 4.0 / 30]
    #expect(frames.map(\.t) == expected)
    #expect(errors.count == 2)
    #expect(
      errors[0].file.hasSuffix("f1_keypoints.json") && errors[0].message == "not a JSON object")
    #expect(
      errors[1].message.hasPrefix(
        "person 0 has 2 values in \"pose_keypoints_2d\"; openpose25 needs 75"))
  }

  @Test func badAnnotationsNameTheEntryAndField() throws {
    let cases: [(String, String)] = [
      (#"[{"file_name":"a.jsonl"}]"#, "entry 0 has no \"label\""),
      (
        #"[{"file_name":"a.jsonl","label":"squat","reps":"ten"}]"#,
        "entry 0 field \"reps\" is not a Int"
      ),
      (
        #"[{"file_name":"a.jsonl","label":"squat","start_time":5,"end_time":1}]"#,
        "entry 0 (a.jsonl): start_time 5.0 must be finite and not after end_time 1.0"
      ),
      (
        #"[{"file_name":"a.jsonl","label":"squat","reps":2,"rep_bounds":[[0,1]]}]"#,
        "entry 0 (a.jsonl): reps is 2 but rep_bounds has 1 entries"
      ),
      (#"{"file_name":"a.jsonl"}"#, "entry"),
      // A syntax error says where: a comma missing at the end of line 2.
      (
        "[{\"file_name\": \"a.jsonl\",\n  \"label\": \"squat\"\n  \"reps\": 3}]",
        "not a JSON array of annotations: not valid JSON at line 3, column 3"
      ),
    ]
    for (text, message) in cases {
      let path = Fixtures.file(named: "annotations.json", text)
      do {
        _ = try Annotations.read(path)
        Issue.record("no error for \(text)")
      } catch let error as PoseFileError {
        #expect(error.file == path)
        #expect(error.message.hasPrefix(message) || message == "entry", "got: \(error.message)")
      }
    }
  }

  /// Joints from C with a coordinate or a score that is not a finite number are missing, so
  /// one bad value cannot reach the features or the rep signals.
  @Test func jointsFromCWithNonFiniteValuesAreMissing() {
    var triples = [Float](repeating: 0, count: 3 * CanonicalJoint.count)
    for joint in 0..<CanonicalJoint.count {
      (triples[3 * joint], triples[3 * joint + 1], triples[3 * joint + 2]) = (10, 20, 0.9)
    }
    triples[0] = .nan
    triples[3 + 1] = .infinity
    triples[6 + 2] = .nan
    let pose = triples.withUnsafeBufferPointer { Pose(triples: $0.baseAddress!) }
    #expect(pose.joints[0].isMissing && pose.joints[1].isMissing && pose.joints[2].isMissing)
    #expect(pose.presentCount() == CanonicalJoint.count - 3)
  }

  @Test func aMissingAnnotationFileIsSaidToBeMissing() {
    #expect {
      _ = try Annotations.read("/nonexistent-folder/annotations.json")
    } throws: { error in
      (error as? PoseFileError)?.message == "no such annotation file"
    }
  }

  @Test func annotationsReadWithRepsAndBoundsAndResolvedPaths() throws {
    let text =
      #"[{"file_name":"clips/a.jsonl","label":"squat","start_time":0,"end_time":8,"reps":2,"#
      + #""rep_bounds":[[0.5,2.5],[3,5]],"action":"squat"},{"file_name":"/abs/b.jsonl","#
      + #""label":"other"}]"#
    let path = Fixtures.file(named: "annotations.json", text)
    let entries = try Annotations.read(path)
    #expect(entries.count == 2)
    #expect(entries[0].reps == 2 && entries[0].repBounds == [[0.5, 2.5], [3, 5]])
    #expect(
      entries[0].resolvedPath == (path as NSString).deletingLastPathComponent + "/clips/a.jsonl")
    #expect(entries[1].resolvedPath == "/abs/b.jsonl" && entries[1].startTime == nil)
    let copy = Fixtures.temporaryFolder() + "/copy.json"
    try Annotations.write(entries, to: copy)
    #expect(try Annotations.read(copy).map(\.fileName) == entries.map(\.fileName))
  }
}
