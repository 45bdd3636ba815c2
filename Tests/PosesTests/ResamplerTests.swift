import Randomness
import TestSupport
import Testing

@testable import Poses

@Suite struct ResamplerTests {
  /// A person whose nose moves right at 100 px/s: its x says the time it was seen at.
  static func mover(_ t: Double) -> Pose {
    var pose = Pose()
    pose[.nose] = Joint(x: Float(100 * t), y: 50, confidence: 1)
    pose[.neck] = Joint(x: Float(100 * t), y: 80, confidence: 1)
    return pose
  }

  static func resample(_ times: [Double], pose: (Double) -> Pose = mover) -> [Pose] {
    var resampler = Resampler()
    var out: [Pose] = []
    for t in times { resampler.push(t: t, pose: pose(t)) { tick, _ in out.append(tick) } }
    return out
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func jitteredTimestampsInterpolateOntoTheThirtyHertzGrid(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var times: [Double] = []
    var t = 5.0
    while t < 8 {
      times.append(t)
      t += 1 / 30 + Double(random.signedUnit()) * 0.012  // 21–45 ms apart
    }
    let out = Self.resample(times)
    #expect(out.count == Int(((times.last! - 5) * 30).rounded(.down)) + 1)
    for (k, pose) in out.enumerated() {
      let expected = Float(100 * (5 + Double(k) / 30))
      #expect(abs(pose[.nose].x - expected) < 1e-3, "tick \(k)")
    }
  }

  @Test func sixtyFramesPerSecondBecomeThirty() {
    let out = Self.resample((0..<120).map { Double($0) / 60 })
    #expect(out.count == 60)
    #expect(abs(out[59][.nose].x - Float(100 * 59.0 / 30)) < 1e-3)
  }

  @Test func fifteenFramesPerSecondAreFilledIn() {
    let out = Self.resample((0..<30).map { Double($0) / 15 })
    #expect(out.count == 59)
    #expect(abs(out[1][.nose].x - Float(100.0 / 30)) < 1e-3)
    #expect(out.allSatisfy { $0.hasPerson })
  }

  @Test func aGapOfAnHourCostsTenSecondsOfTicksNotAnHour() {
    // Seen until 1.0 s, then at 3,601 s and on: ten seconds of nobody, then the clock moves on.
    let times = (0...30).map { Double($0) / 30 } + (0...30).map { 3601 + Double($0) / 30 }
    var resampler = Resampler()
    var ticks: [(pose: Pose, t: Double)] = []
    for t in times { resampler.push(t: t, pose: Self.mover(t)) { ticks.append(($0, $1)) } }
    #expect(ticks.count == 31 + 300 + 31)
    #expect(ticks[30].pose.hasPerson && abs(ticks[30].t - 1) < 1e-9)
    for tick in 31..<331 { #expect(!ticks[tick].pose.hasPerson, "tick \(tick)") }
    #expect(abs(ticks[330].t - 11) < 1e-9)
    for tick in 331..<362 {
      #expect(ticks[tick].pose.hasPerson, "tick \(tick)")
      #expect(abs(ticks[tick].t - (3601 + Double(tick - 331) / 30)) < 1e-6, "tick \(tick)")
    }
  }

  @Test func timesTooLargeToTellTicksApartMakeATickAFrameAndNoHang() {
    var resampler = Resampler()
    var count = 0
    for t in [0, 1e300, 1e300, 2e300] {
      resampler.push(t: t, pose: Self.mover(0)) { _, _ in count += 1 }
    }
    #expect(count <= 1 + 301 + 1 + 301)
  }

  @Test func aLongGapIsNobodyNotAnInterpolation() {
    // Seen until 1.0 s, then nothing until 2.0 s.
    let times = (0...30).map { Double($0) / 30 } + (60...75).map { Double($0) / 30 }
    let out = Self.resample(times)
    #expect(out.count == 76)
    #expect(out[30].hasPerson)
    for tick in 31..<60 { #expect(!out[tick].hasPerson, "tick \(tick)") }
    #expect(out[60].hasPerson)
    #expect(abs(out[60][.nose].x - 200) < 1e-3)
  }

  @Test func aShortGapIsInterpolated() {
    // 0.2 s with no frame, under the 0.25 s limit.
    let times = (0...10).map { Double($0) / 30 } + (16...20).map { Double($0) / 30 }
    let out = Self.resample(times)
    #expect(out.count == 21)
    for tick in 11..<16 {
      #expect(out[tick].hasPerson)
      #expect(abs(out[tick][.nose].x - Float(100 * Double(tick) / 30)) < 1e-3)
    }
  }

  @Test func aJointSeenOnOneSideOnlyComesFromTheNearerFrame() {
    var a = Self.mover(0)
    a[.leftWrist] = Joint(x: 7, y: 7, confidence: 1)
    let b = Self.mover(0.1)
    let near = Resampler.interpolate(a, b, fraction: 0.3)
    #expect(near[.leftWrist] == Joint(x: 7, y: 7, confidence: 1))
    let far = Resampler.interpolate(a, b, fraction: 0.7)
    #expect(far[.leftWrist].isMissing)
    #expect(abs(far[.nose].x - 7) < 1e-4)
  }

  @Test func nobodyFramesAreKeptAsNobody() {
    let out = Self.resample((0..<10).map { Double($0) / 30 }) { t in
      t > 0.1 && t < 0.2 ? .nobody : Self.mover(t)
    }
    #expect(out.count == 10)
    #expect(!out[4].hasPerson && !out[5].hasPerson)
    #expect(out[3].hasPerson && out[6].hasPerson)
  }
}
