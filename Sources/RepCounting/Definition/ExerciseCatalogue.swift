import Foundation
import Poses

/// Every exercise definition Spotter knows: the built-ins shipped with the package, and any
/// from a folder of the user's (`--exercises DIR`), which add new ones or replace built-ins of
/// the same name.
public struct ExerciseCatalogue: Sendable {
  public private(set) var definitions: [ExerciseDefinition]

  public init(definitions: [ExerciseDefinition]) {
    self.definitions = definitions.sorted { $0.name < $1.name }
  }

  /// The built-in definitions (package resources), plus the `.json` files in `folder`, which
  /// replace built-ins of the same name.
  ///
  /// - Throws: `DefinitionError` naming the file and field of the first bad definition, or both
  ///   files of a name used twice in one folder.
  public static func load(adding folder: String? = nil) throws -> ExerciseCatalogue {
    var byName = try definitions(in: try builtInFolder())
    if let folder {
      byName.merge(try definitions(in: folder)) { _, added in added }
    }
    return ExerciseCatalogue(definitions: Array(byName.values))
  }

  /// A folder's definitions by name. Two files of one name are an error, not one hiding the
  /// other: which would win would depend only on how the files sort.
  private static func definitions(in folder: String) throws -> [String: ExerciseDefinition] {
    var byName: [String: (definition: ExerciseDefinition, path: String)] = [:]
    for path in try files(in: folder) {
      let definition = try ExerciseDefinition.load(path)
      if let earlier = byName[definition.name] {
        throw DefinitionError(
          file: path, field: "name",
          message:
            "\"\(definition.name)\" is also the name of \(earlier.path); each definition in a "
            + "folder needs a name of its own")
      }
      byName[definition.name] = (definition, path)
    }
    return byName.mapValues(\.definition)
  }

  /// The folder of built-in definitions: in the package's resource bundle
  /// (`Spotter_RepCounting.resources`), beside the program, or beside the library that holds
  /// this code (an app that embeds libspotter ships the bundle next to it), else in the
  /// sources it was built from. `Bundle.module` looks in the first and the build folder only,
  /// and stops the process when neither is there: an app on another machine must get an
  /// error it can show instead.
  ///
  /// - Throws: `DefinitionError` saying where it looked.
  static func builtInFolder() throws -> String {
    let bundle = "Spotter_RepCounting.resources"
    // Bundle(for:) is the folder of the binary that holds the class: the library's, when
    // this code is in libspotter.
    let program = Bundle.main.bundleURL.appendingPathComponent(bundle).path
    let library = Bundle(for: CatalogueMarker.self).bundleURL.appendingPathComponent(bundle).path
    let places = library == program ? [program] : [program, library]
    let found = places.map { $0 + "/Definitions" }.first {
      FileManager.default.fileExists(atPath: $0)
    }
    if let found { return found }
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Definitions").path
    if FileManager.default.fileExists(atPath: sources) { return sources }
    throw DefinitionError(
      file: bundle, field: "",
      message:
        "the built-in exercise definitions are not installed: looked in "
        + places.joined(separator: " and ") + "; ship that folder beside the program or "
        + "libspotter")
  }

  private static func files(in folder: String) throws -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue
    else {
      throw DefinitionError(
        file: folder, field: "", message: "no such folder of exercise definitions")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
      $0.hasSuffix(".json")
    }.sorted()
    return names.map { (folder as NSString).appendingPathComponent($0) }
  }

  public func definition(named name: String) -> ExerciseDefinition? {
    definitions.first { $0.name == name }
  }

  /// The definition the runtime uses for a classifier label: the one marked `"default": true`,
  /// else the one named like the label.
  public func definition(forLabel label: String) -> ExerciseDefinition? {
    definitions.first { $0.label == label && $0.isDefault == true } ?? definition(named: label)
  }

  /// A fresh engine for a definition.
  public static func makeEngine(_ definition: ExerciseDefinition) -> any RepEngine {
    switch definition.counting {
    case .signal(let counting):
      counting.alternatives.isEmpty ? SignalEngine(definition) : MultiSignalEngine(definition)
    case .staged: StagedEngine(definition)
    }
  }

  /// A validated signal's joints, resolved.
  static func references(of signal: SignalSpec) -> [JointReference] {
    (signal.joints ?? [signal.from, signal.to].compactMap { $0 } + (signal.relativeTo ?? [])).map {
      JointReference(name: $0)!
    }
  }
}

/// A class in this module, for `Bundle(for:)`.
private final class CatalogueMarker {}
