import Foundation
import TestSupport
import Testing

@testable import Poses

@Suite struct PoseFileRoundTripTests {
  /// Frames of the squatter, with a second person and an empty frame mixed in.
  static func frames(count: Int = 12) -> [(t: Double, people: [Pose])] {
    (0..<count).map { index in
      let t = Double(index) / 30
      switch index % 4 {
      case 1:
        return (t, [Fixtures.squatter(at: t), Fixtures.squatter(at: t, centreX: 100, height: 120)])
      case 3: return (t, [])
      default: return (t, [Fixtures.squatter(at: t)])
      }
    }
  }

  static let spaces = [
    CoordinateSpace(),
    CoordinateSpace(units: .normalized, origin: .bottomLeft, imageWidth: 640, imageHeight: 480),
    CoordinateSpace(units: .pixels, origin: .topLeft, mirrored: true),
  ]

  /// Writes frames in a format and reads them back, to canonical poses in the same space.
  static func roundTrip(
    format: PoseFileFormat, header: PoseFileHeader, frames: [(t: Double, people: [Pose])]
  ) throws -> (read: [PeopleFrame], errors: [PoseFileError], source: any PoseSource) {
    let path =
      Fixtures.temporaryFolder()
      + (format == .openposeFolder ? "/frames" : "/poses.\(format.rawValue)")
    let writer = try PoseFileWriter(path: path, format: format, header: header)
    for frame in frames { try writer.write(t: frame.t, people: frame.people) }
    try writer.flush()
    let source = try PoseFiles.open(path, options: PoseFiles.Options(fps: header.fps))
    let (read, errors) = try Fixtures.readAll(source)
    return (read, errors, source)
  }

  /// Only the joints a layout carries survive it.
  static func kept(_ pose: Pose, by layout: PoseLayout) -> Pose {
    let raw = layout.layoutJoints(from: pose, space: CoordinateSpace()).flatMap {
      [$0.x, $0.y, $0.confidence]
    }
    return raw.withUnsafeBufferPointer { layout.canonicalPose(from: $0, space: CoordinateSpace()) }
  }

  static func near(_ a: Pose, _ b: Pose) -> Bool {
    for index in a.joints.indices {
      let (ja, jb) = (a.joints[index], b.joints[index])
      if ja.isMissing != jb.isMissing { return false }
      if !ja.isMissing
        && (abs(ja.x - jb.x) > 1e-3 || abs(ja.y - jb.y) > 1e-3 || ja.confidence != jb.confidence)
      {
        return false
      }
    }
    return true
  }

