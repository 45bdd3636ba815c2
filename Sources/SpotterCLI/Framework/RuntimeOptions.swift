import ActionModel
import RepCounting
import Spotter

/// The options every command that runs sessions shares, and the runtime they make.
enum RuntimeOptions {
  static let options: [Option] = [
    WeightsLocation.option,
    ExerciseCatalogueOption.option,
    .value("stride", "N", "Frames between predictions.", default: "10"),
    .value("enter", "P", "Probability an exercise needs to lead with to start.", default: "0.6"),
    .value("dwell", "N", "Predictions in a row to start an exercise.", default: "3"),
    .value("exit", "N", "Predictions in a row of anything else to end it.", default: "4"),
  ]

  static func runtime(_ arguments: ParsedArguments) throws -> Runtime {
    let classifier = try WeightsFile.load(WeightsLocation.resolve(arguments.string("weights")))
    var options = SessionOptions()
    options.stride = try arguments.int("stride", range: 1...600)!
    options.enterConfidence = Float(try arguments.double("enter", range: 0...1)!)
    options.dwell = try arguments.int("dwell", range: 1...100)!
    options.exitPredictions = try arguments.int("exit", range: 1...100)!
    return Runtime(
      classifier: classifier, catalogue: try ExerciseCatalogueOption.load(arguments),
      options: options)
  }
}
