import Randomness
import Testing

@testable import Poses

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct FixedRingTests {
  static let capacity = 5

  /// Appends 1, 2, 3… from every start slot, checking at every fill level what is held, what
  /// falls out, and both ways of reading it (by age, and oldest first as a collection).
  @Test(arguments: 0..<capacity)
  func everyStartSlotAndFillLevelKeepsTheLastValuesInOrder(startSlot: Int) {
    var ring = FixedRing(capacity: Self.capacity, repeating: 0, startSlot: startSlot)
    for n in 1...(3 * Self.capacity) {
      let evicted = ring.append(n)
      #expect(evicted == (n > Self.capacity ? n - Self.capacity : nil))
      let held = Array(max(1, n - Self.capacity + 1)...n)
      #expect(Array(ring) == held)
      #expect(ring.count == held.count && ring.isFull == (n >= Self.capacity))
      #expect(ring[age: 0] == n && ring.first == held.first && ring.last == n)
    }
  }

  @Test func removingTheOldestShortensATrailFromItsOldEnd() {
    var ring = FixedRing(capacity: 4, repeating: 0, startSlot: 3)
    for n in 1...6 { ring.append(n) }
    ring.removeOldest()
    #expect(Array(ring) == [4, 5, 6])
    ring.append(7)
    #expect(Array(ring) == [4, 5, 6, 7])
    ring.removeAll()
    #expect(ring.isEmpty && ring.first == nil)
  }
}

@Suite struct RunningMedianTests {
  /// Against sorting the last values by hand, for several window sizes, with repeats.
  @Test(arguments: [1, 2, 5, 30])
  func itIsTheMedianOfTheLastValues(capacity: Int) {
    var generator = SeededGenerator(seed: UInt64(capacity))
    var median = RunningMedian(capacity: capacity)
    var all: [Float] = []
    for _ in 0..<200 {
      let value = Float(Int(generator.unit() * 20))
      all.append(value)
      let got = median.add(value)
      let last = all.suffix(capacity).sorted()
      #expect(got == last[last.count / 2] && median.median == got)
    }
  }
}

@Suite struct LineSplitterTests {
  static func lines(_ chunks: [String], max: Int = 10, finish: Bool = true) -> [String] {
    let splitter = LineSplitter(maxLineLength: max, readSize: 4)
    var out: [String] = []
    func drain() {
      while let line = splitter.next() {
        switch line {
        case .text(let bytes): out.append(String(decoding: bytes, as: UTF8.self))
        case .tooLong(let length): out.append("<\(length) at \(splitter.lineNumber)>")
        }
      }
    }
    for chunk in chunks {
      Array(chunk.utf8).withUnsafeBytes { splitter.append($0) }
      drain()
      splitter.release()
    }
    if finish {
      splitter.finish()
      drain()
    }
    return out
  }

  @Test func linesComeWholeHoweverTheBytesArrive() {
    let text = "ab\r\ncd\n\nefghij\nk"
    let whole = Self.lines([text])
    #expect(whole == ["ab", "cd", "", "efghij", "k"])
    for cut in 1..<text.count {
      let index = text.index(text.startIndex, offsetBy: cut)
      #expect(Self.lines([String(text[..<index]), String(text[index...])]) == whole)
    }
  }

  /// A line over the limit is named with its length and the next one goes on, also when it is
  /// the last line and has no newline (a client that closed its side after it).
  @Test func aLineOverTheLimitIsNamedAndSkipped() {
    let long = String(repeating: "x", count: 25)
    #expect(Self.lines(["a\n" + long + "\nb\n"]) == ["a", "<25 at 2>", "b"])
    #expect(
      Self.lines(["a\n", long.prefix(7) + "", long.dropFirst(7) + ""]) == ["a", "<25 at 2>"])
    #expect(Self.lines(["a\n" + long], finish: false) == ["a"])
  }

  /// Lines handed out stay readable until they are released, while more bytes arrive and the
  /// buffer grows past its first size.
  @Test func linesStayValidUntilReleasedWhileTheBufferGrows() {
    let splitter = LineSplitter(maxLineLength: 8, readSize: 4)
    var held: [UnsafeBufferPointer<UInt8>] = []
    for n in 0..<40 {
      Array("line\(n)\n".utf8).withUnsafeBytes { splitter.append($0) }
      while case .text(let bytes)? = splitter.next() { held.append(bytes) }
    }
    #expect(held.map { String(decoding: $0, as: UTF8.self) } == (0..<40).map { "line\($0)" })
    splitter.release()
  }

  /// Lines `first..<first + count`, each 100 bytes with its newline, all appended at once.
  static func appendBurst(_ splitter: LineSplitter, from first: Int, count: Int) {
    let text = (first..<first + count).map {
      let number = String($0)
      return String(repeating: "x", count: 99 - number.count) + number + "\n"
    }.joined()
    Array(text.utf8).withUnsafeBytes { splitter.append($0) }
  }

  /// Lines `first..<first + count` come out whole and in order; then they are released.
  static func expectLines(_ splitter: LineSplitter, from first: Int, count: Int) {
    var numbers: [Int] = []
    while case .text(let bytes)? = splitter.next() {
      numbers.append(Int(String(decoding: bytes, as: UTF8.self).drop { $0 == "x" }) ?? -1)
    }
    #expect(numbers == Array(first..<first + count))
    splitter.release()
  }

  /// A burst (a daemon that fell behind reads what waited at once) gives the pages it touched
  /// past `steadyBytes` back once its lines are released, and the lines before and after it
  /// are whole; a steady stream after it gives nothing more back.
  @Test(arguments: [40_000, 100_000, 128_000])
  func aBurstGivesItsPagesBack(bytes: Int) {
    let splitter = LineSplitter(maxLineLength: 64 * 1024)
    Self.appendBurst(splitter, from: 0, count: 3)
    Self.expectLines(splitter, from: 0, count: 3)
    Self.appendBurst(splitter, from: 3, count: bytes / 100)
    Self.expectLines(splitter, from: 3, count: bytes / 100)
    #expect(splitter.bytesGivenBack == 0, "nothing before the burst's lines are released")
    var next = 3 + bytes / 100
    for _ in 0..<100 {
      Self.appendBurst(splitter, from: next, count: 2)
      Self.expectLines(splitter, from: next, count: 2)
      next += 2
    }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    #expect(splitter.bytesGivenBack >= bytes - LineSplitter.steadyBytes - 2 * page)
    #expect(splitter.bytesGivenBack <= bytes - LineSplitter.steadyBytes)
  }

  /// A reader whose every read is large (a file) gives back once, then keeps its pages.
  @Test func aReaderOfLargeReadsGivesBackOnce() {
    let splitter = LineSplitter(maxLineLength: 64 * 1024)
    for round in 0..<20 {
      Self.appendBurst(splitter, from: round * 1000, count: 1000)
      Self.expectLines(splitter, from: round * 1000, count: 1000)
    }
    #expect(splitter.bytesGivenBack > 0 && splitter.bytesGivenBack <= 100_000)
  }
}
