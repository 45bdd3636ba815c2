import Poses

/// The stream time of each decoded frame, from the decoder's own frame times.
///
/// A video's frames carry their times (presentation timestamps), and those are the times
/// Spotter keeps: a variable-rate phone video stays true to the clock. The decoder does not
/// always have one: FFmpeg gives the last frame of some AVI files none (OpenCV reports 0), and
/// a time that does not move forward would be a bad line in a pose file. Such a frame is put
/// one frame interval after the one before it: the container's nominal rate when it has one,
/// else the last interval seen, else 1/30 s. A first frame without a time is at 0.
///
/// Times are rounded to the microsecond, far below a frame, so 0.3 reads as 0.3 and not as
/// the 0.30000000000000004 the decoder's milliseconds divide into.
public struct VideoFrameTimes: Sendable {
  private let nominalInterval: Double?
  private var lastInterval: Double?
  /// Every frame's time so far, in decoding order.
  public private(set) var times: [Double] = []

  /// - Parameter fps: the container's nominal frame rate (nil or 0 when it does not say).
  public init(fps: Double?) {
    nominalInterval = fps.flatMap { $0 > 0 && $0.isFinite ? 1 / $0 : nil }
  }

  /// The next frame's time, from the decoder's time in milliseconds (nil when it has none).
  public mutating func next(milliseconds: Double?) -> Double {
    let given = milliseconds.flatMap { $0.isFinite && $0 >= 0 ? Self.round($0 / 1000) : nil }
    let t: Double
    if let previous = times.last {
      if let given, given > previous {
        t = given
        lastInterval = given - previous
      } else {
        t = Self.round(previous + (nominalInterval ?? lastInterval ?? 1.0 / 30))
      }
    } else {
      t = given ?? 0
    }
    times.append(t)
    return t
  }

  static func round(_ seconds: Double) -> Double { (seconds * 1_000_000).rounded() / 1_000_000 }

  /// The index of the frame whose time is nearest `t` (nil when there are no frames).
  public static func nearest(_ t: Double, in times: [Double]) -> Int? {
    times.indexNearest(t) { $0 }
  }
}
