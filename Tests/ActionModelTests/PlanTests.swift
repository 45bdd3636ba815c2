import Foundation
import Linalg
import TestSupport
import Testing

@testable import ActionModel

/// The plan: what it chooses may differ from machine to machine, so the tests pin what must
/// not: every plan runs the network to the naive reference's numbers, the cache gives back
/// what was measured, and `SPOTTER_PLAN=estimate` times nothing.
@Suite struct PlanTests {
  static let configs: [NetworkConfig] = [.tiny(classes: 4), .standard(classes: 13)]

  /// A fresh, empty cache folder for one test.
  static func cacheEnvironment(_ mode: String? = nil) -> [String: String] {
    let folder = NSTemporaryDirectory() + "spotter-plan-test-\(UUID().uuidString)"
    var environment = ["XDG_CACHE_HOME": folder]
    environment[Planner.environmentVariable] = mode
    return environment
  }

  @Test(arguments: configs)
  func aMeasuredPlanMatchesTheNaiveReference(config: NetworkConfig) {
    let classifier = Fixtures.randomClassifier(config, seed: 4)
    let plan = Planner.measured(for: classifier)
    #expect(plan.single.count == config.convolutions.count)
    #expect(Planner.tiles.contains(plan.tile))
    for (index, strategy) in (plan.single + plan.batched).enumerated() {
      #expect(classifier.usable(strategy, layer: index % config.convolutions.count) == strategy)
    }
    classifier.adopt(plan)
    #expect(classifier.plan == plan)
    let batch = 11
    let windows = (0..<batch).map {
      Fixtures.randomFrames(config.window, features: config.inputFeatures, seed: UInt64($0))
    }
    var probabilities = [Float](repeating: 0, count: batch * config.classes)
    let workspace = Workspace(for: classifier)
    windows.flatMap { $0.flatMap { $0 } }.withUnsafeBufferPointer { input in
      probabilities.withUnsafeMutableBufferPointer {
        classifier.predict(windows: input, count: batch, into: $0, workspace: workspace)
      }
    }
    for (index, window) in windows.enumerated() {
      let naive = NaiveNetwork.forward(window, parameters: classifier.parameters).map(Float.init)
      let row = probabilities[index * config.classes..<(index + 1) * config.classes]
      #expect(Approximate.maxDifference(row, naive) < 1e-5, "window \(index)")
    }
  }

  @Test func theCacheGivesBackTheMeasuredPlan() throws {
    let environment = Self.cacheEnvironment()
    let classifier = Fixtures.randomClassifier(.tiny(classes: 4), seed: 1)
    let measured = Planner.plan(for: classifier, environment: environment)
    guard case .measured = measured.origin else {
      Issue.record("an empty cache should mean a measurement, got \(measured.origin)")
      return
    }
    let again = Planner.plan(for: classifier, environment: environment)
    guard case .cached(let path) = again.origin else {
      Issue.record("the second plan should come from the cache, got \(again.origin)")
      return
    }
    #expect(path.hasPrefix(environment["XDG_CACHE_HOME"]! + "/spotter/plan-"))
    #expect(again.single == measured.single && again.batched == measured.batched)
    #expect(again.tile == measured.tile && again.stream == measured.stream)
    // Another network shape is another key: measured, not read.
    let other = Fixtures.randomClassifier(.standard(classes: 13), seed: 1)
    guard case .measured = Planner.plan(for: other, environment: environment).origin else {
      Issue.record("a plan for another shape came from the cache")
      return
    }
    // `measure` measures again even with a plan cached.
    let forcing = Self.cacheEnvironment("measure")
    defer { try? FileManager.default.removeItem(atPath: forcing["XDG_CACHE_HOME"]!) }
    let forced = Planner.plan(for: classifier, environment: forcing)
    guard case .measured = forced.origin else {
      Issue.record("SPOTTER_PLAN=measure should measure")
      return
    }
    try? FileManager.default.removeItem(atPath: environment["XDG_CACHE_HOME"]!)
  }

  @Test func aDamagedOrForeignCacheFileIsNotTrusted() {
    let plan = ExecutionPlan.uniform(.im2col, layers: 3)
    let text = plan.encoded(key: "this machine")
    #expect(
      ExecutionPlan.decode(text, key: "this machine", layers: 3, path: "p")?.single == plan.single)
    #expect(ExecutionPlan.decode(text, key: "another machine", layers: 3, path: "p") == nil)
    #expect(ExecutionPlan.decode(text, key: "this machine", layers: 4, path: "p") == nil)
    let damaged = text.replacingOccurrences(of: "im2col", with: "fastest")
    #expect(ExecutionPlan.decode(damaged, key: "this machine", layers: 3, path: "p") == nil)
    #expect(ExecutionPlan.decode("garbage", key: "this machine", layers: 3, path: "p") == nil)
  }

  @Test func anEstimatedPlanTimesNothingAndWritesNothing() {
    let environment = Self.cacheEnvironment("estimate")
    let classifier = Fixtures.randomClassifier(.standard(classes: 13), seed: 1)
    let plan = Planner.plan(for: classifier, environment: environment)
    #expect(plan.origin == .estimated)
    #expect(plan == Planner.estimated(for: classifier))
    #expect(!FileManager.default.fileExists(atPath: environment["XDG_CACHE_HOME"]!))
    let expected: ConvolutionStrategy = InstructionSet.available == .none ? .winograd : .packed
    #expect(plan.single == Array(repeating: expected, count: 4))
  }

  @Test func thePlanDescribesItself() {
    let classifier = Fixtures.randomClassifier(.tiny(classes: 4), seed: 1)
    let text = Planner.estimated(for: classifier).description
    #expect(text.contains("batch 1:") && text.contains("streaming step:"))
    #expect(text.contains("estimated"))
  }
}
