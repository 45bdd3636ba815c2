import ActionModel
import ArgumentParsing
import Foundation
import Linalg
import Poses
import TestSupport

/// `spotter-bench`: Spotter's performance in one run. Only release builds give meaningful
/// numbers; a debug build says so loudly. Outputs are checked before anything is timed;
/// nothing here is asserted in tests.
let run = Command(
  name: "run", summary: "Time the kernels, the network, decoding and sessions (the default).",
  options: [
    .value("filter", "TEXT", "Only the cases whose key contains TEXT (e.g. forward, stream)."),
    .value("json", "FILE", "Also write the results as JSON."),
  ],
  run: { arguments in
    try runBenchmarks(filter: arguments.string("filter"), jsonPath: arguments.string("json"))
    return 0
  })

let fixture = Command(
  name: "fixture", summary: "Write the pose stream the decoder is timed on.",
  arguments: [Argument(name: "FILE", help: "Where to write it.")],
  options: [.value("frames", "N", "Frames to write.", default: "600")],
  run: { arguments in
    let frames = try arguments.int("frames", range: 1...10_000_000)!
    try Fixtures.squatFile(frames: frames).write(
      toFile: arguments.positional(0)!, atomically: true, encoding: .utf8)
    return 0
  })

let serve = Command(
  name: "serve", summary: "Load a real 'spotter serve' with many live clients (ServeLoad).",
  options: [
    .value("clients", "N", "Connections streaming at once.", default: "100"),
    .value("workouts", "K", "Distinct workouts; client i streams workout i mod K.", default: "8"),
    .value("plan", "PLAN", "The workout each client streams.", default: ServeLoad.defaultPlan),
    .value("weights", "FILE", "The model the server loads.", default: "Weights/default.spotter"),
    .value(
      "history", "FILE|URL|none", "The server's workout history ('none': keep none).",
      default: "a new SQLite file"),
    .value("port", "N", "Stream to a server or balancer on 127.0.0.1:N instead of starting one."),
    .value(
      "token-file", "FILE",
      "With --port: the server's token (its --token-file), sent in each client's header."),
    .value(
      "minutes", "M",
      "Soak: each client keeps one session open M minutes (at least 3); the daemon's memory, "
        + "descriptors and p99 minute by minute, then a verdict (ServeSoak)."),
    .value(
      "flood", "N",
      "One more client sends N {\"cmd\":\"stats\"} without reading, 5 s in, then drains the "
        + "replies: the others' p99 meanwhile (ServeFlood)."),
    .value(
      "workers", "N",
      "The daemon's --workers: its poll loops, each on a thread of its own (the bench reports "
        + "each one's CPU).",
      default: "the daemon's own: the CPUs it may use; 1 with --pin"),
    .flag(
      "pin",
      "Pin the daemon to the first CPU this bench may use (the first N with --workers N) and "
        + "the bench (the clients) to the others, so a figure says whose limit it is."),
  ],
  run: { arguments in
    var load = try ServeLoad.Options(arguments)
    load.history = arguments.values["history"]
    load.port = try arguments.int("port", range: 1...65535).map(UInt16.init)
    if let path = arguments.string("token-file") {
      guard load.port != nil else {
        throw CLIError.usage(
          "--token-file is for a server on --port; the bench's own takes none",
          command: arguments.command)
      }
      guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let line = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces),
        !line.isEmpty
      else {
        throw CLIError.failure(
          "cannot read a token from \(path)",
          hint: "give the server's --token-file: its first line is the token.")
      }
      load.token = line
    }
    load.minutes = try arguments.int("minutes", range: 3...1440)
    load.pin = arguments.flag("pin")
    load.flood = try arguments.int("flood", range: 1...10_000_000)
    if arguments.values["workers"] != nil {
      load.workers = try arguments.int("workers", range: 1...1024)
    }
    if load.workers != nil, load.port != nil {
      throw CLIError.usage(
        "--workers is for the daemon the bench starts, not one on --port",
        command: arguments.command)
    }
    if load.pin, load.port != nil {
      throw CLIError.usage(
        "--pin places the daemon the bench starts, not one on --port", command: arguments.command)
    }
    if load.minutes != nil, load.port != nil {
      throw CLIError.usage(
        "--minutes watches the daemon the bench starts (its /proc), not one on --port",
        command: arguments.command)
    }
    return try ServeLoad.run(load) ? 0 : 1
  })

ChildProcesses.stopWithTheBench()
let bench = Program(
  name: "spotter-bench", version: "0.1.0", summary: "Spotter's performance, measured here.",
  commands: [
    run, fixture, serve, HistoryBenchmarks.command, Fleet.command, HistoryTools.append,
    HistoryTools.verify, LocalServers.postgres,
  ], defaultCommand: run)
ChildProcesses.exit(
  bench.run(
    Array(CommandLine.arguments.dropFirst()), print: { print($0) },
    error: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }))

