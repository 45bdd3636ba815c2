// swift-tools-version:6.0
// Spotter: exercise recognition and rep counting from 2D body-pose streams.
// The modules, bottom to top (README, "How the code is laid out"): each declares exactly what
// it imports.
import PackageDescription

let package = Package(
  name: "Spotter",
  products: [
    .executable(name: "spotter", targets: ["SpotterCLI"]),
    .executable(name: "spotter-bench", targets: ["SpotterBench"]),
    // The runtime an app embeds, and the modules it is made of.
    .library(name: "Spotter", targets: ["Spotter"]),
    .library(name: "Poses", targets: ["Poses"]),
    .library(name: "ActionModel", targets: ["ActionModel"]),
    .library(name: "RepCounting", targets: ["RepCounting"]),
    .library(name: "Linalg", targets: ["Linalg"]),
    // The daemon and the workout history, on top of the runtime.
    .library(name: "SpotterServer", targets: ["SpotterServer"]),
    .library(name: "History", targets: ["History"]),
    // Spoken counts and cues through espeak-ng; needs neither the runtime nor the network.
    .library(name: "Speech", targets: ["Speech"]),
    // Synthetic motion, training data and evaluation: for making and measuring models.
    .library(name: "MotionSynth", targets: ["MotionSynth"]),
    .library(name: "Training", targets: ["Training"]),
    .library(name: "TrainingData", targets: ["TrainingData"]),
    .library(name: "Evaluation", targets: ["Evaluation"]),
    // `spotter report`: a session as one self-contained HTML page (and its data as JSON).
    .library(name: "Reporting", targets: ["Reporting"]),
    // libspotter, the C interface in Sources/LibSpotter/spotter.h. SwiftPM writes the product
    // as libLibSpotter.so; `make libspotter` links it as libspotter.so, the name C programs
    // link with (-lspotter).
    .library(name: "LibSpotter", type: .dynamic, targets: ["LibSpotter"]),
  ],
  targets: [
    // C behind one door: only Linalg imports this.
    .systemLibrary(
      name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
    .target(name: "Linalg", dependencies: ["COpenBLAS"]),
    // The workout history's two databases, each behind one door in History.
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    // epoll(7) for the daemon's poller on Linux, from the C library's own headers.
    .systemLibrary(name: "CEpoll"),
    .target(name: "Randomness"),
    .target(name: "Poses"),
    .target(name: "ActionModel", dependencies: ["Linalg", "Poses", "Randomness"]),
    .target(
      name: "RepCounting", dependencies: ["Poses"], exclude: ["README.md"],
      resources: [.copy("Definitions")]),
    .target(name: "Spotter", dependencies: ["ActionModel", "Poses", "RepCounting"]),
    // The workout history: sessions stored in SQLite, or PostgreSQL for a fleet.
    .target(name: "History", dependencies: ["CPostgres", "CSQLite", "Randomness", "Spotter"]),
    // The daemon: sockets, the poller, connections, batched predictions; stores through History.
    .target(
      name: "SpotterServer",
      dependencies: [
        .target(name: "CEpoll", condition: .when(platforms: [.linux])), "History", "Poses",
        "RepCounting", "Spotter",
      ]),
    // Runs espeak-ng (Debian package espeak-ng) as a child process; the runtime never needs it.
    // It hears events of its own (`SpeechEvent`): the command line turns the runtime's into them.
    .target(name: "Speech"),
    .target(name: "MotionSynth", dependencies: ["Poses", "Randomness"]),
    // The trainer: backpropagation, Adam, window sampling. Outside the runtime an app embeds.
    .target(name: "Training", dependencies: ["ActionModel", "Linalg", "Randomness"]),
    .target(
      name: "TrainingData",
      dependencies: ["ActionModel", "MotionSynth", "Poses", "Randomness", "Training"]),
    .target(
      name: "Evaluation",
      dependencies: ["ActionModel", "Poses", "Randomness", "RepCounting", "Spotter"]),
    .target(
      name: "Reporting", dependencies: ["ActionModel", "Poses", "RepCounting", "Spotter"]),
    .target(
      name: "LibSpotter", dependencies: ["ActionModel", "Poses", "RepCounting", "Spotter"],
      exclude: ["spotter.h"]),
    // Video to poses: BlazePose (MediaPipe) in a helper process of Spotter's own, in a Python
    // virtual environment it sets up once; the runtime never needs it.
    .target(name: "VideoPoses", dependencies: ["Poses"], resources: [.copy("Helper")]),
    // The live page of a session (`--view`): served over HTTP by a thread of its own, updated
    // by Server-Sent Events; it draws poses with the report's bones.
    .target(name: "LiveView", dependencies: ["Poses", "Reporting", "Spotter"]),
    // Option tables that drive parsing and --help, for `spotter` and `spotter-bench`.
    .target(name: "ArgumentParsing"),
    .executableTarget(
      name: "SpotterCLI",
      dependencies: [
        "ActionModel", "ArgumentParsing", "Evaluation", "History", "LiveView", "MotionSynth",
        "Poses", "Randomness", "Reporting", "RepCounting", "Speech", "Spotter", "SpotterServer",
        "Training", "TrainingData", "VideoPoses",
      ]),
    // Naive reference kernels, fixtures, approximate equality: tests and benchmarks only.
    .target(
      name: "TestSupport",
      dependencies: ["ActionModel", "MotionSynth", "Poses", "Randomness", "RepCounting", "Spotter"]),
    .executableTarget(
      name: "SpotterBench",
      dependencies: [
        "ActionModel", "ArgumentParsing", "History", "Linalg", "MotionSynth", "Poses",
        "Randomness", "RepCounting", "Spotter", "SpotterServer", "TestSupport",
      ],
      path: "Benchmarks/SpotterBench"),
    // Counts the test process's allocations per thread (per-frame paths must allocate nothing).
    .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
    .testTarget(name: "LinalgTests", dependencies: ["Linalg", "Randomness", "TestSupport"]),
    .testTarget(name: "PosesTests", dependencies: ["Poses", "Randomness", "TestSupport"]),
    .testTarget(
      name: "ActionModelTests",
      dependencies: ["ActionModel", "Linalg", "Poses", "Randomness", "TestSupport"]),
    .testTarget(
      name: "MotionSynthTests",
      dependencies: ["MotionSynth", "Poses", "Randomness", "TestSupport"]),
    .testTarget(
      name: "RepCountingTests",
      dependencies: ["MotionSynth", "Poses", "Randomness", "RepCounting", "TestSupport"]),
    .testTarget(
      name: "SpotterTests",
      dependencies: [
        "ActionModel", "MotionSynth", "Poses", "Randomness", "RepCounting", "Spotter",
        "TestSupport",
      ]),
    .testTarget(name: "HistoryTests", dependencies: ["History", "Spotter", "TestSupport"]),
    .testTarget(
      name: "TrainingTests", dependencies: ["ActionModel", "Randomness", "TestSupport", "Training"]),
    .testTarget(
      name: "TrainingDataTests",
      dependencies: ["ActionModel", "Poses", "Randomness", "TrainingData", "TestSupport"]),
    .testTarget(
      name: "EvaluationTests",
      dependencies: [
        "ActionModel", "Evaluation", "Poses", "Randomness", "RepCounting", "Spotter", "TestSupport",
      ]),
    .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
    .testTarget(
      name: "SpeechTests", dependencies: ["Randomness", "Speech", "TestSupport"]),
    .testTarget(
      name: "PerFrameAllocationTests",
      dependencies: [
        "ActionModel", "AllocationCounter", "Linalg", "MotionSynth", "Poses", "RepCounting",
        "Spotter", "SpotterServer", "TestSupport",
      ]),
    // The daemon's stream protocol in-process, without sockets: served streams driven as the
    // daemon drives them, at every chunk size; and once through the real `spotter serve`.
    .testTarget(
      name: "SpotterServerTests",
      dependencies: [
        "ActionModel", "History", "MotionSynth", "Poses", "RepCounting", "Spotter", "SpotterCLI",
        "SpotterServer", "TestSupport",
      ]),
    .testTarget(
      name: "SpotterCLITests",
      dependencies: [
        "ActionModel", "History", "Poses", "RepCounting", "Speech", "Spotter", "SpotterCLI",
        "SpotterServer",
        "TestSupport",
      ]),
    // The report's page and data; runs the real `spotter` for its commands.
    .testTarget(
      name: "ReportingTests",
      dependencies: [
        "ActionModel", "MotionSynth", "Poses", "Randomness", "Reporting", "RepCounting", "Spotter",
        "SpotterCLI", "TestSupport",
      ]),
    // The video's frame times and set-up; `spotter video` run for real when the detector can
    // be installed, on files and on live streams ffmpeg serves on loopback.
    .testTarget(
      name: "VideoPosesTests",
      dependencies: ["Poses", "SpotterCLI", "TestSupport", "VideoPoses"]),
    // The live page's parts, and its count from synthetic poses through `classify --view`.
    .testTarget(
      name: "LiveViewTests",
      dependencies: [
        "LiveView", "Poses", "RepCounting", "Spotter", "SpotterCLI", "TestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
