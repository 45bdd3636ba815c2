import ActionModel
import Randomness

/// Draws training windows: first a class by its weight, then a window of that class, where a
/// window cut from an annotated recording is drawn `recordedWeight` times as often as a
/// synthetic one, window for window.
///
/// Why: synthetic workouts are cheap, so in a large recipe they outnumber the annotated
/// recordings (real people) several times over in every class, and the network learns mostly
/// what MotionSynth draws. With weight w, a class with R recorded and S synthetic windows
/// draws a recorded one w·R / (w·R + S) of the time.
struct WindowSampler {
  /// The classes with windows, and their cumulative shares of the draws.
  private let present: [Int]
  private let cumulative: [Double]
  /// Per class: all its windows, its synthetic ones, its recorded ones, and the chance that a
  /// draw of the class takes a recorded one.
  private let byClass: [[Int]]
  private let synthetic: [[Int]]
  private let recorded: [[Int]]
  private let recordedShare: [Double]
  /// Whether recorded windows are weighted at all: with a weight of 1 a draw is one uniform
  /// choice over all of the class's windows, with no draw of the kind first, so a recipe that
  /// does not weight draws the same windows from the same seed whether or not it could.
  private let weighted: Bool

  init(
    data: some TrainingWindows, classes: Int, classWeights: [Double]?, recordedWeight: Double
  ) {
    precondition(recordedWeight > 0, "the recorded windows' weight must be above 0")
    precondition(
      classWeights.map { $0.count == classes && $0.allSatisfy { $0 > 0 } } ?? true,
      "class weights must be one above 0 for each of the \(classes) classes")
    var byClass = [[Int]](repeating: [], count: classes)
    var synthetic = byClass
    var recorded = byClass
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
    self.byClass = byClass
    self.synthetic = synthetic
    self.recorded = recorded
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
      if share == 0 {
        members = synthetic[label]
      } else if share == 1 || generator.unit() < share {
        members = recorded[label]
      } else {
        members = synthetic[label]
      }
    }
    return members[Int(generator.next() % UInt64(members.count))]
  }
}
