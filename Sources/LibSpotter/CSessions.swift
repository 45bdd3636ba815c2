import ActionModel
import Foundation
import Poses
import RepCounting
import Spotter

// Sessions through the C interface (spotter.h): a runtime shared, a session per stream, events
// queued as NDJSON text until read.

final class CSession {
  let session: Session
  var frame = PeopleFrame()
  var pending = ""

  init(runtime: Runtime) { session = runtime.makeSession() }

  func collect(_ event: SpotterEvent) {
    pending += event.jsonLine
    pending += "\n"
  }

  var waiting: Int32 { Int32(pending.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }) }
}

private func runtime(_ pointer: OpaquePointer) -> Runtime { object(pointer) }
private func session(_ pointer: OpaquePointer) -> CSession { object(pointer) }

@_cdecl("spotter_runtime_create")
public func spotterRuntimeCreate(
  _ model: OpaquePointer, _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> OpaquePointer? {
  let classifier = object(model, as: CModel.self).classifier
  do {
    let runtime = Runtime(classifier: classifier, catalogue: try ExerciseCatalogue.load())
    return handle(runtime)
  } catch {
    writeError("\(error)", errorBuffer, errorSize)
    return nil
  }
}

@_cdecl("spotter_runtime_free")
public func spotterRuntimeFree(_ pointer: OpaquePointer?) {
  release(pointer, as: Runtime.self)
}

@_cdecl("spotter_session_create")
public func spotterSessionCreate(_ pointer: OpaquePointer) -> OpaquePointer {
  handle(CSession(runtime: runtime(pointer)))
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
  box.session.push(box.frame) { box.collect($0) }
  return box.waiting
}

@_cdecl("spotter_session_finish")
public func spotterSessionFinish(_ pointer: OpaquePointer) -> Int32 {
  let box = session(pointer)
  box.session.finish { box.collect($0) }
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
