import Foundation
import Poses
import Spotter

/// What the live page shows of a session, kept up to date as the session runs: the exercise
/// under way and its count, the last cue, the sets so far, whether anyone is in view, and the
/// newest pose with (for a camera) its picture.
///
/// The session's thread writes (`take`); the page server's threads read (`wait`, `state`,
/// `frame`), each at its own pace. Nothing is queued for a browser: each reads the newest
/// state and frame when it is ready for them, so a slow browser skips frames instead of
/// falling behind, as the detector does.
///
/// A source with pictures (`pictured`) shows a pose only with the picture it was found in: a
/// pose drawn over a picture a few frames older would sit beside the person, not on them. A
/// source without pictures (a pose file, a pipe) shows every pose, fitted to the page.
public final class SessionBoard: @unchecked Sendable {
  /// One set, as the page lists it.
  struct SetLine: Equatable {
    var exercise: String
    var reps: Int
    var open: Bool
  }

  private let lock = NSCondition()
  private let source: String
  private let pictured: Bool
  private var imageSize: (width: Double, height: Double)?
  // What the page shows, under `lock`.
  private var sets: [SetLine] = []
  private var cue: String?
  private var seeing: (label: String, confidence: Double)?
  private var present = true
  private var t = 0.0
  private var status = "live"
  private var message: String?
  private var people: [Pose] = []
  private var frameTime = 0.0
  private var picture: Data?
  /// Bumped by every change of the state, of the frame, and of the picture.
  private(set) var stateVersion = 0
  private(set) var frameVersion = 0
  private(set) var pictureVersion = 0

  /// - Parameters:
  ///   - source: what the page says it shows (`the camera /dev/video0`, a file's name).
  ///   - pictured: whether frames come with pictures (a camera or a stream).
  ///   - imageSize: the picture's size in the poses' units, when known: the poses are drawn
  ///     in it; without one, each pose is fitted to the page.
  public init(source: String, pictured: Bool, imageSize: (width: Double, height: Double)?) {
    self.source = source
    self.pictured = pictured
    self.imageSize = imageSize
  }

  // MARK: the session's side

  /// One of the session's events.
  public func take(_ event: SpotterEvent) {
    change {
      if let t = event.t { self.t = max(self.t, t) }
      switch event {
      case .exerciseStarted(_, let exercise, _):
        sets.append(SetLine(exercise: exercise, reps: 0, open: true))
        cue = nil
      case .rep(_, let exercise, let rep, _):
        if sets.last?.open != true || sets.last?.exercise != exercise {
          sets.append(SetLine(exercise: exercise, reps: 0, open: true))
        }
        sets[sets.count - 1].reps = rep.count
      case .cue(_, _, let message):
        cue = message
      case .goalReached(_, _, let goal):
        cue = "Goal reached: \(goal)"
      case .exerciseEnded(_, _, let reps):
        if sets.last?.open == true {
          sets[sets.count - 1].reps = reps
          sets[sets.count - 1].open = false
        }
      case .presence(_, let present):
        self.present = present
      case .prediction(_, let label, let confidence, let low, _):
        seeing = low ? nil : (label, confidence)
      case .summary:
        for index in sets.indices { sets[index].open = false }
      case .error, .repRejected:
        return false
      }
      return true
    }
  }

  /// One frame: everyone in it (canonical poses) at stream time `t`, with its picture (a JPEG)
  /// when it came with one.
  public func take(people: [Pose], t: Double, picture: Data?) {
    guard !pictured || picture != nil else { return }
    lock.lock()
    self.people = people
    frameTime = t
    frameVersion += 1
    if let picture {
      self.picture = picture
      pictureVersion += 1
    }
    lock.broadcast()
    lock.unlock()
  }

  /// The picture's size, once the source says it (a camera's first frame).
  public func show(imageSize: (width: Double, height: Double)) {
    change {
      self.imageSize = imageSize
      return true
    }
  }

  /// The session is over: `ended`, or `failed` with why.
  public func end(failure: String? = nil) {
    change {
      status = failure == nil ? "ended" : "failed"
      message = failure
      for index in sets.indices { sets[index].open = false }
      return true
    }
  }

  private func change(_ body: () -> Bool) {
    lock.lock()
    if body() {
      stateVersion += 1
      lock.broadcast()
    }
    lock.unlock()
  }

  // MARK: the page's side

  /// The versions a browser has been sent: it is sent what changed since.
  struct Seen: Equatable {
    var state = -1
    var frame = -1
    var picture = -1
  }

  /// Waits until something changed since `seen`, or `timeout` seconds passed; returns the
  /// state's JSON if it changed, the frame's if it changed (with the picture if that did too),
  /// the versions now, and whether the session is over.
  func wait(after seen: Seen, timeout: Double) -> (
    state: String?, frame: String?, seen: Seen, over: Bool
  ) {
    lock.lock()
    defer { lock.unlock() }
    let deadline = Date().addingTimeInterval(timeout)
    while stateVersion == seen.state && frameVersion == seen.frame {
      if !lock.wait(until: deadline) { break }
    }
    let now = Seen(state: stateVersion, frame: frameVersion, picture: pictureVersion)
    return (
      now.state != seen.state ? stateJSON() : nil,
      now.frame != seen.frame ? frameJSON(withPicture: now.picture != seen.picture) : nil,
      now, status != "live"
    )
  }

  /// The state as the page reads it (`/state`, and the `state` events).
  public func state() -> String {
    lock.lock()
    defer { lock.unlock() }
    return stateJSON()
  }

  private func stateJSON() -> String {
    let current = sets.last
    var object: [String: Any] = [
      "source": source, "status": status, "t": (t * 1000).rounded() / 1000, "present": present,
      "exercise": current?.open == true ? current!.exercise : NSNull(),
      "count": current?.reps ?? 0,
      "sets": sets.map { ["exercise": $0.exercise, "reps": $0.reps, "open": $0.open] },
    ]
    object["people"] = people.count  // in the newest frame shown
    object["last_set"] = current.map { ["exercise": $0.exercise, "reps": $0.reps] } ?? NSNull()
    object["cue"] = cue ?? NSNull()
    object["message"] = message ?? NSNull()
    object["seeing"] =
      seeing.map { ["label": $0.label, "confidence": ($0.confidence * 100).rounded() / 100] }
      ?? NSNull()
    return Self.json(object)
  }

  /// The newest frame as the page reads it: stream time, each person's 18 joints as
  /// `[x, y]` (null when missing), the picture's size the joints are in (or null: fit them),
  /// and the picture in base64 when asked for.
  private func frameJSON(withPicture: Bool) -> String {
    var object: [String: Any] = [
      "t": (frameTime * 1000).rounded() / 1000,
      "people": people.map { pose in
        CanonicalJoint.allCases.map { joint -> Any in
          let point = pose[joint]
          return point.isMissing
            ? NSNull()
            : [(Double(point.x) * 10).rounded() / 10, (Double(point.y) * 10).rounded() / 10]
        }
      },
    ]
    object["size"] = imageSize.map { [$0.width, $0.height] } ?? NSNull()
    if withPicture, let picture { object["jpeg"] = picture.base64EncodedString() }
    return Self.json(object)
  }

  private static func json(_ object: [String: Any]) -> String {
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
      ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}
