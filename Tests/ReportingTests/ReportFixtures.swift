import ActionModel
import Foundation
import MotionSynth
import Poses
import RepCounting
import Reporting
import TestSupport
import Testing

@testable import Spotter

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Synthetic sessions run through the runtime with a report recorder listening, and what the
/// tests read off the page.
enum ReportFixtures {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
  static let catalogue = try! ExerciseCatalogue.load()
  /// The tests' own model, every prediction reported (the page's classifier band); sessions
  /// script it right (`ScriptedClassifier`), so the page shows the runtime's doing, whatever
  /// the shipped model makes of the same poses.
  static let runtime: Runtime = {
    var options = SessionOptions()
    options.reportPredictions = true
    return Runtime(
      classifier: try! WeightsFile.load(repository + "/Weights/tiny.spotter"),
      catalogue: catalogue, options: options)
  }()

  /// A recording seen from the front at 30 fps, `everyday` or clean.
  static func recording(_ plan: WorkoutPlan, seed: UInt64, everyday: Bool = false) -> Recording {
    var options = RecordingOptions()
    options.camera = .front
    options.fps = 30
    if everyday { options.realism = .everyday }
    return Recorder.record(plan, options: options, seed: seed)
  }

  static func frames(_ recording: Recording) -> [PeopleFrame] {
    recording.frames.enumerated().map { index, sample in
      var frame = PeopleFrame()
      frame.t = sample.t
      frame.line = index + 1
      if sample.pose.hasPerson { frame.people = [sample.pose] }
      return frame
    }
  }

  /// The recording through a session, as `spotter classify --report` runs it, its classifier
  /// always right.
  static func session(_ recording: Recording) -> (events: [SpotterEvent], report: SessionReport) {
    let session = runtime.makeSession()
    session.scriptPredictions(
      ScriptedClassifier.truth(recording, labels: runtime.classifier!.labels))
    let recorder = ReportRecorder(source: "test", runtime: runtime)
    return run(recording, through: session, recorder: recorder)
  }

  /// The recording through `session`, its ticks, samples and events heard by `recorder`.
  private static func run(
    _ recording: Recording, through session: Session, recorder: ReportRecorder
  ) -> (events: [SpotterEvent], report: SessionReport) {
    session.onSignalSample = { recorder.take($1, exercise: $0) }
    session.onTick = { recorder.take($0, t: $1) }
    var events: [SpotterEvent] = []
    let emit: (SpotterEvent) -> Void = { event in
      events.append(event)
      recorder.take(event)
    }
    for frame in frames(recording) { session.push(frame, emit: emit) }
    session.finish(emit: emit)
    return (events, recorder.report())
  }

  /// The recording through a session of one chosen exercise, as `spotter count --report`
  /// runs it: the stream one set from the first tick.
  static func count(_ recording: Recording, exercise: String, strict: Bool = false) -> (
    events: [SpotterEvent], report: SessionReport
  ) {
    var definition = catalogue.definition(named: exercise)!
    if strict { definition.strict = true }
    let recorder = ReportRecorder(source: "test") { $0 == exercise ? definition : nil }
    let session = Runtime(classifier: nil, catalogue: catalogue).makeSession(counting: definition)
    return run(recording, through: session, recorder: recorder)
  }

  /// How many times `needle` occurs in `text`.
  static func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
  }

  static func repEvents(_ events: [SpotterEvent]) -> [SpotterEvent] {
    events.filter { $0.type == "rep" }
  }

  static func rejections(_ events: [SpotterEvent]) -> [SpotterEvent] {
    events.filter { $0.type == "rep_rejected" }
  }

  /// Whether the page parses as XML (every element closed and nested, attributes quoted,
  /// text escaped), and the names of its elements in order.
  static func parse(_ page: String) -> (wellFormed: Bool, elements: [String], error: String?) {
    let parser = XMLParser(data: Data(page.utf8))
    let collector = ElementCollector()
    parser.delegate = collector
    let ok = parser.parse()
    return (ok, collector.elements, parser.parserError.map { "\($0)" })
  }

  /// What in a page would be fetched from elsewhere, or run: it must hold none of these.
  static let outsideReferences = [
    "http://", "https://", "<script", "src=", "@import", "url(http", "url(//", "<link",
    "<iframe", "<img",
  ]
}

final class ElementCollector: NSObject, XMLParserDelegate {
  var elements: [String] = []

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    elements.append(elementName)
  }
}
