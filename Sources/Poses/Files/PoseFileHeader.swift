import Foundation

/// The first line of a pose file (README, "Pose files"):
/// `{"spotter":"poses","version":1,"layout":"coco17","units":"pixels","fps":30}` (and `origin`)
/// with optional `image` {width, height}, `mirrored` and `source`. Other keys are kept, as JSON
/// text, and written back out.
public struct PoseFileHeader: Equatable, Sendable {
  public static let currentVersion = 1

  public var layout: PoseLayout
  public var space: CoordinateSpace
  /// The nominal frame rate: frames without `t` are at index / fps.
  public var fps: Double
  /// Where the poses came from (a detector, a data set), when the file says.
  public var source: String?
  /// Keys this reader does not know, each with its value as JSON text.
  public var extra: [String: String]

  public init(
    layout: PoseLayout, space: CoordinateSpace = CoordinateSpace(), fps: Double = 30,
    source: String? = nil, extra: [String: String] = [:]
  ) {
    self.layout = layout
    self.space = space
    self.fps = fps
    self.source = source
    self.extra = extra
  }

  private static let knownKeys: Set<String> = [
    "spotter", "version", "layout", "units", "origin", "fps", "image", "mirrored", "source",
  ]

  /// Parses a header line. Errors say which key was wrong and what it may be; `file` names the
  /// file in them.
  public init(line: UnsafeBufferPointer<UInt8>, file: String) throws(PoseFileError) {
    func fail(_ message: String) -> PoseFileError {
      PoseFileError(file: file, line: 1, message: message)
    }
    let object: [String: Any]
    do {
      guard let parsed = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
        throw fail("the header must be a JSON object: \(Self.example)")
      }
      object = parsed
    } catch let error as PoseFileError {
      throw error
    } catch {
      throw fail("the header is not valid JSON; expected \(Self.example)")
    }
    guard let tag = object["spotter"] else {
      if object["pose"] != nil || object["people"] != nil {
        throw fail(
          "the file starts with a frame; the first line must be a header such as \(Self.example)")
      }
      throw fail("the header has no \"spotter\":\"poses\" key; expected \(Self.example)")
    }
    guard tag as? String == "poses" else {
      throw fail("the header's \"spotter\" is \(Self.describe(tag)); expected \"poses\"")
    }
    if let version = object["version"] {
      guard version as? Int == Self.currentVersion else {
        throw fail(
          "the header's version is \(Self.describe(version)); this reader knows version "
            + "\(Self.currentVersion)"
        )
      }
    }
    let layouts = PoseLayout.allCases.map(\.rawValue).joined(separator: ", ")
    guard let layoutName = object["layout"] as? String else {
      throw fail("the header has no \"layout\"; expected one of \(layouts)")
    }
    guard let layout = PoseLayout(rawValue: layoutName) else {
      throw fail("unknown layout \"\(layoutName)\"; expected one of \(layouts)")
    }
    var space = CoordinateSpace()
    if let value = object["units"] {
      guard let name = value as? String, let units = CoordinateSpace.Units(rawValue: name) else {
        throw fail("unknown units \(Self.describe(value)); expected \"pixels\" or \"normalized\"")
      }
      space.units = units
    }
    if let value = object["origin"] {
      guard let name = value as? String, let origin = CoordinateSpace.Origin(rawValue: name) else {
        throw fail(
          "unknown origin \(Self.describe(value)); expected \"top-left\" or \"bottom-left\"")
      }
      space.origin = origin
    }
    if let value = object["mirrored"] {
      guard let mirrored = value as? Bool else {
        throw fail("\"mirrored\" is \(Self.describe(value)); expected true or false")
      }
      space.mirrored = mirrored
    }
    if let value = object["image"] {
      guard let image = value as? [String: Any], let width = image["width"] as? Double,
        let height = image["height"] as? Double, width > 0, height > 0
      else {
        throw fail(
          "\"image\" is \(Self.describe(value)); expected {\"width\": W, \"height\": H} with "
            + "W, H > 0"
        )
      }
      space.imageWidth = Float(width)
      space.imageHeight = Float(height)
    }
    var fps = 30.0
    if let value = object["fps"] {
      // Frame times are index / fps: far below 0.01 they outgrow what a double tells apart.
      guard let number = value as? Double, number >= 0.01, number <= 10_000 else {
        throw fail("\"fps\" is \(Self.describe(value)); expected a number from 0.01 to 10000")
      }
      fps = number
    }
    var source: String? = nil
    if let value = object["source"] {
      guard let text = value as? String else {
        throw fail("\"source\" is \(Self.describe(value)); expected a string")
      }
      source = text
    }
    var extra: [String: String] = [:]
    for (key, value) in object where !Self.knownKeys.contains(key) {
      extra[key] = Self.describe(value)
    }
    self.init(layout: layout, space: space, fps: fps, source: source, extra: extra)
  }

  /// Whose poses these are: the header's `person` key, else its `client` key (a string, or a
  /// number written as one), for the workout history. Both stay among the `extra` keys, so a
  /// header is written back out as it came.
  public var person: String? {
    for key in ["person", "client"] {
      guard let text = extra[key],
        let value = try? JSONSerialization.jsonObject(
          with: Data(text.utf8), options: .fragmentsAllowed)
      else { continue }
      if let name = value as? String, !name.isEmpty { return name }
      if let number = value as? NSNumber, !(value is Bool) { return number.stringValue }
    }
    return nil
  }

  /// The header as one line of JSON, keys in a fixed order.
  public var jsonLine: String {
    var parts = [
      "\"spotter\":\"poses\"", "\"version\":\(Self.currentVersion)",
      "\"layout\":\"\(layout.rawValue)\"", "\"units\":\"\(space.units.rawValue)\"",
      "\"origin\":\"\(space.origin.rawValue)\"", "\"fps\":\(Self.formatNumber(fps))",
    ]
    if let width = space.imageWidth, let height = space.imageHeight {
      parts.append("\"image\":{\"width\":\(width),\"height\":\(height)}")
    }
    if space.mirrored { parts.append("\"mirrored\":true") }
    if let source { parts.append("\"source\":\(Self.describe(source))") }
    for key in extra.keys.sorted() { parts.append("\(Self.describe(key)):\(extra[key]!)") }
    return "{" + parts.joined(separator: ",") + "}"
  }

  public static let example =
    #"{"spotter":"poses","version":1,"layout":"coco17","units":"pixels","#
    + #""origin":"top-left","fps":30}"#

  /// A value as JSON text, for messages and for keeping unknown keys.
  static func describe(_ value: Any) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]),
      let text = String(data: data, encoding: .utf8)
    else { return String(describing: value) }
    return text
  }

  /// 30 rather than 30.0: integral numbers without a fraction.
  static func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }
}
