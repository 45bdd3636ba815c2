import ActionModel
import ArgumentParsing
import Foundation
import RepCounting

/// `spotter exercises`: every exercise definition with its engine, signal and thresholds.
enum ExercisesCommand {
  static let command = Command(
    name: "exercises",
    summary: "List the exercise definitions: engine, signal, thresholds.",
    options: [
      .flag("json", "Print the definitions as a JSON array."),
      WeightsLocation.option,
    ] + ExerciseCatalogueOption.options + [],
    discussion: """
      A definition whose label the model (--weights, $SPOTTER_WEIGHTS or the default) does not
      know is never started by the classifier: only 'spotter count --exercise NAME' counts it,
      and the list says so.
      """,
    run: run
  )

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let catalogue = try ExerciseCatalogueOption.load(arguments)
    if arguments.flag("json") {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(catalogue.definitions), as: UTF8.self))
      return 0
    }
    // The model's labels, to say which definitions the classifier can never start; a list
    // that cannot find a model still lists.
    let modelLabels = (try? WeightsLocation.resolve(arguments.string("weights")))
      .flatMap { try? WeightsFile.load($0) }?.labels
    for definition in catalogue.definitions {
      let isDefault = catalogue.definition(forLabel: definition.label)?.name == definition.name
      print(
        "\(definition.name) (label \(definition.label)\(isDefault ? ", default" : ""), "
          + "\(definition.engine.rawValue) engine)"
      )
      if let modelLabels, !modelLabels.contains(definition.label) {
        print(
          "  note        the model has no label '\(definition.label)': only 'spotter count "
            + "--exercise \(definition.name)' counts it")
      }
      switch definition.counting {
      case .signal(let counting):
        printSignal(counting, as: "signal")
        for alternative in definition.alternativeCountings {
          printSignal(alternative, as: "or signal")
        }
        print("  confidence  joints below \(definition.minConfidence) are not read")
      case .staged(let counting):
        for stage in counting.stages {
          let alternatives = stage.any.map { requirements in
            requirements.map { requirement in
              let kind =
                requirement.angle.map { "angle \($0.joined(separator: "–"))" }
                ?? "orientation \(requirement.orientation!.joined(separator: "→"))"
              return "\(kind) in \(Int(requirement.range[0]))…\(Int(requirement.range[1]))°"
            }.joined(separator: " and ")
          }
          print("  stage       \(stage.name): \(alternatives.joined(separator: "  or  "))")
        }
        print("  cooldown    \(counting.cooldownSeconds ?? 0) s")
      }
      if let anchors = definition.anchors {
        print(
          "  anchors     \(anchors.joints.joined(separator: ", ")) stay within "
            + "\(anchors.maxTravel) body sizes"
        )
      }
      if let cues = definition.cues, !cues.isEmpty {
        print("  cues        \(cues.map(\.message).joined(separator: " | "))")
      }
    }
    return 0
  }

  /// A signal's joints, thresholds and smoothing.
  private static func printSignal(_ counting: ExerciseDefinition.SignalCounting, as title: String) {
    let signal = counting.signal
    let joints = signal.joints?.joined(separator: "–") ?? "\(signal.from!) → \(signal.to!)"
    let relative = signal.relativeTo.map { " from \($0.joined(separator: " → "))" } ?? ""
    let absolute = signal.absolute == true ? ", absolute (from its resting level)" : ""
    let heading = title.padding(toLength: 12, withPad: " ", startingAt: 0)
    print(
      "  \(heading)\(signal.kind.rawValue) \(joints)\(relative), side "
        + "\(signal.side?.rawValue ?? "mean")\(absolute)"
    )
    let thresholds = counting.thresholds
    switch thresholds.mode {
    case .fixed:
      print(
        "  thresholds  fixed: enter \(thresholds.enter!), exit \(thresholds.exit!), direction "
          + "\(counting.direction.rawValue)"
      )
    case .adaptive:
      let percent = { (share: Double) in "\(Int((share * 100).rounded()))%" }
      let within = thresholds.minRangeLearned ?? thresholds.minRange!
      let multiple = thresholds.jitterMultiple
      let jitter = multiple == multiple.rounded() ? "\(Int(multiple))" : "\(multiple)"
      let back = thresholds.returnFraction.map { ", done \(percent($0)) of the way back" } ?? ""
      print(
        "  thresholds  adaptive, direction \(counting.direction.rawValue): a first rep moves "
          + "\(thresholds.minRange!); within a set at least \(within), "
          + "\(percent(thresholds.repFraction)) of the typical range and \(jitter)× "
          + "the signal's jitter (up to \(thresholds.minRange!)); full reps \(percent(thresholds.fullFraction))\(back)"
      )
    }
    print(
      "  smoothing   EMA \(counting.smoothing) after a median of \(counting.medianLength) frames")
  }
}
