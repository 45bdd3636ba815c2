import ActionModel
import ArgumentParsing
import Foundation
import MotionSynth
import Poses
import Randomness
import Spotter
import Training
import TrainingData

/// `spotter train`: learns a model from synthetic workouts and annotated recordings.
enum TrainCommand {
  static let command = Command(
    name: "train",
    summary:
      "Train a model on synthetic workouts and/or annotated recordings; write a weights file.",
    options: [
      .value("output", "FILE", "Where to write the weights.", short: "o"),
      .value("synthetic", "N", "Synthetic workouts to draw (0 for none).", default: "400"),
      .value(
        "annotations", "FILE",
        "Create ML annotations of recordings to learn from too (give it again for more files)."),
      .value("variants", "N", "Augmented copies of each annotated clip.", default: "4"),
      .value(
        "epochs", "N", "At most this many epochs (early stopping may end sooner).", default: "12"),
      .value(
        "windows-per-epoch", "N", "Windows drawn per epoch, class-balanced.", default: "40000"),
      .value(
        "learning-rate", "X", "Adam's starting learning rate (cosine decay to 1/20).",
        default: "0.002"),
      .value(
        "validation", "X", "Share of recordings and clips held out to pick the best epoch.",
        default: "0.15"),
      ArchitectureOption.option,
      .value("seed", "N", "Seed for data, initialisation and sampling.", default: "1"),
      .value(
        "other-weight", "X", "How much more often 'other' windows are drawn than each exercise's.",
        default: "3"),
      .value(
        "recorded-weight", "X",
        "How much more often a window of an annotated recording is drawn than a synthetic one "
          + "of its class.", default: "1"),
      .value(
        "cameras", "MIX",
        "Where the synthetic workouts' cameras stand: any (round the person, from 10° below "
          + "to 60° above) or every-angle (from the floor up, more of them in front, a fifth "
          + "on the floor, a quarter above 35°).", default: "any"),
      .value(
        "rehab", "X",
        "Share of the synthetic workouts done as rehabilitation does them: slow, deep, arms "
          + "held forward.", default: "0"),
      .value(
        "others", "SET",
        "The other movement drawn between synthetic sets: classic (standing, fidgeting, "
          + "walking, arm swings, stretching, sitting down, picking up, facing away) or wide "
          + "(also dancing, boxing, warm-up swings, a phone in hand and loose arm swings).",
        default: "classic"),
      .value(
        "features", "SET",
        "What the network is fed a frame: positions (joint positions: feature version 1) or "
          + "view-robust (also joint angles, limb directions in the body's frame, limb lengths "
          + "and the torso's lean: feature version 2, as the shipped weights).",
        default: "positions"),
      .value(
        "crop", "X",
        "Share of annotated clips' augmented copies framed tighter: the feet or the head out "
          + "of the picture.", default: "0"),
      .flag(
        "reflect",
        "Mirror annotated clips for real (x reflected, sides swapped), not only by renaming the "
          + "sides (the shipped weights' recipe reflects)."),
      FoldOption.option,
    ],
    discussion: """
      The same arguments, data and machine give the same weights, bit for bit. Held-out
      synthetic recordings are new people, cameras and seeds; held-out annotated clips are whole
      clips. Recordings are kept as frames and windows cut as they are drawn, so memory grows
      with the recordings, not the windows. 'make weights' trains the shipped model.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let output = try arguments.required("output")
    let synthetic = try arguments.int("synthetic", range: 0...100_000)!
    let annotationFiles = arguments.strings("annotations")
    guard synthetic > 0 || !annotationFiles.isEmpty else {
      throw CLIError.usage(
        "nothing to learn from: give --synthetic N above 0 or --annotations FILE", command: command)
    }
    let seed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    let labels = Labels.all
    let options = try trainerOptions(arguments, labels: labels, seed: seed)
    let features = try featureSpec(arguments)
    let config = try ArchitectureOption.config(
      arguments, classes: labels.count, features: features, command: command)
    let validation = try arguments.double("validation", range: 0...0.9)!
    let started = Date()
    let (data, sources) = try gather(
      synthetic: synthetic, annotations: annotationFiles, seed: seed, labels: labels,
      features: features, arguments: arguments)
    let (train, held) = data.split(holdingOut: validation, seed: seed ^ 0x5EED)
    var perClass = [Int](repeating: 0, count: labels.count)
    for index in 0..<train.count { perClass[train.label(index)] += 1 }
    Terminal.error(
      "training on \(train.count) windows (\(data.frameCount) frames kept), validating on "
        + "\(held.count); per class: "
        + zip(labels, perClass).map { "\($0) \($1)" }.joined(separator: ", "))
    let terminal = Terminal.isTerminal(2)
    let result = Trainer.train(
      config: config, data: train, validation: held.count > 0 ? held : nil, options: options
    ) { progress in report(progress, terminal: terminal) }
    let metadata = ModelMetadata(
      architecture: config, labels: labels, features: features,
      provenance: .init(
        command: commandLine(arguments), seed: seed, data: sources,
        notes: [
          "validation_accuracy": String(format: "%.4f", result.bestValidationAccuracy),
          "best_epoch": String(result.bestEpoch + 1),
          "training_windows": String(train.count), "validation_windows": String(held.count),
        ]))
    try WeightsFile.write(metadata: metadata, parameters: result.parameters, to: output)
    print(
      String(
        format: "Wrote %@: %d parameters, validation accuracy %.1f%% (epoch %d), %.0f s.", output,
        config.parameterCount, result.bestValidationAccuracy * 100, result.bestEpoch + 1,
        Date().timeIntervalSince(started)))
    return 0
  }

  /// `--features`: the feature version the network is fed.
  static func featureSpec(_ arguments: ParsedArguments) throws -> FeatureSpec {
    switch arguments.string("features")! {
    case "positions": return FeatureSpec(version: 1)
    case "view-robust": return FeatureSpec(version: 2)
    case let other:
      throw CLIError.usage(
        "unknown --features '\(other)'; expected positions or view-robust", command: command)
    }
  }

  static func trainerOptions(_ arguments: ParsedArguments, labels: [String], seed: UInt64) throws
    -> Trainer.Options
  {
    var options = Trainer.Options()
    options.epochs = try arguments.int("epochs", range: 1...1000)!
    options.windowsPerEpoch = try arguments.int("windows-per-epoch", range: 64...10_000_000)!
    options.learningRate = Float(try arguments.double("learning-rate", range: 1e-6...1)!)
    options.seed = seed
    let otherWeight = try arguments.double("other-weight", range: 0.01...100)!
    options.classWeights = labels.map { $0 == Labels.other ? otherWeight : 1 }
    options.recordedWeight = try arguments.double("recorded-weight", range: 0.01...1000)!
    return options
  }

  /// The windows to learn from: synthetic workouts, then each annotation file's clips (all but
  /// the --fold left out), each file's groups kept apart from the others'.
  static func gather(
    synthetic: Int, annotations: [String], seed: UInt64, labels: [String],
    features: FeatureSpec, arguments: ParsedArguments
  ) throws -> (TrainingSet, sources: [String]) {
    var data = TrainingSet(features: features.featuresPerFrame)
    var sources: [String] = []
    if synthetic > 0 {
      let progress = ProgressLine(total: synthetic, unit: "synthesising workout")
      let name = arguments.string("cameras")!
      guard let cameras = VirtualCamera.Mix.named(name) else {
        throw CLIError.usage("--cameras must be any or every-angle", command: command)
      }
      let rehab = try arguments.double("rehab", range: 0...1)!
      let othersName = arguments.string("others")!
      let others: [OtherActivity.Kind]
      switch othersName {
      case "classic": others = OtherActivity.Kind.classic
      case "wide": others = OtherActivity.Kind.allCases
      default: throw CLIError.usage("--others must be classic or wide", command: command)
      }
      let set = DatasetBuilder.synthetic(
        count: synthetic, seed: seed, labels: labels, cameras: cameras, rehab: rehab,
        others: others, features: features
      ) { progress.advance(to: $0) }
      progress.finish()
      Terminal.error("synthetic: \(set.count) windows from \(synthetic) workouts")
      data.append(contentsOf: set)
      sources.append(
        "MotionSynth: \(synthetic) synthetic workouts, seed \(seed)"
          + (name == "any" ? "" : ", cameras \(name)")
          + (rehab == 0 ? "" : ", \(rehab) of them rehab")
          + (othersName == "classic" ? "" : ", \(othersName) other movement"))
    }
    let variants = try arguments.int("variants", range: 1...100)!
    let crops = try arguments.double("crop", range: 0...1)!
    let fold = try FoldOption.parse(arguments, command: command)
    for (number, file) in annotations.enumerated() {
      let set: TrainingSet
      do {
        set = try DatasetBuilder.annotated(
          file, labels: labels, variants: variants, seed: seed ^ 0xA5A5 ^ UInt64(number),
          reflect: arguments.flag("reflect"), crops: crops, features: features
        ) { clip in fold.map { clip % $0.count != $0.index } ?? true }
      } catch let error as PoseFileError {
        throw CLIError.failure(
          "\(error)", hint: "check the annotation file and the pose files it names.")
      }
      // Clip groups after the synthetic recordings', a million apart per file.
      data.append(contentsOf: set, groupOffset: 1_000_000 * (number + 1))
      Terminal.error("annotated: \(set.count) windows from \(file) (\(variants) variants a clip)")
      sources.append(
        "annotated recordings: \(file), \(variants) augmented variants a clip"
          + (crops == 0 ? "" : ", \(crops) of the variants framed tighter"))
    }
    return (data, sources)
  }

  static func report(_ progress: Trainer.Progress, terminal: Bool) {
    if let validation = progress.validationAccuracy {
      if terminal { Terminal.error("") }
      Terminal.error(
        String(
          format: "epoch %d: loss %.3f, train accuracy %.1f%%, validation %.1f%%",
          progress.epoch + 1, progress.loss, progress.accuracy * 100, validation * 100))
    } else if terminal {
      Terminal.error(
        String(
          format: "\repoch %d  batch %d/%d  loss %.3f  accuracy %.1f%%", progress.epoch + 1,
          progress.batch, progress.batches, progress.loss, progress.accuracy * 100),
        newline: false)
    }
  }

  /// The command as given (all but --output), its flags too, for the model's provenance.
  static func commandLine(_ arguments: ParsedArguments) -> String {
    var words = ["spotter", "train"]
    for option in command.options where option.name != "output" {
      for value in arguments.allValues[option.name] ?? [] { words += ["--\(option.name)", value] }
      if arguments.flags.contains(option.name) { words.append("--\(option.name)") }
    }
    return words.joined(separator: " ")
  }
}
