/// A CSV's column row read for what it names: `t`, and `<joint>_x`, `_y` and `_c` for each
/// joint of a layout, in any order (README, "Pose files").
///
/// Columns are placed by their names rather than their places, because a spreadsheet that
/// moves or sorts columns keeps their names: read by place, such a file would count reps from
/// the wrong joints and say nothing.
enum CSVColumnRow {
  /// A column row that cannot be read: what it got wrong.
  struct Problem: Error {
    var message: String
  }

  /// Where each column goes, for a column row that names joints.
  ///
  /// - Parameters:
  ///   - names: the column row's cells, trimmed.
  ///   - stated: the header's layout; without one, the layout whose joints the row names.
  /// - Returns: the layout and each column's slot (0 for `t`, 1 + 3j + k for the x, y or c,
  ///   k = 0, 1, 2, of the layout's joint j); nil for a row that names no joint of any layout
  ///   (a spreadsheet's own headings), whose columns are in the layout's order.
  /// - Throws: `Problem` naming the first column that is not the layout's or repeats one, or
  ///   else the first column missing.
  static func slots(of names: [String], stated: PoseLayout?) throws(Problem) -> (
    layout: PoseLayout, slots: [Int]
  )? {
    let named = Set(names.compactMap { joint(in: $0)?.name })
    guard !named.isDisjoint(with: allJointNames) else { return nil }
    let chosen: PoseLayout
    var context = ""
    if let stated {
      chosen = stated
    } else if let exact = PoseLayout.allCases.first(where: { Set($0.jointNames) == named }) {
      chosen = exact
    } else {
      // Name the mistakes against the layout the row is nearest to.
      chosen = PoseLayout.allCases.min {
        Set($0.jointNames).symmetricDifference(named).count
          < Set($1.jointNames).symmetricDifference(named).count
      }!
      context =
        "the column row names the joints of no one layout; the nearest, \(chosen.rawValue): "
    }
    let jointIndex = Dictionary(
      uniqueKeysWithValues: chosen.jointNames.enumerated().map { ($0.element, $0.offset) })
    var slots: [Int] = []
    var columnOfSlot: [Int: Int] = [:]
    for (column, name) in names.enumerated() {
      let slot: Int
      if name == "t" {
        slot = 0
      } else if let (joint, component) = joint(in: name), let index = jointIndex[joint] {
        slot = 1 + 3 * index + component
      } else {
        throw Problem(
          message: context
            + "column \(column + 1) of the column row is \"\(name)\": not t or the _x, _y or _c "
            + "of a \(chosen.rawValue) joint")
      }
      if let earlier = columnOfSlot[slot] {
        throw Problem(
          message: context
            + "column \(column + 1) of the column row repeats \"\(name)\" (column \(earlier + 1))"
        )
      }
      columnOfSlot[slot] = column
      slots.append(slot)
    }
    if let missing = (0..<1 + 3 * chosen.jointCount).first(where: { columnOfSlot[$0] == nil }) {
      throw Problem(
        message: context
          + "the column row has no \"\(name(ofSlot: missing, chosen))\"; \(chosen.rawValue) "
          + "needs t, then x, y and c for each of its \(chosen.jointCount) joints")
    }
    return (chosen, slots)
  }

  /// The name of a slot's column: `t`, or a joint's `_x`, `_y` or `_c`.
  static func name(ofSlot slot: Int, _ layout: PoseLayout) -> String {
    guard slot > 0 else { return "t" }
    return layout.jointNames[(slot - 1) / 3] + suffixes[(slot - 1) % 3]
  }

  private static let suffixes = ["_x", "_y", "_c"]

  private static let allJointNames = Set(PoseLayout.allCases.flatMap(\.jointNames))

  /// A column name split into a joint name and which value of it (0 x, 1 y, 2 c); nil when it
  /// does not end in `_x`, `_y` or `_c`.
  private static func joint(in column: String) -> (name: String, component: Int)? {
    for (component, suffix) in suffixes.enumerated() where column.hasSuffix(suffix) {
      return (String(column.dropLast(suffix.count)), component)
    }
    return nil
  }
}
