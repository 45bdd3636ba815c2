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
    switch definition.engine {
    case .signal: SignalEngine(definition)
    case .staged: StagedEngine(definition)
    }
  }

  /// A validated signal's joints, resolved.
  static func references(of signal: SignalSpec) -> [JointReference] {
    (signal.joints ?? [signal.from, signal.to].compactMap { $0 }).map { JointReference(name: $0)! }
  }
}

/// Counts reps of one exercise from canonical poses: the body-size estimate, a check that the
/// person is staying in place, and the engine.
///
/// No exercise carries the whole body across the room, so while the hip centre travels
/// sideways in the picture faster than `travelLimit` body sizes a second, or the body grows or
/// shrinks in the picture faster than `growthLimit` a second (walking towards or away from the
/// camera), for a fifth of a second or more, or when nobody has been seen for a second, the
/// engine waits and then starts afresh: a walk into position counts nothing. Both are measured
/// over half a second, so a hip flickering in and out of view is not a step; sideways only,
/// because squats, push-ups and jumps move the hips up and down, quickly.
public final class RepCounter {
  public let engine: any RepEngine
  /// Two seconds of history, as for the features: shorter follows someone walking closer a
  /// little sooner but lets jitter through as a slow wander of every signal.
  private var size = BodySizeEstimator(history: 60)
  public var travelLimit: Float = 2
  public var growthLimit: Float = 0.35
  /// The hip centre's sideways position over the last half second, oldest first, to measure
  /// travel over a span long enough that a hip flickering in and out of view is not a step.
  private var trail: [(t: Double, x: Float, size: Float)] = []
  private var lastSeen: Double?
  private var moving: Float = 0  // an EMA of "travelling this frame", 0...1
  private var interrupted = false

  public init(_ definition: ExerciseDefinition) {
    engine = ExerciseCatalogue.makeEngine(definition)
    trail.reserveCapacity(32)
  }

  public var definition: ExerciseDefinition { engine.definition }
  public var count: Int { engine.count }

  /// Takes one frame (resampled to a steady rate; `.nobody` where nobody was seen).
  public func process(_ pose: Pose, t: Double, emit: (RepEvent) -> Void) {
    guard pose.hasPerson else { return }
    let bodySize = size.update(with: pose)
    if let lastSeen, t - lastSeen > 1 {
      engine.interrupt()  // nobody for a second: whatever was under way is over
      trail.removeAll(keepingCapacity: true)
    }
    lastSeen = t
    while let first = trail.first, t - first.t > 0.5 { trail.removeFirst() }
    // Without a hip in view (an upper-body framing), travel is not judged.
    if let centre = Self.centre(pose), case _ = trail.append((t, centre.x, bodySize)),
      let first = trail.first,
      t - first.t > 0.25
    {
      let span = Float(t - first.t)
      let travel = abs(centre.x - first.x) / max(bodySize, 1e-6) / span
      let growth = abs(bodySize - first.size) / max(first.size, 1e-6) / span
      moving += 0.2 * ((travel > travelLimit || growth > growthLimit ? 1 : 0) - moving)
    }
    if moving > 0.5 {
      if !interrupted { engine.interrupt() }
      interrupted = true
      return
    }
    interrupted = false
    engine.process(pose, t: t, bodySize: bodySize, emit: emit)
  }

  public func reset() {
    engine.reset()
    size.reset()
    trail.removeAll(keepingCapacity: true)
    lastSeen = nil
    moving = 0
  }

  /// Where the body is across the picture: the hips' centre, or the one hip seen. Never the
  /// mean of all joints, which moves whenever the arms do.
  private static func centre(_ pose: Pose) -> (x: Float, y: Float)? {
    let (left, right) = (pose[.leftHip], pose[.rightHip])
    switch (left.confidence > 0.3, right.confidence > 0.3) {
    case (true, true): return ((left.x + right.x) / 2, (left.y + right.y) / 2)
    case (true, false): return (left.x, left.y)
    case (false, true): return (right.x, right.y)
    case (false, false): return nil
    }
  }

}
