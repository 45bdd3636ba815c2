import ActionModel
import ArgumentParsing
import Foundation

/// What `spotter inspect` prints for a weights file.
enum WeightsInspection {
  /// Whether the file starts with the weights magic.
  static func isWeightsFile(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: WeightsFile.magic.count)) ?? Data()
    return [UInt8](head) == WeightsFile.magic
  }

  static func text(path: String, metadata: ModelMetadata, parameters: Parameters) -> String {
    let config = metadata.architecture
    var lines: [String] = []
    func row(_ label: String, _ value: String) {
      lines.append(label.padding(toLength: 18, withPad: " ", startingAt: 0) + value)
    }
    row("Weights", path)
    row("Format", "version \(WeightsFile.version), checksum ok")
    row("Parameters", "\(config.parameterCount)")
    let layers = config.convolutions.map { "conv k\($0.kernel) d\($0.dilation) → \($0.channels)" }
    let parts =
      ["input \(config.inputFeatures)"] + layers + ["average pool", "linear → \(config.classes)"]
    row("Architecture", parts.joined(separator: ", "))
    row(
      "Window",
      "\(config.window) frames at \(PoseFileHeaderFormat.number(metadata.fps)) fps (receptive "
        + "field \(config.receptiveField), pooled over \(config.pooledFrames))"
    )
    row(
      "Features",
      "spec version \(metadata.features.version) ("
        + (metadata.features.addsBodyFrame
          ? "positions, joint angles, limb directions and lengths" : "joint positions")
        + "), present above confidence "
        + "\(metadata.features.presenceThreshold), body size over "
        + "\(metadata.features.scaleHistory) frames"
    )
    row("Labels", metadata.labels.joined(separator: ", "))
    if let temperature = metadata.temperature {
      row(
        "Calibrated",
        "temperature \(temperature)"
          + (metadata.normalisedFramesTemperature.map {
            "; \($0) for frames normalised to their own box"
          } ?? ""))
    }
    row("Command", metadata.provenance.command)
    if let seed = metadata.provenance.seed { row("Seed", "\(seed)") }
    if !metadata.provenance.data.isEmpty {
      row("Data", metadata.provenance.data.joined(separator: "; "))
    }
    for key in metadata.provenance.notes.keys.sorted() {
      lines.append("  \(key): \(metadata.provenance.notes[key]!)")
    }
    let plan = Classifier(metadata: metadata, parameters: parameters).plan
    row("CPU", "\(Planner.cpuName) (Spotter's kernels: \(Planner.kernels))")
    lines.append(plan.description.prefix(1).uppercased() + plan.description.dropFirst())
    return lines.joined(separator: "\n")
  }

  static func json(path: String, metadata: ModelMetadata, parameters: Parameters) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let body = String(decoding: try! encoder.encode(metadata), as: UTF8.self)
    let count = metadata.architecture.parameterCount
    let plan = Classifier(metadata: metadata, parameters: parameters).plan
    let origin: String
    switch plan.origin {
    case .measured: origin = "measured"
    case .cached: origin = "cached"
    case .estimated: origin = "estimated"
    }
    let object: [String: Any] = [
      "cpu": Planner.cpuName, "kernels": Planner.kernels,
      "single": plan.single.map(\.rawValue), "batched": plan.batched.map(\.rawValue),
      "tile": plan.tile, "stream": plan.stream.rawValue, "origin": origin,
    ]
    let planText = String(
      decoding: try! JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    return #"{"file":\#(jsonString(path)),"parameters":\#(count),"metadata":\#(body),"#
      + #""plan":\#(planText)}"#
  }

  private static func jsonString(_ text: String) -> String {
    String(
      decoding: try! JSONSerialization.data(
        withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
  }
}