  /// A write that fails once the buffer fills (a full disk: /dev/full) is not lost: the next
  /// flush, or the close, throws it, even with nothing left to write by then, so a pose file
  /// with a gap in it is never taken for a whole one.
  @Test(arguments: [false, true])
  func aWriteThatFailedOnItsOwnIsThrownLater(closing: Bool) throws {
    try #require(FileManager.default.fileExists(atPath: "/dev/full"), "no /dev/full here")
    let output = try TextOutput(creating: "/dev/full")
    // A whole buffer's worth: written out (and failing) inside `write`, none of it left over.
    output.write(String(repeating: "x", count: 64 * 1024))
    let error = #expect(throws: PoseFileError.self) {
      if closing { try output.close() } else { try output.flush() }
    }
    #expect(error?.file == "/dev/full")
    #expect(error?.message.hasPrefix("write failed: ") == true, "\(String(describing: error))")
    // Thrown once: the caller has it.
    #expect(throws: Never.self) { try output.flush() }
  }

  @Test(arguments: PoseLayout.allCases, spaces)
  func jsonLinesRoundTripsEveryLayoutAndSpace(layout: PoseLayout, space: CoordinateSpace) throws {
    let header = PoseFileHeader(
      layout: layout, space: space, fps: 30, source: "test", extra: ["camera": "\"front\""])
    let frames = Self.frames()
    let (read, errors, source) = try Self.roundTrip(format: .jsonl, header: header, frames: frames)
    #expect(errors.isEmpty)
    #expect(source.header == header)
    #expect(read.count == frames.count)
    for (got, want) in zip(read, frames) {
      #expect(got.t == want.t)
      #expect(got.people.count == want.people.count)
      for (a, b) in zip(got.people, want.people) { #expect(Self.near(a, Self.kept(b, by: layout))) }
    }
  }

  @Test(arguments: PoseLayout.allCases)
  func csvRoundTripsTheFirstPerson(layout: PoseLayout) throws {
    let header = PoseFileHeader(layout: layout, space: Self.spaces[1], fps: 30)
    let frames = Self.frames()
    let (read, errors, source) = try Self.roundTrip(format: .csv, header: header, frames: frames)
    #expect(errors.isEmpty)
    #expect(source.header.layout == layout)
    #expect(read.count == frames.count)
    for (got, want) in zip(read, frames) {
      #expect(got.t == want.t)
      #expect(got.people.count == min(want.people.count, 1))
      if let first = want.people.first {
        #expect(Self.near(got.people[0], Self.kept(first, by: layout)))
      }
    }
  }

  @Test(arguments: [PoseLayout.openpose25, .createml18])
  func openPoseFolderRoundTrips(layout: PoseLayout) throws {
    let header = PoseFileHeader(layout: layout, fps: 25)
    let frames = Self.frames().enumerated().map {
      (t: Double($0.offset) / 25, people: $0.element.people)
    }
    let (read, errors, _) = try Self.roundTrip(
      format: .openposeFolder, header: header, frames: frames)
    #expect(errors.isEmpty)
    #expect(read.count == frames.count)
    for (got, want) in zip(read, frames) {
      #expect(abs(got.t - want.t) < 1e-12)
      #expect(got.people.count == want.people.count)
      for (a, b) in zip(got.people, want.people) {
        #expect(Self.near(a, Self.kept(b, by: .openpose25)))
      }
    }
  }

  /// The decoder's joint buffer starts with room for four people and grows for a crowd: every
  /// count of people, up and down, reads back whole.
  @Test(arguments: [[1, 9, 2, 12, 0, 5], [4, 5, 4, 20, 1]])
  func framesOfAnyNumberOfPeopleReadBack(counts: [Int]) throws {
    let frames = counts.enumerated().map { index, count in
      let t = Double(index) / 30
      return (
        t: t,
        people: (0..<count).map {
          Fixtures.squatter(at: t, centreX: 100 + 60 * Float($0), height: 120 + Float($0))
        }
      )
    }
    let header = PoseFileHeader(layout: .coco17, space: CoordinateSpace(), fps: 30)
    let (read, errors, _) = try Self.roundTrip(format: .jsonl, header: header, frames: frames)
    #expect(errors.isEmpty)
    #expect(read.map(\.people.count) == counts)
    for (frame, expected) in zip(read, frames) {
      for (got, want) in zip(frame.people, expected.people) {
        #expect(Self.near(got, Self.kept(want, by: .coco17)))
      }
    }
  }

  @Test func shorthandJointsAndMissingTimesAreUnderstood() throws {
    let fifteenNulls = Array(repeating: "null", count: 15).joined(separator: ",")
    let text = """
      {"spotter":"poses","version":1,"layout":"createml18","fps":10}
      {"pose":[[1,2],null,[3,4,0.5],\(fifteenNulls)]}

      {"people":[]}
      {"t":null,"people":null,"extra":{"nested":[1,2,{"a":"b\\"c"}]}}
      """
    let (frames, errors) = try Fixtures.readAll(PoseFiles.open(Fixtures.file(text)))
    #expect(errors.isEmpty)
    #expect(frames.map(\.t) == [0, 0.1, 0.2])
    #expect(frames.map(\.line) == [2, 4, 5])
    #expect(frames[0].people[0][.nose] == Joint(x: 1, y: 2, confidence: 1))
    #expect(frames[0].people[0][.rightShoulder] == Joint(x: 3, y: 4, confidence: 0.5))
    #expect(frames[1].people.isEmpty && frames[2].people.isEmpty)
  }

  @Test func csvWithoutHeaderInfersTheLayoutFromItsColumns() throws {
    let row = (["0.5"] + (0..<17).flatMap { ["\($0)", "\(100 + $0)", "0.9"] }).joined(
      separator: ",")
    let (frames, errors) = try Fixtures.readAll(
      PoseFiles.open(Fixtures.file(named: "p.csv", row + "\n" + row + "\n")))
    #expect(errors.isEmpty)
    #expect(frames.count == 2)
    #expect(frames[0].people[0][.rightShoulder].x == 6)
  }

  /// Editors on Windows start UTF-8 files with a byte order mark; it is no part of the first
  /// line, from a file or from standard input (a pipe stands in for it).
  @Test(arguments: [PoseFileFormat.jsonl, .csv], [false, true])
  func aByteOrderMarkBeforeTheFirstLineIsSkipped(format: PoseFileFormat, piped: Bool) throws {
    let header = PoseFileHeader(layout: .coco17)
    let frames = Self.frames()
    let path = Fixtures.temporaryFolder() + "/poses.\(format.rawValue)"
    let writer = try PoseFileWriter(path: path, format: format, header: header)
    for frame in frames { try writer.write(t: frame.t, people: frame.people) }
    try writer.flush()
    let marked = Data([0xEF, 0xBB, 0xBF]) + FileManager.default.contents(atPath: path)!
    let source: any PoseSource
    if piped {
      var pipe: [Int32] = [0, 0]
      #expect(Foundation.pipe(&pipe) == 0)
      _ = marked.withUnsafeBytes { write(pipe[1], $0.baseAddress, $0.count) }
      close(pipe[1])
      source = try PoseFiles.open(
        lines: LineReader(descriptor: pipe[0], closing: true), name: "<stdin>", options: .init())
    } else {
      #expect(FileManager.default.createFile(atPath: path, contents: marked))
      source = try PoseFiles.open(path)
    }
    let (read, errors) = try Fixtures.readAll(source)
    #expect(errors.isEmpty, "\(errors)")
    #expect(source.header.layout == .coco17)
    #expect(read.map(\.t) == frames.map(\.t))
    #expect(read.first?.line == (format == .csv ? 3 : 2))
  }

  @Test func standardInputIsReadAsItArrives() throws {
    // A pipe stands in for stdin: the reader takes a descriptor either way.
    var pipe: [Int32] = [0, 0]
    #expect(Foundation.pipe(&pipe) == 0)
    let header = PoseFileHeader(layout: .coco17)
    let first =
      header.jsonLine + "\n"
      + PoseFileWriter.jsonFrameLine(t: 0, people: [Fixtures.squatter(at: 0)], header: header)
      + "\n"
    _ = first.withCString { write(pipe[1], $0, strlen($0)) }
    let source = try PoseFiles.open(
      lines: LineReader(descriptor: pipe[0], closing: true), name: "<stdin>", options: .init())
    var frame = PeopleFrame()
    // The first frame is available before the writer has finished the stream.
    guard case .frame = try source.next(into: &frame) else {
      Issue.record("expected a frame")
      return
    }
    #expect(frame.people.count == 1)
    close(pipe[1])
    guard case .end = try source.next(into: &frame) else {
      Issue.record("expected the end")
      return
    }
  }

  @Test func aMillionFrameFileIsReadThroughOneFixedBuffer() throws {
    // Not a memory measurement: the reader's buffer is fixed at construction, and this checks
    // that a file far larger than it streams through with every frame accounted for.
    let header = PoseFileHeader(layout: .coco17)
    let line = PoseFileWriter.jsonFrameLine(
      t: 0, people: [Fixtures.squatter(at: 0)], header: header)
    let path = Fixtures.temporaryFolder() + "/big.jsonl"
    let output = try TextOutput(creating: path)
    output.writeLine(header.jsonLine)
    let count = 30_000
    for _ in 0..<count { output.writeLine(line) }
    try output.flush()
    let reader = try LineReader(path: path, maxLineLength: 4096)
    let source = try JSONLinesPoseReader(lines: reader, name: path)
    var frame = PeopleFrame()
    var frames = 0
    while case .frame = try source.next(into: &frame) { frames += 1 }
    #expect(frames == count)
  }
}
