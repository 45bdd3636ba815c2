import ArgumentParsing
import Foundation
import History
import Poses
import RepCounting
import Reporting
import Spotter
import VideoPoses

#if canImport(Glibc)
  import Glibc
#endif

extension VideoCommand {
  /// Seconds between the camera's pictures on the live page: five a second show the person
  /// moving, at about 40 KB each (640 pixels wide), and cost the detector a JPEG each.
  static let viewEvery = 0.2

  /// `spotter video` on a camera or a stream: the detector's poses go through the session as
  /// they come, the events printed as they happen, until the stream ends, Ctrl-C (or SIGTERM)
  /// ends it, or the source fails. Then, as `spotter demo` does: the summary, the report if
  /// asked (stills the helper kept during the session), and one record in the workout history;
  /// and the session's figures on standard error (frames, dropped, capture → event latency).
  /// A source that failed part-way does all of that too, then fails the command with why.
  ///
  /// - Throws: `VideoError.liveSourceUnavailable` before anything is written when the source
  ///   gives no frame; `.liveSourceFailed` at the end when it failed part-way.
  static func runLive(
    _ input: LiveInput, _ arguments: ParsedArguments, definition: ExerciseDefinition?,
    runtime: Runtime?, goals: [Goal], reportFile: String?, posesOut: String?,
    environment: DetectorEnvironment
  ) throws -> Int32 {
    // The detector's pipe and the page's browsers may close first: that is no reason to stop.
    signal(SIGPIPE, SIG_IGN)
    let json = arguments.flag("json")
    let started = Date()
    let view = try ViewOption.start(
      arguments, source: input.description, pictured: true, imageSize: nil)
    let source: LivePoseSource
    do {
      source = try LivePoseSource(
        input, environment: environment, viewEvery: view == nil ? nil : viewEvery,
        keepStills: reportFile != nil)
    } catch {
      ViewOption.finish(view, failure: error)
      throw error
    }
    defer { source.close() }
    InterruptCleanup.stopGently(writingTo: source.stopDescriptor)
    // Before the helper is let go: its descriptor's number may be another file's after that.
    defer { InterruptCleanup.forgetGentleStop() }
    view?.board.show(imageSize: (Double(source.width), Double(source.height)))
    Terminal.error(
      "Live: \(input) (\(source.width) × \(source.height)); Ctrl-C ends the session.")
    let partial = try posesOut.map { path in
      let partial = VideoPoseDetector.temporaryPath(for: path)
      InterruptCleanup.remove(onInterrupt: partial)
      source.poses = try PoseFileWriter(path: partial, format: .jsonl, header: source.header)
      return partial
    }
    defer {
      if let partial {
        try? FileManager.default.removeItem(atPath: partial)
        InterruptCleanup.forget(partial)
      }
    }

    var record = SessionRecorder(date: started, source: "spotter video \(input.name)")
    var latency = CaptureLatency()
    let taps = EventTaps(
      observe: { _, event in
        record.take(event)
        view?.board.take(event)
        // Events made by the end of the stream (the summary) were decided by no frame.
        if source.ending == nil, let captured = source.lastCapture {
          latency.add(captured: captured)
        }
      },
      fields: { _ in
        guard source.ending == nil, let t = source.frameTimes.last,
          let seconds = latency.samples.last
        else { return "" }
        return ",\"capture_t\":\(JSONText.time(t)),\"latency\":\(JSONText.number(seconds))"
      },
      counters: { StreamCounters(droppedFrames: source.dropped) })
    let addFrames = { (report: SessionReport, recorder: ReportRecorder) in
      InterruptCleanup.forgetGentleStop()
      return try withFrames(
        report, recorder: recorder, name: input.name, width: source.width, height: source.height,
        frameTimes: source.frameTimes, grab: source.stills)
    }
    let output = TextOutput.standardOutput()
    let shown = view.map { ViewOption.showing(source, on: $0.board) { source.picture } } ?? source
    do {
      if let definition {
        try CountCommand.countAndPrint(
          shown, definition: definition, goals: goals, json: json, reportFile: reportFile,
          output: output, taps: taps, finishReport: addFrames)
      } else {
        try ClassifyCommand.classify(
          shown, runtime: runtime!, json: json, reportFile: reportFile, output: output,
          taps: taps, finishReport: addFrames)
      }
    } catch {
      ViewOption.finish(view, failure: error)
      throw error
    }
    InterruptCleanup.forgetGentleStop()
    if case .failed(let error) = source.ending {
      ViewOption.finish(view, failure: error)
    } else {
      ViewOption.finish(view)
    }

    if let partial, let posesOut, let writer = source.poses {
      try writer.close()
      guard rename(partial, posesOut) == 0 else {
        throw PoseFileError(
          file: posesOut,
          message: "cannot write the pose file: \(String(cString: strerror(errno)))")
      }
      Terminal.error("Poses: \(posesOut)")
    }
    if !arguments.flag("no-history") {
      let store = try HistoryCommand.open(arguments.values["history"])
      let stored = try store.append(record.record)
      Terminal.error("Session stored in \(store.location) (\(stored.uid)).")
    }
    Terminal.error(liveSummary(source, latency: latency))
    if case .failed(let error) = source.ending { throw error }
    return 0
  }

  /// `Live: 0:26 of the stream http://…; 612 frames detected (23.2 a second), 183 dropped
  /// (23%); capture → event p50 41 ms, p99 88 ms over 96 events.`: the stream's length by its
  /// capture clock, and the rate frames were detected at over it.
  static func liveSummary(_ source: LivePoseSource, latency: CaptureLatency) -> String {
    let frames = source.frameTimes.count
    let span = source.frameTimes.last ?? 0
    let rate = span > 0 ? Double(frames - 1) / span : 0
    let share = Int(
      (Double(source.dropped) / Double(max(1, frames + source.dropped)) * 100).rounded())
    var text =
      "Live: \(ReportPage.clock(span)) of \(source.input); \(frames) frames detected "
      + String(format: "(%.1f a second)", rate) + ", \(source.dropped) dropped (\(share)%)"
    if let median = latency.quantile(0.5), let p99 = latency.quantile(0.99) {
      text +=
        String(format: "; capture → event p50 %.0f ms, p99 %.0f ms", median * 1000, p99 * 1000)
        + " over \(latency.samples.count) events"
    }
    return text + "."
  }
}
