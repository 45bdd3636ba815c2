import ActionModel
import ArgumentParsing
import RepCounting
import Spotter

/// The options every command that runs sessions shares, and the runtime they make.
enum RuntimeOptions {
  static let options: [Option] =
    [
      WeightsLocation.option
    ] + ExerciseCatalogueOption.options + [
      .value("stride", "N", "Frames between predictions.", default: "\(defaults.stride)"),
      .value(
        "enter", "P", "Probability an exercise needs to lead with to start.",
        default: "\(defaults.enterConfidence)"),
      .value(
        "low", "P",
        "Below this top probability a prediction is low-confidence and never starts an exercise.",
        default: "\(defaults.lowConfidence)"),
      .value(
        "dwell", "N", "Predictions in a row to start an exercise.", default: "\(defaults.dwell)"),
      .value(
        "exit", "N",
        "Predictions in a row of anything else to end it, once its movement has stopped.",
        default: "\(defaults.exitPredictions)"),
      goal,
    ]
  /// The library's defaults are the command line's: one place to change them.
  private static let defaults = SessionOptions()

  /// `--goal`, given as often as needed; `goals(_:)` reads it.
  static let goal = Option.value(
    "goal", "GOAL",
    "End a set at a target: squat:20 (reps), 60s (time), lunge:45s; give it again for more.")

  /// The `--goal` targets; one it cannot read is a usage error that names it.
  static func goals(_ arguments: ParsedArguments) throws -> [Goal] {
    try arguments.strings(goal.name).map { text in
      guard let goal = Goal(text) else {
        throw CLIError.usage(
          "--goal takes REPS, SECONDSs, EXERCISE:REPS or EXERCISE:SECONDSs (e.g. squat:20, 60s), "
            + "got '\(text)'", command: arguments.command)
      }
      return goal
    }
  }

  /// For commands that send events: `prediction` events are many and off by default.
  static let predictions = Option.flag(
    "predictions", "Also emit every window's prediction (three a second) as an event (NDJSON only)."
  )

  /// The runtime of these options, with `classifier` in place of the --weights one if given.
  static func runtime(_ arguments: ParsedArguments, classifier: Classifier? = nil) throws
    -> Runtime
  {
    let classifier =
      try classifier ?? WeightsFile.load(WeightsLocation.resolve(arguments.string("weights")))
    var options = SessionOptions()
    options.stride = try arguments.int("stride", range: 1...600)!
    options.enterConfidence = Float(try arguments.double("enter", range: 0...1)!)
    options.lowConfidence = Float(try arguments.double("low", range: 0...1)!)
    options.dwell = try arguments.int("dwell", range: 1...100)!
    options.exitPredictions = try arguments.int("exit", range: 1...100)!
    options.goals = try goals(arguments)
    options.reportPredictions =
      arguments.command.options.contains { $0.name == predictions.name }
      && arguments.flag(predictions.name)
    return Runtime(
      classifier: classifier, catalogue: try ExerciseCatalogueOption.load(arguments),
      options: options)
  }
}
