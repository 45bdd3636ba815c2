import Foundation
import Poses
import Testing

@testable import Reporting

/// The pieces the page is made of: numbers, escaping, simplified lines, the set's analysis.
@Suite struct PagePartsTests {
  @Test(arguments: [
    (0.0, 1, "0"), (1.25, 1, "1.3"), (-1.25, 1, "-1.3"), (-0.04, 1, "0"), (12.0, 2, "12"),
    (3.14159, 3, "3.142"), (0.05, 2, "0.05"), (100.5, 0, "101"), (-7.0, 0, "-7"),
    (0.001, 3, "0.001"), (2.5e6, 1, "2500000"), (Double.nan, 1, "0"),
  ])
  func numbersAreWrittenToFixedDecimals(_ value: Double, _ decimals: Int, _ text: String) {
    #expect(Markup.number(value, decimals: decimals) == text)
  }

  @Test func textIsEscaped() {
    #expect(Markup.escape("a < b & \"c\" > 'd'") == "a &lt; b &amp; &quot;c&quot; &gt; &#39;d&#39;")
    #expect(Markup.escape("plain") == "plain")
    var page = Markup()
    page.element("p", [("title", "x\"y")], "<b>")
    #expect(page.text == "<p title=\"x&quot;y\">&lt;b&gt;</p>")
  }

  @Test(arguments: [
    (0.0, false, "0:00"), (59.4, false, "0:59"), (61.0, false, "1:01"), (61.26, true, "1:01.3"),
    (600.0, false, "10:00"),
  ])
  func timesReadAsAClock(_ seconds: Double, _ tenths: Bool, _ text: String) {
    #expect(Markup.clock(seconds, tenths: tenths) == text)
  }

  /// A rep whose start the video could not give again: the turn's frame keeps its own name
  /// (and the start's is not put on it).
  @Test(arguments: [(1, "Bottom"), (0, "Top")])
  func aRepsFrameKeepsItsNameWhenTheOtherIsMissing(_ kept: Int, _ name: String) {
    let moments = [StickPose(t: 1, pose: .nobody), StickPose(t: 2, pose: .nobody)]
    let figures = RepFigures(count: 1, why: "typical", start: moments[0], turn: moments[1])
    let still = VideoStill(
      t: moments[kept].t, frameTime: moments[kept].t,
      crop: PixelRect(x: 0, y: 0, width: 8, height: 6),
      pose: nil, jpeg: Data([0xFF, 0xD8, 0xFF, 0xD9]))
    var page = Markup()
    VideoFrames.rep(
      figures, title: "Typical rep", names: ["Top", "Bottom"],
      video: ReportVideo(file: "clip.mp4", width: 8, height: 6, reps: [still]), into: &page)
    let clock = Markup.clock(moments[kept].t, tenths: true)
    #expect(page.text.contains(">\(name) \(clock)</span>"), "\(page.text)")
    #expect(page.text.contains("Typical rep in the video: \(name)</figcaption>"))
    #expect(page.text.components(separatedBy: "<svg").count == 2)
  }

  @Test func aStraightLineKeepsItsEnds() {
    let points = (0..<1000).map { (x: Double($0), y: 5 + 0.5 * Double($0)) }
    #expect(LinePath.simplify(points, tolerance: 0.35) == [0, 999])
  }

  @Test func aLineKeepsEveryPointThatShows() {
    // A zigzag of 10-pixel teeth: every corner shows.
    let points = (0..<50).map { (x: Double($0) * 4, y: $0 % 2 == 0 ? 0.0 : 10.0) }
    #expect(LinePath.simplify(points, tolerance: 0.35).count == 50)
    // Every point dropped lies within the tolerance of the line that replaces it.
    let wave = (0..<2000).map { (x: Double($0) * 0.5, y: 40 * sin(Double($0) / 100)) }
    let kept = LinePath.simplify(wave, tolerance: 0.35)
    #expect(kept.count < 400)
    for (a, b) in zip(kept, kept.dropFirst()) {
      let (dx, dy) = (wave[b].x - wave[a].x, wave[b].y - wave[a].y)
      let length = (dx * dx + dy * dy).squareRoot()
      for index in a...b {
        let distance = abs(dy * (wave[index].x - wave[a].x) - dx * (wave[index].y - wave[a].y))
        #expect(distance / length <= 0.35)
      }
    }
  }

  @Test func aLineBreaksAtGaps() {
    var path = LinePath()
    path.add(0, 0)
    path.add(10, 0)
    path.breakLine()
    path.add(20, 5)
    #expect(path.finish() == "M0 0L10 0M20 5h0.1")
  }

  static func reps(ranges: [Double], durations: [Double], sides: [String?]? = nil) -> [RepMark] {
    var start = 0.0
    return zip(ranges, durations).enumerated().map { index, pair in
      defer { start += pair.1 + 0.5 }
      return RepMark(
        count: index + 1, start: start, end: start + pair.1, bottom: start + pair.1 / 2,
        rangeOfMotion: pair.0, timeDown: pair.1 / 2, timeUp: pair.1 / 2, partial: false,
        side: sides?[index], cue: nil, backfilled: false, signal: 0)
    }
  }

  @Test func aSetThatSlowsAndShallowsIsTiring() throws {
    let tired = Self.reps(
      ranges: [0.6, 0.6, 0.58, 0.55, 0.5, 0.48], durations: [1.2, 1.2, 1.3, 1.5, 1.6, 1.7])
    let trend = try #require(SetAnalysis.make(reps: tired) { _ in nil }?.trend)
    #expect(trend.tiring && trend.slower && trend.shallower)
    let steady = Self.reps(
      ranges: [0.6, 0.61, 0.59, 0.6, 0.6, 0.62], durations: [1.2, 1.25, 1.2, 1.22, 1.18, 1.2])
    let even = try #require(SetAnalysis.make(reps: steady) { _ in nil }?.trend)
    #expect(!even.tiring)
    #expect(SetAnalysis.make(reps: Array(steady.prefix(3))) { _ in nil }?.trend == nil)
  }

  @Test func sidesAreSummarisedApart() throws {
    let reps = Self.reps(
      ranges: [0.5, 0.3, 0.5, 0.3], durations: [1, 1, 1, 1],
      sides: ["left", "right", "left", "right"])
    let sides = try #require(SetAnalysis.make(reps: reps) { _ in nil }?.sides)
    #expect(sides.map(\.side) == ["left", "right"])
    #expect(sides.map(\.medianRange) == [0.5, 0.3])
    var page = Markup()
    RepTable.sides(sides, units: "body sizes", into: &page)
    #expect(page.text.contains("The right side moves 40% less than the left."))
  }
}
