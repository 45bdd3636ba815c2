import ArgumentParsing
import Foundation
import Poses
import RepCounting
import Reporting
import Spotter

/// `spotter report POSES`: a session as one self-contained HTML page (and `--json`, its data),
/// and what `classify`, `count` and `demo` share to write the same page as they run.
enum ReportCommand {
  static let command = Command(
    name: "report",
    summary: "Write a session as one HTML page: timeline, sets, every rep and refusal, the body.",
    arguments: [
      Argument(name: "POSES", help: "A pose file, CSV, OpenPose folder, or - for stdin.")
    ],
    options: [
      .value("output", "FILE", "Where to write the page.", default: "report.html", short: "o"),
      .flag("json", "Also write the report's data as JSON beside the page (FILE with .json)."),
      .value(
        "exercise", "NAME",
        "Count this exercise throughout, with no classifier (as 'spotter count' does)."),
    ] + RuntimeOptions.options + [
      .value("fps", "N", "Frame rate of inputs without times (OpenPose folders).", default: "30")
    ],
    discussion: """
      The page is one file with inline SVG and CSS, no script and nothing fetched, so it reads
      offline and prints. It shows the timeline (presence, the classifier's probabilities, the
      sets and what was backfilled), each set's signals with the engine's levels and a mark on
      every rep and every movement not counted (with the reason and the cue), the reps as a
      table with bars, left against right, the set's trend, and stick figures of a typical rep
      and of the worst. 'spotter classify --report FILE' and 'spotter count --report FILE' write
      the same page as they run.
      """,
    run: run
  )

  /// `--report FILE` for the commands that write the page as they run.
  static let option = Option.value(
    "report", "FILE", "Also write the session as an HTML page (see 'spotter report --help').")

  static func run(_ arguments: ParsedArguments) throws -> Int32 {
    let path = arguments.positional(0)!
    let source = try PoseFiles.open(
      path, options: PoseFiles.Options(fps: try arguments.double("fps", range: 0.001...10_000)))
    let recorder: ReportRecorder
    var badLines = 0
    if let name = arguments.values["exercise"] {
      let definition = try CountCommand.definition(
        named: name, in: try ExerciseCatalogueOption.load(arguments), command: command)
      recorder = ReportRecorder(for: definition, source: source.name)
      badLines = try CountCommand.count(source, definition: definition, recorder: recorder)
    } else {
      let runtime = try RuntimeOptions.runtime(arguments).reportingPredictions
      let session = runtime.makeSession()
      recorder = ReportRecorder(source: source.name, date: Date(), runtime: runtime)
      listen(to: session, recorder: recorder)
      try session.run(source) { event in recorder.take(event) }
      badLines = session.badLines
    }
    let report = recorder.report()
    let output = TextOutput.standardOutput()
    for written in try write(
      report, to: try arguments.required("output"), json: arguments.flag("json"))
    {
      output.writeLine("Wrote \(written)")
    }
    func amount(_ count: Int, _ noun: String) -> String {
      "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
    output.writeLine(
      amount(report.sets.filter(\.counted).count, "set") + ", " + amount(report.repCount, "rep")
        + ", " + amount(report.refusalCount, "movement") + " not counted"
        + (badLines > 0 ? " (\(badLines) bad lines skipped)" : "") + ".")
    try output.flush()
    return 0
  }

  /// The report's page at `path`, and with `json` its data beside it; returns what was
  /// written, each with its size. Each file is written whole or not at all.
  /// Fails now, before a stream is run, when the page could not be written at `path` at its
  /// end: its folder is missing or not writable, or the file is there and not writable. A live
  /// stream must not find out after the workout.
  static func checkWritable(_ path: String, option: String = "--report") throws {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    var isFolder: ObjCBool = false
    let problem: String?
    if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
      || !isFolder.boolValue
    {
      problem = "its folder \(folder) does not exist"
    } else if access(folder, W_OK) != 0 {
      problem = "its folder \(folder) is not writable"
    } else if FileManager.default.fileExists(atPath: url.path), access(url.path, W_OK) != 0 {
      problem = "the file is not writable"
    } else {
      problem = nil
    }
    if let problem {
      throw CLIError.failure(
        "cannot write \(path): \(problem)", hint: "choose another place with \(option).")
    }
  }

  static func write(_ report: SessionReport, to path: String, json: Bool) throws -> [String] {
    let page = Data(ReportPage.html(report).utf8)
    var written: [String] = []
    func save(_ data: Data, _ file: String) throws {
      do {
        try data.write(to: URL(fileURLWithPath: file), options: .atomic)
      } catch {
        throw CLIError.failure(
          "cannot write \(file): \(error.localizedDescription)",
          hint: "choose another place with --output (or --report).")
      }
      let size = ByteCountFormatter.string(fromByteCount: Int64(data.count), countStyle: .file)
      written.append("\(file) (\(size))")
    }
    try save(page, path)
    if json {
      let base = path.hasSuffix(".html") ? String(path.dropLast(5)) : path
      try save(try report.jsonData(), base + ".json")
    }
    return written
  }

  /// Hands the session's engines' signal samples to the recorder.
  static func listen(to session: Session, recorder: ReportRecorder) {
    session.onSignalSample = { exercise, sample in recorder.take(sample, exercise: exercise) }
    session.onTick = { pose, t in recorder.take(pose, t: t) }
  }
}

extension ReportRecorder {
  /// A recorder for one exercise counted throughout, with no classifier.
  convenience init(for definition: ExerciseDefinition, source: String) {
    self.init(source: source, date: Date()) { $0 == definition.name ? definition : nil }
  }
}

extension Runtime {
  /// The same runtime with every window's prediction reported: the page's classifier band.
  var reportingPredictions: Runtime {
    var options = self.options
    options.reportPredictions = true
    return Runtime(classifier: classifier, catalogue: catalogue, options: options)
  }
}
