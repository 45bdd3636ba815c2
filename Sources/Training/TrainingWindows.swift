/// Labelled windows for the trainer, however they are stored: it asks for one window at a time,
/// copied into its own batch buffer, so a data set may keep recordings' frames once and cut
/// windows as they are drawn instead of holding every window (60 frames each, overlapping).
public protocol TrainingWindows {
  /// N: windows.
  var count: Int { get }
  /// Window `index`'s class.
  func label(_ index: Int) -> Int
  /// Writes window `index`, (T, F) oldest frame first, to `target` (T·F floats).
  func copyWindow(_ index: Int, into target: UnsafeMutablePointer<Float>)
  /// Whether window `index` was cut from an annotated recording, not drawn by MotionSynth
  /// (`WindowSampler` may weight those).
  func isRecorded(_ index: Int) -> Bool
}

/// Windows held whole in one buffer: for tests and small sets.
public struct WindowArray: TrainingWindows, Sendable {
  /// (N, T, F).
  public let windows: [Float]
  public let labels: [Int]
  /// T·F.
  public let size: Int

  public init(windows: [Float], labels: [Int], size: Int) {
    precondition(windows.count == labels.count * size, "windows hold \(windows.count) floats")
    self.windows = windows
    self.labels = labels
    self.size = size
  }

  public var count: Int { labels.count }
  public func label(_ index: Int) -> Int { labels[index] }
  public func isRecorded(_ index: Int) -> Bool { false }
  public func copyWindow(_ index: Int, into target: UnsafeMutablePointer<Float>) {
    windows.withUnsafeBufferPointer {
      target.update(from: $0.baseAddress! + index * size, count: size)
    }
  }
}
