/// The network's state for one stream whose windows arrive whole and slide (a session that
/// leaves its predictions to a batching caller, such as the daemon): each window is matched
/// against the last one, and only the frames it adds go through the layers, by the streaming
/// step, instead of the whole window.
///
/// Why: consecutive predictions of a stream are `stride` frames apart (10 by default), so a
/// window shares 50 of its 60 frames with the last; the window pass redoes all of them (13.3
/// MFLOP), the streaming step computes the 10 new columns of each layer (about 3 MFLOP). The
/// probabilities depend on the last T frames only (the layers reach back 31 frames and the
/// pooling spans the rest), so a state that has seen the last window's frames, then the new
/// ones, gives the window pass's result (within 1e-5, the streaming step's tolerance) whatever
/// came before. A window that shares nothing with the last (the first, or one after a gap)
/// goes through as T new frames.
///
/// Allocates at `init`, never per prediction. Not thread-safe: one per stream.
public final class SlidingWindowState {
  let stream: StreamState
  /// The last window seen, (T, F).
  private let last: UnsafeMutableBufferPointer<Float>
  private var hasLast = false

  /// Single-precision weights always: these predictions stand in for the window pass. Sixteen
  /// frames wait at most (a window's 60 new frames go through in four catch-ups): a daemon
  /// holds one state per client, so its histories are kept short.
  public init(classifier: Classifier) {
    stream = StreamState(classifier: classifier, pendingLimit: 16, precision: .single)
    last = .allocate(capacity: classifier.config.window * classifier.config.inputFeatures)
    last.initialize(repeating: 0)
  }

  deinit { last.deallocate() }

  /// Frames `window` adds to the last one: the smallest shift s with the last window's frames
  /// from s on equal to the window's first T − s (T when none is).
  func newFrames(in window: UnsafePointer<Float>, frames: Int, features: Int) -> Int {
    guard hasLast else { return frames }
    for shift in 0..<frames {
      let overlap = (frames - shift) * features
      var same = true
      let old = last.baseAddress! + shift * features
      for index in 0..<overlap where old[index] != window[index] {
        same = false
        break
      }
      if same { return shift }
    }
    return frames
  }

  /// Probabilities (K) for `window` (T, F): its new frames through the streaming state.
  func predict(
    _ window: UnsafePointer<Float>, frames: Int, features: Int,
    into probabilities: UnsafeMutableBufferPointer<Float>
  ) {
    let added = newFrames(in: window, frames: frames, features: features)
    if added == frames { stream.reset() }
    for frame in (frames - added)..<frames {
      stream.push(UnsafeBufferPointer(start: window + frame * features, count: features))
    }
    stream.probabilities(into: probabilities)
    last.baseAddress!.update(from: window, count: frames * features)
    hasLast = true
  }
}

extension Classifier {
  /// Probabilities for B windows of B sliding streams, `states[i]` the state of window i's
  /// stream: each window's frames new to its stream go through the layers (see
  /// `SlidingWindowState`). Equal to `predict(windows:count:into:workspace:)` within 1e-5.
  /// Allocates nothing.
  ///
  /// Shapes: windows (B, T, F), oldest frame first; probabilities (B, K).
  public func predict(
    windows: UnsafeBufferPointer<Float>, count batch: Int,
    into probabilities: UnsafeMutableBufferPointer<Float>, states: [SlidingWindowState]
  ) {
    let frames = config.window
    let features = config.inputFeatures
    let classes = config.classes
    precondition(
      windows.count >= batch * frames * features && probabilities.count >= batch * classes
        && states.count >= batch,
      "\(batch) windows need B·T·F = \(batch * frames * features) floats, B·K = "
        + "\(batch * classes) probabilities and B states; got \(windows.count), "
        + "\(probabilities.count) and \(states.count)")
    for index in 0..<batch {
      precondition(states[index].stream.classifier === self, "state \(index) is another model's")
      states[index].predict(
        windows.baseAddress! + index * frames * features, frames: frames, features: features,
        into: UnsafeMutableBufferPointer(
          rebasing: probabilities[index * classes..<(index + 1) * classes]))
    }
  }
}
