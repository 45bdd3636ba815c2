import Foundation
import Randomness
import Spotter

/// Made-up finished sessions for the history's benchmarks and checks: the same seed and index
/// give the same record in every process, so a checker can rebuild any stored session and
/// compare it whole.
enum SyntheticSessions {
  static let exercises = ["squat", "push_up", "jumping_jack", "bicep_curl", "lunge", "sit_up"]

  /// 1–4 sets of 4–15 reps each, on a day within `days` days before 2026-01-01 (noon UTC).
  static func record(seed: Int, index: Int, days: Int = 365) -> SessionRecord {
    var random = SeededGenerator(seed: UInt64(seed) &* 1_000_003 &+ UInt64(index) &+ 1)
    let day = Int(random.next() % UInt64(days))
    let date = Date(timeIntervalSince1970: 1_767_268_800 - Double(day) * 86_400)
    var sets: [SetRecord] = []
    var t = 5.0
    for _ in 0..<(1 + Int(random.next() % 4)) {
      let exercise = exercises[Int(random.next() % UInt64(exercises.count))]
      var set = SetRecord(exercise: exercise, start: t, end: t)
      for number in 0..<(4 + Int(random.next() % 12)) {
        let down = 0.5 + random.unit()
        let up = 0.4 + random.unit()
        t += down + up
        set.reps.append(
          RepRecord(
            t: t, duration: down + up, timeDown: down, timeUp: up,
            rangeOfMotion: 60 + 60 * random.unit(), side: number % 3 == 0 ? "left" : nil,
            partial: random.next() % 10 == 0, backfilled: number < 2))
      }
      set.end = t + 1
      sets.append(set)
      t += 30
    }
    var totals: [ExerciseTotal] = []
    for set in sets {
      if let index = totals.firstIndex(where: { $0.name == set.exercise }) {
        totals[index].reps += set.count
        totals[index].activeSeconds += set.activeSeconds
      } else {
        totals.append(
          ExerciseTotal(name: set.exercise, reps: set.count, activeSeconds: set.activeSeconds))
      }
    }
    return SessionRecord(
      date: date, source: source(seed: seed, index: index), person: "bench-\(seed)", sets: sets,
      totals: totals)
  }

  static func source(seed: Int, index: Int) -> String { "spotter-bench (seed \(seed), #\(index))" }

  static func uid(seed: Int, index: Int) -> String { "bench-\(seed)-\(index)" }

  /// The seed and index a synthetic session's source names.
  static func parse(_ source: String) -> (seed: Int, index: Int)? {
    let numbers = source.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    guard source.hasPrefix("spotter-bench (seed "), numbers.count == 2 else { return nil }
    return (numbers[0], numbers[1])
  }
}
