// swift-tools-version:6.0
// Spotter: exercise recognition and rep counting from 2D body-pose streams.
// Module map: ../shared/DESIGN.md §2 (kept true in README.md).
import PackageDescription

let package = Package(
  name: "Spotter",
  products: [
    .executable(name: "spotter", targets: ["SpotterCLI"]),
    .executable(name: "spotter-bench", targets: ["SpotterBench"]),
    .library(name: "Spotter", targets: ["Spotter"]),
    .library(name: "Poses", targets: ["Poses"]),
    .library(name: "ActionModel", targets: ["ActionModel"]),
    .library(name: "RepCounting", targets: ["RepCounting"]),
    .library(name: "MotionSynth", targets: ["MotionSynth"]),
    .library(name: "Linalg", targets: ["Linalg"]),
    // libSpotterC.so (`make libspotter` links it as libspotter.so): the C interface in
    // Sources/LibSpotter/spotter.h.
    .library(name: "SpotterC", type: .dynamic, targets: ["LibSpotter"]),
  ],
  targets: [
    // C behind one door: only Linalg imports this.
    .systemLibrary(
      name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
    .target(name: "Linalg", dependencies: ["COpenBLAS"]),
    .target(name: "Randomness"),
    .target(name: "Poses"),
    .target(name: "ActionModel", dependencies: ["Linalg", "Poses", "Randomness"]),
    .target(name: "MotionSynth", dependencies: ["Poses", "Randomness"]),
    .target(
      name: "RepCounting", dependencies: ["Poses"], exclude: ["README.md"],
      resources: [.copy("Definitions")]),
    .target(
      name: "Spotter",
      dependencies: ["Poses", "ActionModel", "RepCounting", "MotionSynth", "Linalg"]),
    .target(
      name: "LibSpotter", dependencies: ["ActionModel", "Poses", "Spotter", "RepCounting"],
      exclude: ["spotter.h"]),
    .executableTarget(
      name: "SpotterCLI",
      dependencies: [
        "Spotter", "Poses", "Linalg", "ActionModel", "Randomness", "MotionSynth", "RepCounting",
      ]),
    .target(
      name: "TestSupport",
      dependencies: ["Poses", "Linalg", "Randomness", "ActionModel", "MotionSynth", "RepCounting"]),
    .executableTarget(
      name: "SpotterBench",
      dependencies: [
        "Poses", "Linalg", "TestSupport", "ActionModel", "Randomness", "Spotter", "MotionSynth",
        "RepCounting",
      ],
      path: "Benchmarks/SpotterBench"),
    // Counts the test process's allocations per thread (per-frame paths must allocate nothing).
    .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
    .testTarget(name: "LinalgTests", dependencies: ["Linalg", "TestSupport", "Randomness"]),
    .testTarget(name: "PosesTests", dependencies: ["Poses", "TestSupport", "Randomness"]),
    .testTarget(
      name: "ActionModelTests",
      dependencies: ["ActionModel", "TestSupport", "Randomness", "Linalg"]),
    .testTarget(
      name: "MotionSynthTests", dependencies: ["MotionSynth", "Poses", "Randomness", "TestSupport"]),
    .testTarget(
      name: "RepCountingTests",
      dependencies: ["RepCounting", "MotionSynth", "Poses", "Randomness", "TestSupport"]),
    .testTarget(
      name: "SpotterTests",
      dependencies: ["Spotter", "MotionSynth", "Poses", "TestSupport", "RepCounting"]),
    .testTarget(
      name: "PerFrameAllocationTests",
      dependencies: [
        "AllocationCounter", "ActionModel", "Poses", "TestSupport", "RepCounting", "MotionSynth",
        "Spotter",
      ]),
    .testTarget(name: "SpotterCLITests", dependencies: ["SpotterCLI", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
