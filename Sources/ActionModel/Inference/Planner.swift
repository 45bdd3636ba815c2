import Foundation
import Linalg
import Poses
import Randomness

/// Makes a model's `ExecutionPlan` by measuring on the machine at hand, the way FFTW's planner
/// or cuDNN's benchmark mode do: which strategy is fastest for a layer depends on the CPU's
/// vector width, its caches and OpenBLAS's kernels for it, and a table measured on one CPU was
/// the slowest choice on another.
///
/// Measuring takes at most about 50 ms (each layer alone, each usable strategy, a few runs,
/// best of them; larger tiles only while time is left). The plan is then kept in a small cache,
/// one file per CPU model, instruction set, OpenBLAS build and network shape, in
/// `SpotterCacheFolder` (`$XDG_CACHE_HOME/spotter/`, else `~/.cache/spotter/`), so later starts
/// cost a file read.
///
/// `SPOTTER_PLAN` chooses: unset (or `cached`) for the cache, else measuring; `measure` to
/// measure again and refresh the cache; `estimate` for a fixed plan from simple rules, nothing
/// timed and no file touched, when start-up must be instant or runs deterministic.
public enum Planner {
  /// The environment variable that chooses how plans are made.
  public static let environmentVariable = "SPOTTER_PLAN"
  /// Windows per pass tried for batches, smallest first.
  static let tiles = [1, 4, 8, 16]
  /// Measuring stops trying larger tiles past this much time.
  static let budgetSeconds = 0.040

  /// The plan for `classifier`, made as `SPOTTER_PLAN` says in `environment`.
  static func plan(
    for classifier: Classifier,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> ExecutionPlan {
    let mode = environment[environmentVariable] ?? "cached"
    if mode == "estimate" { return estimated(for: classifier) }
    let key = cacheKey(for: classifier.config)
    let path = SpotterCacheFolder.path(environment) + "/plan-" + hexHash(key) + ".txt"
    if mode != "measure", let text = try? String(contentsOfFile: path, encoding: .utf8),
      let plan = ExecutionPlan.decode(
        text, key: key, layers: classifier.config.convolutions.count, path: path)
    {
      return plan
    }
    let plan = measured(for: classifier)
    // A cache that cannot be written costs the next start another measurement, nothing more.
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try? plan.encoded(key: key).write(toFile: path, atomically: true, encoding: .utf8)
    return plan
  }

  /// Simple rules, nothing timed: Spotter's kernels wherever the CPU has them, eight windows a
  /// pass (a panel's weights then serve eight windows from cache); without them, Winograd for
  /// three-tap layers and shifted GEMM for the rest, a window at a time.
  public static func estimated(for classifier: Classifier) -> ExecutionPlan {
    let layers = classifier.config.convolutions.indices
    if classifier.packedLayers != nil {
      return ExecutionPlan(
        single: layers.map { _ in .packed }, batched: layers.map { _ in .packed }, tile: 8,
        stream: .single, origin: .estimated)
    }
    let strategies = layers.map { classifier.usable(.winograd, layer: $0) }
    return ExecutionPlan(
      single: strategies, batched: strategies, tile: 1, stream: .single, origin: .estimated)
  }

  /// Times every usable strategy on every layer, alone, at batch 1 and at each tile, and keeps
  /// the fastest per window; then the streaming step with single and half-precision weights.
  public static func measured(for classifier: Classifier) -> ExecutionPlan {
    let start = seconds()
    let config = classifier.config
    let workspace = Workspace(for: classifier, tile: tiles.last!, strategy: .shiftedGEMM)
    // Layer inputs look like activations: non-negative, a few zeros.
    var seed: UInt32 = 1
    for (index, buffer) in workspace.activations.enumerated() {
      let channels = index == 0 ? config.inputFeatures : config.convolutions[index - 1].channels
      for position in 0..<(tiles.last! * classifier.inputFrames(ofLayer: 0) * channels) {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        buffer[position] = Float(seed >> 8) / Float(1 << 24) - (index == 0 ? 0.5 : 0.1)
      }
    }
    var best: [Int: (strategies: [ConvolutionStrategy], seconds: Double)] = [:]
    var fastestAtOne: [[ConvolutionStrategy: Double]] = []
    for tile in tiles {
      // Past one window, a tile times only the strategies still in the running, a warm-up and
      // three runs each of `tile` windows: forecast from their times at one window, and stop
      // where the next tile would overrun the budget.
      let forecast = fastestAtOne.reduce(0.0) { sum, times in
        let bestAlone = times.values.min()!
        let kept = times.values.filter { $0 <= 1.5 * bestAlone }
        return sum + kept.reduce(0, +) * Double(4 * tile)
      }
      if tile > 1 && seconds() - start + forecast > budgetSeconds { break }
      var chosen: [ConvolutionStrategy] = []
      var total = 0.0
      for index in config.convolutions.indices {
        let frames = classifier.inputFrames(ofLayer: index)
        let channels = index == 0 ? config.inputFeatures : config.convolutions[index - 1].channels
        let input = SequenceBatch(
          base: workspace.activations[index], batch: tile, frames: frames, channels: channels,
          windowStride: frames)
        var times: [ConvolutionStrategy: Double] = [:]
        for strategy in ConvolutionStrategy.allCases
        where classifier.usable(strategy, layer: index) == strategy {
          // Past a window at a time, only what came within 1.5× of the best alone.
          if tile > 1, let alone = fastestAtOne[index][strategy],
            alone > 1.5 * fastestAtOne[index].values.min()!
          {
            continue
          }
          times[strategy] = fastest(repeats: tile == 1 ? 5 : 3) {
            _ = classifier.forward(
              layer: index, strategy: strategy, input: input,
              output: workspace.activations[index + 1], scratch: workspace.columns)
          }
        }
        if tile == 1 { fastestAtOne.append(times) }
        let (strategy, time) = times.min { $0.value < $1.value }!
        chosen.append(strategy)
        total += time / Double(tile)
      }
      best[tile] = (chosen, total)
    }
    let tile = best.min { $0.value.seconds < $1.value.seconds }!.key
    let stream = classifier.halfPackedLayers == nil ? .single : fasterStream(classifier)
    return ExecutionPlan(
      single: best[1]!.strategies, batched: best[tile]!.strategies, tile: tile, stream: stream,
      origin: .measured(milliseconds: (seconds() - start) * 1000))
  }

  /// Half-precision weights for the streaming step only where, timed here both ways, they make
  /// it at least 1.25× faster: half precision rounds each weight, so it has to earn its place.
  /// Which wins depends on the CPU, not on a rule: half halves the bytes a step reads, and
  /// widening them costs instructions on the ports the multiply-adds need. On a CPU whose L2
  /// holds the single-precision weights and widening competes with them (the AVX-512 Xeon in
  /// README's table), half is the slower.
  static func fasterStream(_ classifier: Classifier) -> WeightPrecision {
    let config = classifier.config
    let frame = UnsafeMutableBufferPointer<Float>.allocate(capacity: config.inputFeatures)
    let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: config.classes)
    defer {
      frame.deallocate()
      output.deallocate()
    }
    for index in frame.indices { frame[index] = Float(index % 7) / 7 - 0.4 }
    let times = [WeightPrecision.single, .half].map { precision in
      let stream = StreamState(classifier: classifier, precision: precision)
      return fastest(repeats: 15) {
        stream.push(UnsafeBufferPointer(frame))
        stream.probabilities(into: output)
      }
    }
    return times[1] * 1.25 < times[0] ? .half : .single
  }

