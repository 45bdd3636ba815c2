import ActionModel
import RepCounting

/// Everything streams share: the model and the exercise catalogue. Immutable and `Sendable`:
/// one runtime serves any number of sessions on any threads.
public final class Runtime: Sendable {
  /// Nil for a runtime that only counts exercises its caller chooses (`makeSession(counting:)`):
  /// those sessions run no network.
  public let classifier: Classifier?
  public let catalogue: ExerciseCatalogue
  public let options: SessionOptions

  public init(
    classifier: Classifier?, catalogue: ExerciseCatalogue,
    options: SessionOptions = SessionOptions()
  ) {
    self.classifier = classifier
    self.catalogue = catalogue
    self.options = options
  }

  /// A new stream whose exercises the classifier recognises, of one person (the most
  /// prominent) or up to `people`, each followed and counted on their own (one unseen for
  /// `leaveSeconds` has left). With `batchingPredictions` (one person), its predictions are
  /// left to the caller, to run through the network with other sessions' in one batch
  /// (`Session.predictionDue`).
  public func makeSession(
    people: Int = 1, leaveSeconds: Double = 10, batchingPredictions: Bool = false
  ) -> Session {
    precondition(classifier != nil, "a runtime without a classifier counts chosen exercises only")
    precondition(people == 1 || !batchingPredictions, "batched predictions are one person's")
    return Session(runtime: self, people: people, leaveSeconds: leaveSeconds) {
      PersonSession(runtime: self, batchesPredictions: batchingPredictions)
    }
  }

  /// A new stream of one exercise the person (or the app) chose: it is under way from the
  /// first frame, counted by `definition`, with no classifier. Goals, summaries, people and
  /// events are those of any session; a goal reached ends it, and nothing after is counted.
  public func makeSession(
    counting definition: ExerciseDefinition, people: Int = 1, leaveSeconds: Double = 10
  ) -> Session {
    Session(runtime: self, people: people, leaveSeconds: leaveSeconds) {
      PersonSession(runtime: self, counting: definition)
    }
  }

  /// A new stream of the exercise the catalogue names `name` (`makeSession(counting:)`).
  public func makeSession(
    exercise name: String, people: Int = 1, leaveSeconds: Double = 10
  ) throws(UnknownExercise) -> Session {
    guard let definition = catalogue.definition(named: name) else {
      throw UnknownExercise(name: name, known: catalogue.definitions.map(\.name))
    }
    return makeSession(counting: definition, people: people, leaveSeconds: leaveSeconds)
  }
}

/// A session was asked for an exercise the catalogue has no definition of.
public struct UnknownExercise: Error, CustomStringConvertible, Sendable {
  public let name: String
  /// The names the catalogue knows.
  public let known: [String]

  public init(name: String, known: [String]) {
    self.name = name
    self.known = known
  }

  public var description: String {
    "unknown exercise '\(name)'; expected one of \(known.joined(separator: ", "))"
  }
}

/// How a session turns predictions into exercises. Defaults are chosen for 30 fps input and
/// the shipped model; each is a command-line option.
public struct SessionOptions: Sendable {
  /// Frames between predictions: 10 is three a second, fast enough to follow a set and cheap
  /// enough for a thousand streams a core.
  public var stride = 10
  /// An exercise starts when its label leads with at least this probability...
  public var enterConfidence: Float = 0.6
  /// ...for this many predictions in a row (1.3 s at the default stride). Movements that are
  /// no exercise (arm swings, standing about) often lead with a wrong label for 3 predictions
  /// at a time: 4 halves the exercises they start and costs real sets nothing measurable; 5
  /// would stop most of them but loses reps at the start of real sets (Weights/MODEL_CARD.md).
  public var dwell = 4
  /// It ends after this many predictions in a row of `other`, nobody, or another exercise
  /// (2 s), once its engine sees its movement stop (`LabelSmoother`): a rep's pause or a few
  /// odd windows do not end a set. The end is reported near the set's last rep, so waiting
  /// costs latency, not accuracy.
  public var exitPredictions = 6
  /// Switching straight to another exercise takes this many confident predictions of it in a
  /// row (2 s): two similar exercises (squats and lunges) must not take turns.
  public var switchDwell = 6
  /// Below this top probability a prediction is reported as low-confidence and never starts
  /// an exercise.
  public var lowConfidence: Float = 0.45
  /// Windows with fewer frames showing a person than this share are not classified.
  public var presenceFraction: Float = 0.6
  /// History kept for backfill: when an exercise is recognised, its rep engine first replays
  /// the frames from the oldest one its first confident window saw, so the reps done while the
  /// classifier was making up its mind count too. It must cover that window and the dwell.
  public var historySeconds = 5.0
  /// Emit a `prediction` event for every window.
  public var reportPredictions = false
  /// Targets that end a set when reached (`goal_reached`); backfilled reps count too.
  public var goals: [Goal] = []

  public init() {}
}
