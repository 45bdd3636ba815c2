import Foundation
import Poses
import RepCounting
import Spotter

/// What a client's header asks of its stream beyond the pose file's own keys (README, "Serving
/// many streams"): its own goals (`"goal"`), the people to follow (`"people"`), an exercise to
/// count with no classifier (`"exercise"`), a session to resume (`"resume"`), and whose it is
/// (`"person"` or `"client"`), stored with it in the history.
///
/// Read once, when the header comes. A value that cannot be read is a problem the client is
/// told in an `error` event for the header's line, and the stream goes on without it: a client
/// that asked for something odd still gets its reps counted.
struct HeaderOptions {
  var goals: [Goal]?
  /// Nil when the header does not say (the server's `--people`); 1 when it says badly.
  var people: Int?
  /// The session to resume, by the id of its `session` event.
  var resume: String?
  /// Whose the stream is, for the history; nil when the header's holds a control character.
  var person: String?
  /// The `"exercise"` key's JSON text, if any: its definition is looked up in the catalogue of
  /// the runtime the goals make (`exercise(in:)`).
  private var exerciseText: String?
  /// What could not be read, each with what the stream does instead, in the order the client
  /// is told.
  private(set) var problems: [String] = []

  /// Reads the options, and takes out of `header` what its decoder must not keep: the token
  /// (the decoder's header may be shown) and the resume id.
  init(taking header: inout PoseFileHeader) {
    header.extra["token"] = nil
    resume = Self.resumeID(in: header)
    header.extra["resume"] = nil
    let goals = Self.goals(in: header)
    self.goals = goals.goals
    if let error = goals.error { problems.append("\(error); the stream goes on without it") }
    let people = Self.people(in: header)
    self.people = people.people
    if let error = people.error { problems.append("\(error); the stream goes on with one person") }
    person = header.person
    if let person, person.unicodeScalars.contains(where: { $0.value < 0x20 }) {
      // The history stores names whole or not at all: a control character (a NUL ends a C
      // string, and PostgreSQL's text refuses it) would be stored cut, or not stored.
      problems.append(
        "header \"person\"/\"client\" holds a control character; the session is stored "
          + "without a name")
      self.person = nil
    }
    exerciseText = header.extra["exercise"]
  }

  /// The runtime the stream's sessions come from: `server`'s, with the header's goals in place
  /// of its own when it names some.
  func runtime(from server: Runtime) -> Runtime {
    guard let goals else { return server }
    var options = server.options
    options.goals = goals
    return Runtime(classifier: server.classifier, catalogue: server.catalogue, options: options)
  }

  /// The exercise the header chooses (`"exercise": "squat"`), if it names one: counted from
  /// the first frame with no classifier. An unknown one is a problem to tell, and the
  /// classifier chooses.
  func exercise(in catalogue: ExerciseCatalogue) -> (
    exercise: ExerciseDefinition?, problem: String?
  ) {
    guard let text = exerciseText else { return (nil, nil) }
    let name =
      (try? JSONSerialization.jsonObject(
        with: Data(text.utf8), options: .fragmentsAllowed)) as? String ?? text
    guard let definition = catalogue.definition(named: name) else {
      let known = catalogue.definitions.map(\.name).joined(separator: ", ")
      return (
        nil,
        "header \"exercise\" is \(Self.shown(text)); expected one of \(known); the classifier chooses the "
          + "exercises"
      )
    }
    return (definition, nil)
  }

  /// The header's own goals (`"goal": "squat:20"` or a list of them), if it names any; a bad
  /// one is an error to report, and the stream keeps the server's goals.
  static func goals(in header: PoseFileHeader) -> (goals: [Goal]?, error: String?) {
    guard let text = header.extra["goal"] else { return (nil, nil) }
    let value = try? JSONSerialization.jsonObject(
      with: Data(text.utf8), options: .fragmentsAllowed)
    guard let texts = (value as? [String]) ?? (value as? String).map({ [$0] }) else {
      return (
        nil, "header \"goal\" is \(shown(text)); expected a goal such as \"squat:20\" or a list"
      )
    }
    var goals: [Goal] = []
    for text in texts {
      guard let goal = Goal(text) else {
        return (
          nil,
          "header \"goal\" \"\(shown(text))\" is not a goal; expected squat:20, 60s or lunge:45s"
        )
      }
      goals.append(goal)
    }
    return (goals, nil)
  }

  /// The header's number of people to follow (`"people": 2`), if it names one; a bad one is
  /// an error to report, and the stream follows one person.
  static func people(in header: PoseFileHeader) -> (people: Int?, error: String?) {
    guard let text = header.extra["people"] else { return (nil, nil) }
    guard let people = Int(text), PeopleLimit.range.contains(people) else {
      let (lowest, highest) = (PeopleLimit.range.lowerBound, PeopleLimit.range.upperBound)
      return (
        1,
        "header \"people\" is \(shown(text)); expected a whole number from \(lowest) to \(highest)"
      )
    }
    return (people, nil)
  }

  /// A value of the client's as an error quotes it: whole up to 80 bytes; past that, its
  /// start and its length (an error never sends back what a client sent in bulk).
  static func shown(_ text: String) -> String {
    let limit = 80
    guard text.utf8.count > limit else { return text }
    return String(decoding: text.utf8.prefix(limit), as: UTF8.self) + "… (\(text.utf8.count) bytes)"
  }

  /// The session a header asks to resume (`"resume": "<id>"`), if any.
  static func resumeID(in header: PoseFileHeader) -> String? {
    guard let text = header.extra["resume"] else { return nil }
    let value = try? JSONSerialization.jsonObject(
      with: Data(text.utf8), options: .fragmentsAllowed)
    return (value as? String) ?? text
  }
}
