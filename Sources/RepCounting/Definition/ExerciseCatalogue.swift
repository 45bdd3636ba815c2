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

  /// The built-in definitions (package resources), plus the `.json` files in `folder`.
  ///
  /// - Throws: `DefinitionError` naming the file and field of the first bad definition.
  public static func load(adding folder: String? = nil) throws -> ExerciseCatalogue {
    var byName: [String: ExerciseDefinition] = [:]
    for path in try files(in: builtInFolder) {
      let definition = try ExerciseDefinition.load(path)
      byName[definition.name] = definition
    }
    if let folder {
      for path in try files(in: folder) {
        let definition = try ExerciseDefinition.load(path)
        byName[definition.name] = definition
      }
    }
    return ExerciseCatalogue(definitions: Array(byName.values))
  }

  /// The folder of built-in definitions inside the package's resource bundle.
  static var builtInFolder: String { Bundle.module.resourcePath! + "/Definitions" }

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
