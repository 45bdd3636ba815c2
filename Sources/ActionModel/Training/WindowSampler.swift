import Randomness

/// Draws training windows: first a class by its weight, then a window of that class, where
/// a window cut from a recording of real people may be drawn more often than a synthetic one
/// (`recordedWeight` times as often, window for window).
///
/// Why: synthetic workouts are cheap and plentiful, so in a large recipe they outnumber the
/// real recordings several times over in every class, and the network learns mostly what
/// MotionSynth draws. Weighting keeps the real share of each class's draws where it is
/// chosen, however many synthetic workouts are added.
struct WindowSampler {
  /// The classes with windows, and their cumulative shares of the draws.
  private let present: [Int]
  private let cumulative: [Double]
  /// Per class: its synthetic windows, its recorded ones, and the chance that a draw of the
  /// class takes a recorded one.
  private let synthetic: [[Int]]
  private let recorded: [[Int]]
  private let recordedShare: [Double]
  /// With a weight of 1, one uniform draw over all of a class's windows (no second random
  /// number): the draws of a recipe that does not weight are what they always were.
  private let byClass: [[Int]]
  private let weighted: Bool

  init(
    data: some TrainingWindows, classes: Int, classWeights: [Double]?, recordedWeight: Double
  ) {
    var synthetic = [[Int]](repeating: [], count: classes)
    var recorded = synthetic
    var byClass = synthetic
    for index in 0..<data.count {
      let label = data.label(index)
      byClass[label].append(index)
      if data.isRecorded(index) {
        recorded[label].append(index)
      } else {
        synthetic[label].append(index)
      }
    }
    present = byClass.indices.filter { !byClass[$0].isEmpty }
    let weights = present.map { classWeights?[$0] ?? 1 }
    let total = weights.reduce(0, +)
    var cumulative: [Double] = []
    for weight in weights { cumulative.append((cumulative.last ?? 0) + weight / total) }
    self.cumulative = cumulative
    self.synthetic = synthetic
    self.recorded = recorded
    self.byClass = byClass
    weighted = recordedWeight != 1
    recordedShare = (0..<classes).map { label in
      let real = recordedWeight * Double(recorded[label].count)
      return real == 0 ? 0 : real / (real + Double(synthetic[label].count))
    }
  }

  /// The index of the next window to train on.
  func draw(_ generator: inout SeededGenerator) -> Int {
    let u = generator.unit()
    let label = present[cumulative.firstIndex { u < $0 } ?? present.count - 1]
    var members = byClass[label]
    if weighted {
      let share = recordedShare[label]
      members =
        share == 0
        ? synthetic[label]
        : share == 1 || generator.unit() < share
          ? recorded[label] : synthetic[label]
    }
    return members[Int(generator.next() % UInt64(members.count))]
  }
}
