import ActionModel
import ArgumentParsing
import Foundation
import Poses
import Randomness
import Spotter
import TrainingData

/// `spotter train`: learns a model from synthetic workouts and annotated recordings.
enum TrainCommand {
  static let command = Command(
    name: "train",
    summary:
      "Train a model on synthetic workouts and/or annotated recordings; write a weights file.",
    options: [
      .value("output", "FILE", "Where to write the weights."),
      .value("synthetic", "N", "Synthetic workouts to draw (0 for none).", default: "400"),
      .value("annotations", "FILE", "Create ML annotations of real recordings to learn from too."),
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
      FoldOption.option,
    ],
    discussion: """
      The same arguments, data and machine give the same weights, bit for bit. Held-out
      synthetic recordings are new people, cameras and seeds; held-out annotated clips are whole
      clips. 'make weights' trains the shipped model.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let output = try arguments.required("output")
    let synthetic = try arguments.int("synthetic", range: 0...100_000)!
    let annotations = arguments.string("annotations")
    guard synthetic > 0 || annotations != nil else {
      throw CLIError.usage(
        "nothing to learn from: give --synthetic N above 0 or --annotations FILE", command: command)
    }
    let seed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    var options = Trainer.Options()
    options.epochs = try arguments.int("epochs", range: 1...1000)!
    options.windowsPerEpoch = try arguments.int("windows-per-epoch", range: 64...10_000_000)!
    options.learningRate = Float(try arguments.double("learning-rate", range: 1e-6...1)!)
    options.seed = seed
    let otherWeight = try arguments.double("other-weight", range: 0.01...100)!
    let validation = try arguments.double("validation", range: 0...0.9)!
    let labels = Labels.all
    options.classWeights = labels.map { $0 == Labels.other ? otherWeight : 1 }
    let config = try ArchitectureOption.config(arguments, classes: labels.count, command: command)
    let started = Date()
    let terminal = Terminal.isTerminal(2)
    func say(_ text: String) { Terminal.error(text) }
    var data = TrainingSet()
    var sources: [String] = []
    if synthetic > 0 {
      let set = DatasetBuilder.synthetic(count: synthetic, seed: seed, labels: labels) { done in
        if terminal { say("\rsynthesising workouts \(done)/\(synthetic)") }
      }
      if terminal { say("") }
      say("synthetic: \(set.count) windows from \(synthetic) workouts")
      data.append(contentsOf: set)
      sources.append("MotionSynth: \(synthetic) synthetic workouts, seed \(seed)")
    }
    if let annotations {
      let variants = try arguments.int("variants", range: 1...100)!
      var set: TrainingSet
      do {
        let fold = try FoldOption.parse(arguments, command: command)
        set = try DatasetBuilder.annotated(
          annotations, labels: labels, variants: variants, seed: seed ^ 0xA5A5
        ) { clip in
          fold.map { clip % $0.count != $0.index } ?? true
        }
      } catch let error as PoseFileError {
        throw CLIError.failure(
          "\(error)", hint: "check the annotation file and the pose files it names.")
      }
      // Clip groups after the synthetic recordings', so splits keep a clip on one side.
      set = offsetGroups(set, by: 1_000_000)
      say("annotated: \(set.count) windows from \(annotations) (\(variants) variants a clip)")
      data.append(contentsOf: set)
      sources.append("annotated recordings: \(annotations), \(variants) augmented variants a clip")
    }
    let (train, held) = data.split(holdingOut: validation, seed: seed ^ 0x5EED)
    let perClass = zip(labels, train.counts(classes: labels.count)).map { "\($0) \($1)" }
    say(
      "training on \(train.count) windows, validating on \(held.count); per class: "
        + perClass.joined(separator: ", "))
    let result = Trainer.train(
      config: config, windows: train.windows, labels: train.labels,
      validation: held.count > 0 ? (held.windows, held.labels) : nil, options: options
    ) { progress in
      if let validation = progress.validationAccuracy {
        if terminal { say("") }
        say(
          String(
            format: "epoch %d: loss %.3f, train accuracy %.1f%%, validation %.1f%%",
            progress.epoch + 1, progress.loss, progress.accuracy * 100, validation * 100))
      } else if terminal {
        say(
          String(
            format: "\repoch %d  batch %d/%d  loss %.3f  accuracy %.1f%%", progress.epoch + 1,
            progress.batch, progress.batches, progress.loss, progress.accuracy * 100))
      }
    }
    let seconds = Date().timeIntervalSince(started)
    var words = ["spotter", "train"]
    for option in command.options where option.name != "output" {
      if let value = arguments.values[option.name] { words += ["--\(option.name)", value] }
    }
    let metadata = ModelMetadata(
      architecture: config, labels: labels,
      provenance: .init(
        command: words.joined(separator: " "), seed: seed, data: sources,
        notes: [
          "validation_accuracy": String(format: "%.4f", result.bestValidationAccuracy),
          "best_epoch": String(result.bestEpoch + 1),
          "training_windows": String(train.count), "validation_windows": String(held.count),
        ]))
    try WeightsFile.write(metadata: metadata, parameters: result.parameters, to: output)
    print(
      String(
        format: "Wrote %@: %d parameters, validation accuracy %.1f%% (epoch %d), %.0f s.", output,
        config.parameterCount,
        result.bestValidationAccuracy * 100, result.bestEpoch + 1, seconds))
    return 0
  }

  static func offsetGroups(_ set: TrainingSet, by offset: Int) -> TrainingSet {
    var shifted = TrainingSet(window: set.window, features: set.features)
    shifted.append(contentsOf: set, groupOffset: offset)
    return shifted
  }
}
