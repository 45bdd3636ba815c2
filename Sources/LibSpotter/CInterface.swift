import ActionModel
import Foundation
import Poses

// The C interface declared in spotter.h. Handles are retained Swift objects passed as opaque
// pointers; every function here only converts and forwards.

/// A model as C sees it: the shared classifier, its labels as C strings, and one workspace
/// behind a lock so `spotter_predict` is thread-safe without allocating per call.
final class CModel {
  let classifier: Classifier
  let labels: [UnsafeMutablePointer<CChar>]
  private let workspace: Workspace
  private let lock = NSLock()

  init(classifier: Classifier) {
    self.classifier = classifier
    labels = classifier.labels.map { strdup($0)! }
    workspace = Workspace(for: classifier)
  }

  deinit { for label in labels { free(label) } }

  func predict(
    _ windows: UnsafeBufferPointer<Float>, count: Int,
    into output: UnsafeMutableBufferPointer<Float>
  ) {
    lock.lock()
    defer { lock.unlock() }
    classifier.predict(windows: windows, count: count, into: output, workspace: workspace)
  }
}

/// A stream as C sees it: the model it came from, and its feature stream.
final class CStream {
  let model: CModel
  let features: FeatureStream

  init(model: CModel) {
    self.model = model
    features = FeatureStream(classifier: model.classifier)
  }
}

/// A new handle: the object, retained until `release` is called with the handle.
func handle(_ object: AnyObject) -> OpaquePointer {
  OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}
/// A handle to what `make` makes, or NULL with the error it threw written into the caller's
/// buffer.
func handle(
  _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorSize: Int, _ make: () throws -> AnyObject
) -> OpaquePointer? {
  do {
    return handle(try make())
  } catch {
    writeError("\(error)", errorBuffer, errorSize)
    return nil
  }
}
/// The object behind a handle (the handle keeps it alive).
func object<T: AnyObject>(_ pointer: OpaquePointer, as type: T.Type = T.self) -> T {
  Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}
/// Frees a handle; a null one is ignored, as `free` does.
func release<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type) {
  guard let pointer else { return }
  Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer)).release()
}
private func model(_ pointer: OpaquePointer) -> CModel { object(pointer) }
private func stream(_ pointer: OpaquePointer) -> CStream { object(pointer) }

@_cdecl("spotter_model_load")
public func spotterModelLoad(
  _ path: UnsafePointer<CChar>?, _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> OpaquePointer? {
  guard let path else {
    writeError("no weights file given (the path is NULL)", errorBuffer, errorSize)
    return nil
  }
  return handle(errorBuffer, errorSize) {
    CModel(classifier: try WeightsFile.load(String(cString: path)))
  }
}

@_cdecl("spotter_model_free")
public func spotterModelFree(_ pointer: OpaquePointer?) {
  release(pointer, as: CModel.self)
}

@_cdecl("spotter_model_window")
public func spotterModelWindow(_ pointer: OpaquePointer) -> Int32 {
  Int32(model(pointer).classifier.config.window)
}

@_cdecl("spotter_model_features")
public func spotterModelFeatures(_ pointer: OpaquePointer) -> Int32 {
  Int32(model(pointer).classifier.config.inputFeatures)
}

@_cdecl("spotter_model_classes")
public func spotterModelClasses(_ pointer: OpaquePointer) -> Int32 {
  Int32(model(pointer).classifier.config.classes)
}

@_cdecl("spotter_model_label")
public func spotterModelLabel(_ pointer: OpaquePointer, _ index: Int32) -> UnsafePointer<CChar>? {
  let labels = model(pointer).labels
  guard index >= 0, Int(index) < labels.count else { return nil }
  return UnsafePointer(labels[Int(index)])
}

@_cdecl("spotter_predict")
public func spotterPredict(
  _ pointer: OpaquePointer, _ windows: UnsafePointer<Float>, _ count: Int32,
  _ probabilities: UnsafeMutablePointer<Float>
) -> Int32 {
  guard count >= 1 else { return -1 }
  let model = model(pointer)
  let config = model.classifier.config
  let n = Int(count)
  model.predict(
    UnsafeBufferPointer(start: windows, count: n * config.window * config.inputFeatures), count: n,
    into: UnsafeMutableBufferPointer(start: probabilities, count: n * config.classes))
  return 0
}

@_cdecl("spotter_stream_create")
public func spotterStreamCreate(_ pointer: OpaquePointer) -> OpaquePointer {
  handle(CStream(model: model(pointer)))
}

@_cdecl("spotter_stream_free")
public func spotterStreamFree(_ pointer: OpaquePointer?) {
  release(pointer, as: CStream.self)
}

@_cdecl("spotter_stream_reset")
public func spotterStreamReset(_ pointer: OpaquePointer) {
  stream(pointer).features.reset()
}

@_cdecl("spotter_stream_push_features")
public func spotterStreamPushFeatures(_ pointer: OpaquePointer, _ features: UnsafePointer<Float>) {
  let stream = stream(pointer)
  let count = stream.model.classifier.config.inputFeatures
  stream.features.push(features: UnsafeBufferPointer(start: features, count: count))
}

@_cdecl("spotter_stream_push_pose")
public func spotterStreamPushPose(_ pointer: OpaquePointer, _ joints: UnsafePointer<Float>?) {
  stream(pointer).features.push(joints.map(Pose.init(triples:)) ?? .nobody)
}

@_cdecl("spotter_stream_probabilities")
public func spotterStreamProbabilities(
  _ pointer: OpaquePointer, _ probabilities: UnsafeMutablePointer<Float>
) {
  let stream = stream(pointer)
  stream.features.probabilities(
    into: UnsafeMutableBufferPointer(
      start: probabilities, count: stream.model.classifier.config.classes))
}