func runBenchmarks(filter: String?, jsonPath: String?) throws {
  #if DEBUG
    print("WARNING: this is a DEBUG build; its timings mean nothing. Use `make bench`.\n")
    let configuration = "debug"
  #else
    let configuration = "release"
  #endif
  let classifier = NetworkBenchmarks.model(nil)
  let viewRobust = Fixtures.randomClassifier(
    .standard(inputFeatures: FeatureSpec(version: 2).featuresPerFrame, classes: 13), seed: 1)
  // What loading costs past reading the file: the weights copied, transformed and packed.
  let loadStart = now()
  _ = Classifier(metadata: classifier.metadata, parameters: classifier.parameters)
  let loadSeconds = now() - loadStart
  print(
    "spotter-bench (\(configuration) build), OpenBLAS threads: \(BLAS.threadCount); times are "
      + "the CPU time of the thread that runs them")
  print("CPU: \(Planner.cpuName) (Spotter's kernels: \(InstructionSet.available))")
  print("OpenBLAS: \(BLAS.configuration)")
  print(
    "Network: \(classifier.config.parameterCount) parameters, "
      + "\(classifier.config.flopsPerWindow) FLOP per window"
  )
  let planStart = now()
  let plan = classifier.plan
  print(
    String(
      format: "Model made and packed in %.1f ms; plan made in %.1f ms (%@=%@):",
      loadSeconds * 1000, (now() - planStart) * 1000,
      Planner.environmentVariable,
      ProcessInfo.processInfo.environment[Planner.environmentVariable] ?? "cached"))
  print(plan.description)
  print("")

  var cases: [(String, () throws -> Measurement)] = [
    ("sgemm", { LinalgBenchmarks.sgemmPeak() }),
    ("forward-1", { NetworkBenchmarks.forward(classifier, batch: 1) }),
    ("forward-64", { NetworkBenchmarks.forward(classifier, batch: 64) }),
    // The same network fed feature version 2 (`spotter train --features view-robust`).
    ("forward-1-view-robust", { NetworkBenchmarks.forward(viewRobust, batch: 1) }),
    ("forward-64-view-robust", { NetworkBenchmarks.forward(viewRobust, batch: 64) }),
    ("stream-1", { NetworkBenchmarks.streamStep(classifier, stride: 1) }),
    ("stream-10", { NetworkBenchmarks.streamStep(classifier, stride: 10) }),
    (
      "stream-1-single", { NetworkBenchmarks.streamStep(classifier, stride: 1, precision: .single) }
    ),
    ("stream-1-half", { NetworkBenchmarks.streamStep(classifier, stride: 1, precision: .half) }),
    ("stream-1-x4", { NetworkBenchmarks.streamStep(classifier, stride: 1, streams: 4) }),
    ("stream-1-x8", { NetworkBenchmarks.streamStep(classifier, stride: 1, streams: 8) }),
    ("naive", { NetworkBenchmarks.naive(classifier) }),
    ("decode", { try PoseBenchmarks.decodeJSONLines(frames: 100_000) }),
    ("pipeline", { PoseBenchmarks.posePipeline() }),
    ("session", { try SessionBenchmarks.session(classifier) }),
    ("engines", { try EngineBenchmarks.engines() }),
  ]
  // Each strategy on every layer, beside the plan that mixes them per layer.
  var strategyRuns: [(ConvolutionStrategy, Int, Int)] = []
  for strategy in ConvolutionStrategy.allCases {
    strategyRuns += [(strategy, 1, 1), (strategy, 64, 1), (strategy, 64, 8)]
  }
  for (strategy, batch, tile) in strategyRuns {
    cases.append(
      (
        "strategy-\(batch)-\(strategy.rawValue)-tile\(tile)",
        {
          NetworkBenchmarks.forward(classifier, batch: batch, strategy: strategy, tile: tile)
        }
      ))
  }
  var results: [String: Measurement] = [:]
  var order: [String] = []
  for (key, run) in cases where filter.map({ key.contains($0) }) ?? true {
    let result = try run()
    results[key] = result
    order.append(key)
    let name = result.name.padding(toLength: 48, withPad: " ", startingAt: 0)
    print(
      "\(name) median \(duration(result.median))  p90 \(duration(result.p90))  "
        + "\(rate(result.rate, result.unit))"
    )
  }

  var ratios: [String: Double] = [:]
  if let peak = results["sgemm"] {
    for key in ["forward-1", "forward-64"] {
      if let forward = results[key] {
        ratios["\(key) share of sgemm peak"] = forward.rate / peak.rate
      }
    }
  }
  if let one = results["forward-1"] {
    if let batch = results["forward-64"] {
      ratios["batch-64 speed-up per window over batch 1"] = one.median / (batch.median / 64)
    }
    for key in ["stream-1", "stream-10", "stream-1-x4", "stream-1-x8"] {
      if let stream = results[key] {
        ratios["window forward / \(key) step"] = one.median / stream.median
      }
    }
    if let naive = results["naive"] { ratios["naive / window forward"] = naive.median / one.median }
  }
  if !ratios.isEmpty {
    print("")
    for key in ratios.keys.sorted() {
      print(
        "\(key.padding(toLength: 48, withPad: " ", startingAt: 0)) "
          + "\(String(format: "%.2f", ratios[key]!))"
      )
    }
  }

  if let engines = results["engines"] {
    // The figure the engines are held to: one frame through one counter.
    print(
      "\nrep engines alone, a frame through one counter: median "
        + "\(duration(engines.median / engines.unitsPerIteration)), p90 "
        + "\(duration(engines.p90 / engines.unitsPerIteration))")
  }

  if let jsonPath {
    let objects: [[String: Any]] = order.map { key in
      let result = results[key]!
      return [
        "key": key, "name": result.name, "median_seconds": result.median, "p90_seconds": result.p90,
        "units_per_second": result.rate, "unit": result.unit,
      ]
    }
    let document: [String: Any] = [
      "configuration": configuration, "blas_threads": BLAS.threadCount, "results": objects,
      "ratios": ratios,
    ]
    let data = try JSONSerialization.data(
      withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: jsonPath))
  }
  if sink == 42.4242 { print("") }  // keeps results alive
}
