import ActionModel
import Foundation
import Poses
import RepCounting
import Spotter

// Sessions through the C interface (spotter.h): a runtime shared, a session per stream, events
// queued as NDJSON text until read.

final class CSession {
  /// One person's stream, or several people's, each event then saying whose.
  let session: Session
  var frame = PeopleFrame()
  var pending = ""
  /// Finished: the stream is over; later frames are refused and another finish adds nothing.
  var finished = false

  init(_ session: Session) { self.session = session }

  func collect(_ event: SpotterEvent, person: Int?) {
    pending += event.jsonLine(person: person)
    pending += "\n"
  }

  func push() {
    if finished {
      collect(
        .error(t: nil, line: nil, message: "frame after the session finished: skipped"), person: nil
      )
    } else {
      session.push(frame) { collect($1, person: $0) }
    }
  }

  var waiting: Int32 { Int32(pending.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }) }
}

private func runtime(_ pointer: OpaquePointer) -> Runtime { object(pointer) }
private func session(_ pointer: OpaquePointer) -> CSession { object(pointer) }

@_cdecl("spotter_runtime_create")
public func spotterRuntimeCreate(
  _ model: OpaquePointer?, _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> OpaquePointer? {
  let classifier = model.map { object($0, as: CModel.self).classifier }
  return handle(errorBuffer, errorSize) {
    Runtime(classifier: classifier, catalogue: try ExerciseCatalogue.load())
  }
}

@_cdecl("spotter_runtime_create_options")
public func spotterRuntimeCreateOptions(
  _ model: OpaquePointer?, _ exercises: UnsafePointer<CChar>?, _ goals: UnsafePointer<CChar>?,
  _ predictions: Int32, _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> OpaquePointer? {
  let classifier = model.map { object($0, as: CModel.self).classifier }
  var options = SessionOptions()
  options.reportPredictions = predictions != 0
  for text in (goals.map { String(cString: $0) } ?? "").split(separator: ",") {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard let goal = Goal(trimmed) else {
      writeError(
        "a goal takes REPS, SECONDSs, EXERCISE:REPS or EXERCISE:SECONDSs (e.g. squat:20, 60s), "
          + "got '\(trimmed)'", errorBuffer, errorSize)
      return nil
    }
    options.goals.append(goal)
  }
  return handle(errorBuffer, errorSize) {
    let catalogue = try ExerciseCatalogue.load(adding: exercises.map { String(cString: $0) })
    return Runtime(classifier: classifier, catalogue: catalogue, options: options)
  }
}

@_cdecl("spotter_runtime_free")
public func spotterRuntimeFree(_ pointer: OpaquePointer?) {
  release(pointer, as: Runtime.self)
}

@_cdecl("spotter_session_create")
public func spotterSessionCreate(_ pointer: OpaquePointer) -> OpaquePointer? {
  guard runtime(pointer).classifier != nil else { return nil }
  return handle(CSession(runtime(pointer).makeSession()))
}

@_cdecl("spotter_session_create_people")
public func spotterSessionCreatePeople(_ pointer: OpaquePointer, _ people: Int32) -> OpaquePointer?
{
  guard PeopleLimit.range.contains(Int(people)), runtime(pointer).classifier != nil else {
    return nil
  }
  return handle(CSession(runtime(pointer).makeSession(people: Int(people))))
}

@_cdecl("spotter_session_create_exercise")
public func spotterSessionCreateExercise(
  _ pointer: OpaquePointer, _ exercise: UnsafePointer<CChar>?, _ people: Int32,
  _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> OpaquePointer? {
  let runtime = runtime(pointer)
  guard PeopleLimit.range.contains(Int(people)) else {
    let (lowest, highest) = (PeopleLimit.range.lowerBound, PeopleLimit.range.upperBound)
    writeError("max_people must be \(lowest) to \(highest), got \(people)", errorBuffer, errorSize)
    return nil
  }
  let name = exercise.map { String(cString: $0) } ?? ""
  return handle(errorBuffer, errorSize) {
    CSession(try runtime.makeSession(exercise: name, people: Int(people)))
  }
}

@_cdecl("spotter_session_push_people")
public func spotterSessionPushPeople(
  _ pointer: OpaquePointer, _ t: Double, _ joints: UnsafePointer<Float>?, _ count: Int32
) -> Int32 {
  let box = session(pointer)
  box.frame.t = t
  box.frame.people.removeAll(keepingCapacity: true)
  if let joints {
    for person in 0..<max(0, Int(count)) {
      let pose = Pose(triples: joints + person * 3 * CanonicalJoint.count)
      if pose.hasPerson { box.frame.people.append(pose) }
    }
  }
  box.push()
  return box.waiting
}

@_cdecl("spotter_session_free")
public func spotterSessionFree(_ pointer: OpaquePointer?) {
  release(pointer, as: CSession.self)
}

@_cdecl("spotter_session_push_pose")
public func spotterSessionPushPose(
  _ pointer: OpaquePointer, _ t: Double, _ joints: UnsafePointer<Float>?
) -> Int32 {
  let box = session(pointer)
  box.frame.t = t
  box.frame.people.removeAll(keepingCapacity: true)
  if let joints {
    let pose = Pose(triples: joints)
    if pose.hasPerson { box.frame.people.append(pose) }
  }
  box.push()
  return box.waiting
}

@_cdecl("spotter_session_finish")
public func spotterSessionFinish(_ pointer: OpaquePointer) -> Int32 {
  let box = session(pointer)
  guard !box.finished else { return box.waiting }
  box.finished = true
  box.session.finish { box.collect($1, person: $0) }
  return box.waiting
}

@_cdecl("spotter_session_read_events")
public func spotterSessionReadEvents(
  _ pointer: OpaquePointer, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int
) -> Int {
  let box = session(pointer)
  let bytes = Array(box.pending.utf8)
  guard let buffer, bytes.count < size else { return bytes.count }
  bytes.withUnsafeBufferPointer { source in
    source.withMemoryRebound(to: CChar.self) {
      buffer.update(from: $0.baseAddress!, count: bytes.count)
    }
  }
  buffer[bytes.count] = 0
  box.pending = ""
  return bytes.count
}

/// Writes a NUL-terminated message into a caller's buffer, cut to fit.
func writeError(_ message: String, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) {
  guard let buffer, size > 0 else { return }
  let text = Array(message.utf8CString.prefix(size - 1)) + [0]
  text.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: text.count) }
}
