import ActionModel
import ArgumentParsing
import Randomness

/// `spotter init-weights`: a seeded, untrained model. The trainer starts from the same
/// initialisation; `Weights/tiny.spotter`, the test model, is made by this command
/// (`make tiny-weights`).
enum InitWeightsCommand {
  static let command = Command(
    name: "init-weights",
    summary: "Write a seeded, untrained model (the tiny test model is made this way).",
    options: [
      .value("output", "FILE", "Where to write the weights file.", short: "o"),
      ArchitectureOption.option,
      .value(
        "labels", "LIST", "Comma-separated labels.", default: Labels.all.joined(separator: ",")),
      .value("seed", "N", "Random seed for the initial weights.", default: "1"),
    ],
    discussion: "The same arguments always give the same bytes.",
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let output = try arguments.required("output")
    let labels = arguments.string("labels")!.split(separator: ",").map(String.init)
    guard labels.count >= 2, Set(labels).count == labels.count else {
      throw CLIError.usage("--labels needs at least two different labels", command: command)
    }
    let seed = UInt64(try arguments.int("seed", range: 0...Int.max)!)
    let config = try ArchitectureOption.config(arguments, classes: labels.count, command: command)
    var generator = SeededGenerator(seed: seed)
    let parameters = Parameters(config: config, initialisedWith: &generator)
    // The command without --output, so the same model written anywhere has the same bytes.
    let recorded =
      "spotter init-weights --architecture \(arguments.string("architecture")!) --labels "
      + "\(labels.joined(separator: ",")) --seed \(seed)"
    let metadata = ModelMetadata(
      architecture: config, labels: labels,
      provenance: .init(
        command: recorded, seed: seed, data: [], notes: ["trained": "no: initial weights only"]))
    try WeightsFile.write(metadata: metadata, parameters: parameters, to: output)
    print(
      "Wrote \(output): \(config.parameterCount) parameters, \(labels.count) labels, seed \(seed).")
    return 0
  }
}
