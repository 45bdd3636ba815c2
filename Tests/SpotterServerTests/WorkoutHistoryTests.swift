import Foundation
import Spotter
import SpotterServer
import TestSupport
import Testing

@Suite struct WorkoutHistoryTests {
  @Test func recordsAppendWholeAndReadBack() throws {
    let path = Fixtures.temporaryFolder() + "/deep/history.jsonl"
    for index in 0..<3 {
      try WorkoutHistory.append(
        WorkoutHistory.record(
          date: Date(timeIntervalSince1970: Double(index)), source: "test \(index)",
          summary: [ExerciseTotal(name: "squat", reps: index, activeSeconds: 10)]), to: path)
    }
    let lines = String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self).split(
      separator: "\n")
    #expect(lines.count == 3)
    for (index, line) in lines.enumerated() {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(object["source"] as? String == "test \(index)")
    }
    #expect(
      try FileManager.default.contentsOfDirectory(
        atPath: (path as NSString).deletingLastPathComponent) == ["history.jsonl"])
  }
}
