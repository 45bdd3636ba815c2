import Poses

/// A fixed half of an annotated set, chosen by file name alone, so that one half can be looked
/// at and tuned on while the other measures what tuning did, and anyone can draw the same
/// halves again.
///
/// Each file is filed under its first exercise label (`other` when it has none); within each
/// label the files are sorted by name and alternate: even positions `tune`, odd `holdout`.
/// Alternating within labels keeps both halves' mixes of exercises alike.
public enum AnnotationSplit: String, CaseIterable, Sendable {
  case all
  case tune
  case holdout

  /// The annotations of the files in this half, in their order.
  public func select(_ annotations: [Annotation]) -> [Annotation] {
    guard self != .all else { return annotations }
    let half = files(of: annotations)
    return annotations.filter { half.contains($0.fileName) }
  }

  /// The names of the files in this half.
  public func files(of annotations: [Annotation]) -> Set<String> {
    guard self != .all else { return Set(annotations.map(\.fileName)) }
    var labelOfFile: [String: String] = [:]
    for annotation in annotations {
      let current = labelOfFile[annotation.fileName]
      if current == nil || (current == "other" && annotation.label != "other") {
        labelOfFile[annotation.fileName] = annotation.label
      }
    }
    var half: Set<String> = []
    let byLabel = Dictionary(grouping: labelOfFile.keys) { labelOfFile[$0]! }
    for files in byLabel.values {
      for (position, file) in files.sorted().enumerated()
      where (position % 2 == 1) == (self == .holdout) {
        half.insert(file)
      }
    }
    return half
  }
}
