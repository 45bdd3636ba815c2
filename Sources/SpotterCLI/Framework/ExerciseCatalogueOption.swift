import ArgumentParsing
import RepCounting

/// The options every command that counts reps shares: `--exercises DIR` and `--strict`.
enum ExerciseCatalogueOption {
  static let options: [Option] = [
    .value(
      "exercises", "DIR",
      "A folder of exercise definitions (.json) to add to, or override, the built-ins."),
    .flag(
      "strict",
      "Count only full reps: shallow ones are refused as partial (by default they count, flagged)."),
  ]

  /// The catalogue: built-ins plus the folder, if given; every definition strict with --strict.
  static func load(_ arguments: ParsedArguments) throws -> ExerciseCatalogue {
    do {
      var catalogue = try ExerciseCatalogue.load(adding: arguments.string("exercises"))
      if arguments.command.options.contains(where: { $0.name == "strict" }),
        arguments.flag("strict")
      {
        catalogue = ExerciseCatalogue(
          definitions: catalogue.definitions.map {
            var strict = $0
            strict.strict = true
            return strict
          })
      }
      return catalogue
    } catch let error as DefinitionError {
      throw CLIError.failure(
        "\(error)", hint: "exercise definitions are described in Sources/RepCounting/README.md.")
    }
  }
}
