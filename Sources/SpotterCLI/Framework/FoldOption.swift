import ArgumentParsing

/// `--fold I/K`: cross-validation by clip. Clip n of an annotation file is in fold n mod K;
/// `train` leaves fold I out, `eval` scores only fold I.
enum FoldOption {
  static let option = Option.value(
    "fold", "I/K",
    "Cross-validation: clips n with n mod K = I (train leaves them out, eval scores only them).")

  static func parse(_ arguments: ParsedArguments, command: Command) throws -> (
    index: Int, count: Int
  )? {
    guard let text = arguments.string("fold") else { return nil }
    let parts = text.split(separator: "/").compactMap { Int($0) }
    guard parts.count == 2, parts[1] >= 2, (0..<parts[1]).contains(parts[0]) else {
      throw CLIError.usage(
        "--fold takes I/K with K ≥ 2 and 0 ≤ I < K, got '\(text)'", command: command)
    }
    return (parts[0], parts[1])
  }
}
