import ActionModel
import Foundation
import Poses
import Randomness
import Training

/// Labelled training windows, what the runtime would have seen at the moment it made each
/// prediction, kept as their recordings' frames of features (each frame once, in half
/// precision) and the list of windows cut from them. A window is copied out only when the
/// trainer draws it.
///
/// Why: windows overlap (one every 6 or 12 frames, 60 frames long), so holding each window
/// whole took ten times the memory of the frames themselves (19 GB for the shipped recipe);
/// this way memory grows with the length of the recordings, not with the number of windows.
/// Half precision keeps a feature (a position in body sizes, about ±3) to within 0.002.
public struct TrainingSet: TrainingWindows, Sendable {
  /// T: frames per window.
  public let window: Int
  /// F: features per frame.
  public let features: Int
  /// Every recording's frames, one after another: (frames, F).
  private var frames: [Float16] = []
  private var entries: [Entry] = []

  /// One window: the recording's first frame, the frame it ends at (both counted in frames of
  /// `frames`), its label, the recording or clip it came from (for splits that keep a
  /// recording on one side), and whether that is an annotated recording (not synthetic).
  struct Entry: Sendable {
    var recordingStart: Int
    var end: Int
    var label: Int
    var group: Int
    var recorded: Bool
  }

  public init(window: Int = 60, features: Int = FeatureSpec().featuresPerFrame) {
    self.window = window
    self.features = features
  }

  public var count: Int { entries.count }
  public var labels: [Int] { entries.map(\.label) }
  public var groups: [Int] { entries.map(\.group) }
  /// Frames held, over all recordings.
  public var frameCount: Int { frames.count / features }

  public func label(_ index: Int) -> Int { entries[index].label }
  public func isRecorded(_ index: Int) -> Bool { entries[index].recorded }

  /// Adds a recording's features, (frames, F) computed frame by frame as the runtime does;
  /// returns its handle for `addWindow`.
  mutating func addRecording(_ features: [Float]) -> Int {
    precondition(features.count % self.features == 0)
    let start = frameCount
    // Appending grows the store geometrically: reserving exactly each recording's frames would
    // copy every frame held so far, once per recording.
    frames.append(contentsOf: features.lazy.map(Float16.init))
    return start
  }

  /// Adds the window of `recording` that ends at its frame `end`; `recorded`: the recording is
  /// an annotated one, not synthetic.
  mutating func addWindow(
    of recording: Int, endingAt end: Int, label: Int, group: Int, recorded: Bool
  ) {
    entries.append(
      Entry(
        recordingStart: recording, end: recording + end, label: label, group: group,
        recorded: recorded))
  }

  /// Window `index`, (T, F), zero-padded before its recording's first frame.
  public func copyWindow(_ index: Int, into target: UnsafeMutablePointer<Float>) {
    let entry = entries[index]
    let first = entry.end - window + 1
    let padding = max(0, entry.recordingStart - first)
    target.update(repeating: 0, count: padding * features)
    frames.withUnsafeBufferPointer { source in
      let from = (first + padding) * features
      let count = (window - padding) * features
      for offset in 0..<count {
        target[padding * features + offset] = Float(source[from + offset])
      }
    }
  }

  /// The window as an array (for tests and tools).
  public func window(_ index: Int) -> [Float] {
    var out = [Float](repeating: 0, count: window * features)
    out.withUnsafeMutableBufferPointer { copyWindow(index, into: $0.baseAddress!) }
    return out
  }

  /// Appends another set's recordings and windows; `groupOffset` keeps its groups apart.
  public mutating func append(contentsOf other: TrainingSet, groupOffset: Int = 0) {
    precondition(other.window == window && other.features == features)
    let shift = frameCount
    frames += other.frames
    entries += other.entries.map {
      Entry(
        recordingStart: $0.recordingStart + shift, end: $0.end + shift, label: $0.label,
        group: $0.group + groupOffset, recorded: $0.recorded)
    }
  }

  /// Windows per label index, for balancing and reports.
  public func counts(classes: Int) -> [Int] {
    var counts = [Int](repeating: 0, count: classes)
    for entry in entries { counts[entry.label] += 1 }
    return counts
  }

  /// Some of a set's windows, without copying any.
  public struct Subset: TrainingWindows, Sendable {
    public let set: TrainingSet
    public let indices: [Int]
    public var count: Int { indices.count }
    public func label(_ index: Int) -> Int { set.label(indices[index]) }
    public func isRecorded(_ index: Int) -> Bool { set.isRecorded(indices[index]) }
    public func copyWindow(_ index: Int, into target: UnsafeMutablePointer<Float>) {
      set.copyWindow(indices[index], into: target)
    }
  }

  /// Splits by group: `fraction` of the groups (at least one, when there are two or more and
  /// the fraction is above 0), chosen by `seed`, go to the second subset.
  public func split(holdingOut fraction: Double, seed: UInt64) -> (Subset, Subset) {
    var generator = SeededGenerator(seed: seed)
    var order = Set(entries.map(\.group)).sorted()
    // Fisher–Yates with the seeded generator.
    for index in stride(from: order.count - 1, to: 0, by: -1) {
      order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
    }
    var count = Int((Double(order.count) * fraction).rounded())
    if fraction > 0 && order.count >= 2 { count = min(max(count, 1), order.count - 1) }
    let heldOut = Set(order.prefix(count))
    let train = entries.indices.filter { !heldOut.contains(entries[$0].group) }
    let held = entries.indices.filter { heldOut.contains(entries[$0].group) }
    return (Subset(set: self, indices: train), Subset(set: self, indices: held))
  }

  /// Features of a whole stream of ticks, computed frame by frame as the runtime does.
  static func features(of ticks: [Pose], spec: FeatureSpec) -> [Float] {
    var extractor = FeatureExtractor(spec: spec)
    let width = spec.featuresPerFrame
    var out = [Float](repeating: 0, count: ticks.count * width)
    out.withUnsafeMutableBufferPointer { buffer in
      for (index, pose) in ticks.enumerated() {
        extractor.extract(
          pose,
          into: UnsafeMutableBufferPointer(rebasing: buffer[index * width..<(index + 1) * width]))
      }
    }
    return out
  }
}
