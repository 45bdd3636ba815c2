import ArgumentParsing
import RepCounting

/// The `--exercises DIR` option every command that counts reps shares.
enum ExerciseCatalogueOption {
  static let option = Option.value(
    "exercises", "DIR",
    "A folder of exercise definitions (.json) to add to, or override, the built-ins.")

  /// The catalogue: built-ins plus the folder, if given.
  static func load(_ arguments: ParsedArguments) throws -> ExerciseCatalogue {
    do {
      return try ExerciseCatalogue.load(adding: arguments.string("exercises"))
    } catch let error as DefinitionError {
      throw CLIError.failure(
        "\(error)", hint: "exercise definitions are described in Sources/RepCounting/README.md.")
    }
  }
}