  /// The shortest of `repeats` runs of `body`, after one discarded.
  static func fastest(repeats: Int, _ body: () -> Void) -> Double {
    body()
    var best = Double.infinity
    for _ in 0..<repeats {
      let start = seconds()
      body()
      best = min(best, seconds() - start)
    }
    return best
  }

  /// This thread's CPU time: on a machine shared with other work, time slices given to other
  /// processes neither pick a strategy nor spend the budget.
  static func seconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
  }

  /// What a cached plan is valid for: the CPU model, the kernels' instruction set, OpenBLAS's
  /// build and the network's shape (its weights' values do not change the timing).
  static func cacheKey(for config: NetworkConfig) -> String {
    let layers = config.convolutions.map { "\($0.kernel)/\($0.dilation)/\($0.channels)" }
    return "v3|\(cpuName)|\(InstructionSet.available)|\(BLAS.configuration)|"
      + "T\(config.window)F\(config.inputFeatures)K\(config.classes)|"
      + layers.joined(separator: ",")
  }

  /// The CPU's model name (`/proc/cpuinfo`), for plan keys and for naming where a figure was
  /// measured.
  public static let cpuName: String = {
    guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
      return "unknown CPU"
    }
    for line in text.split(separator: "\n") where line.hasPrefix("model name") {
      if let colon = line.firstIndex(of: ":") {
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
    }
    return "unknown CPU"
  }()

  /// The instruction set of Spotter's own kernels on this CPU ("none" where only OpenBLAS runs).
  public static var kernels: String { InstructionSet.available.description }

  /// FNV-1a, 64 bits, in hex: a short file name for a long key (the key itself is inside).
  static func hexHash(_ text: String) -> String {
    String(StableHash.fnv1a(text), radix: 16)
  }
}
