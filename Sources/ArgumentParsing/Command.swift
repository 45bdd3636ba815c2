/// One option of a command. The same table drives parsing and `--help`, so they cannot drift.
public struct Option: Sendable {
  /// The long name, without dashes: `json` is `--json`.
  public let name: String
  /// The value's placeholder in help (`FILE`, `N`); nil for a flag that takes no value.
  public let value: String?
  public let help: String
  /// The value used when the option is not given, shown in help.
  public let defaultValue: String?
  /// The one-letter form, for the few options people type often and expect one for from other
  /// tools: `o` is `-o` (`-o FILE` for `--output FILE`). `-h` is always `--help`.
  public let short: Character?

  public static func flag(_ name: String, _ help: String, short: Character? = nil) -> Option {
    Option(name: name, value: nil, help: help, defaultValue: nil, short: short)
  }

  public static func value(
    _ name: String, _ placeholder: String, _ help: String, default defaultValue: String? = nil,
    short: Character? = nil
  ) -> Option {
    Option(name: name, value: placeholder, help: help, defaultValue: defaultValue, short: short)
  }

  /// How help writes it: `-o, --output FILE`, or `--json`.
  var synopsis: String {
    (short.map { "-\($0), " } ?? "") + "--\(name)" + (value.map { " \($0)" } ?? "")
  }
}

/// A positional argument.
public struct Argument: Sendable {
  public let name: String
  public let help: String
  public var optional = false

  public init(name: String, help: String, optional: Bool = false) {
    self.name = name
    self.help = help
    self.optional = optional
  }
}

/// A `spotter` subcommand: its table of arguments and options, and what it does.
public struct Command: Sendable {
  public let name: String
  public let summary: String
  public var arguments: [Argument] = []
  public var options: [Option] = []
  /// Extra paragraphs for `--help`.
  public var discussion: String? = nil
  /// Runs the command; returns the exit code (0 success, 1 failure).
  public let run: @Sendable (ParsedArguments) throws -> Int32

  public init(
    name: String, summary: String, arguments: [Argument] = [], options: [Option] = [],
    discussion: String? = nil, run: @escaping @Sendable (ParsedArguments) throws -> Int32
  ) {
    self.name = name
    self.summary = summary
    self.arguments = arguments
    self.options = options
    self.discussion = discussion
    self.run = run
  }

  /// The usage line, e.g. `spotter count [options] FILE`.
  public func usage(program: String) -> String {
    var parts = [program, name]
    if !options.isEmpty { parts.append("[options]") }
    for argument in arguments {
      parts.append(argument.optional ? "[\(argument.name)]" : argument.name)
    }
    return parts.joined(separator: " ")
  }

  /// The whole `--help` text.
  public func help(program: String) -> String {
    var lines = ["\(summary)", "", "Usage: \(usage(program: program))"]
    if !arguments.isEmpty {
      lines += ["", "Arguments:"]
      for argument in arguments { lines.append(Self.row(argument.name, argument.help)) }
    }
    lines += ["", "Options:"]
    for option in options + [Self.helpOption] {
      var text = option.help
      if let value = option.defaultValue { text += " (default: \(value))" }
      lines.append(Self.row(option.synopsis, text))
    }
    if let discussion { lines += ["", discussion] }
    return lines.joined(separator: "\n")
  }

  static let helpOption = Option.flag("help", "Show this help and exit.", short: "h")

  private static func row(_ left: String, _ right: String) -> String {
    let padded =
      left.count < 22 ? left + String(repeating: " ", count: 22 - left.count) : left + "  "
    return "  " + padded + right
  }

  /// Parses `arguments` (after the command name) against the table.
  ///
  /// - Throws: `CLIError.usage` for an unknown option, a missing value, or a wrong number of
  ///   arguments.
  public func parse(_ words: [String]) throws -> ParsedArguments {
    var result = ParsedArguments(command: self)
    var index = 0
    var onlyPositionals = false
    while index < words.count {
      var word = words[index]
      index += 1
      if !onlyPositionals, word.count == 2, word.hasPrefix("-"), let letter = word.last,
        letter != "-"
      {
        // A one-letter form reads as its long name: `-o FILE` as `--output FILE`.
        guard let option = (options + [Self.helpOption]).first(where: { $0.short == letter })
        else {
          throw CLIError.usage("unknown option '\(word)'", command: self)
        }
        word = "--" + option.name
      }
      if onlyPositionals || !word.hasPrefix("--") || word == "-" {
        if word.hasPrefix("-") && word != "-" && !onlyPositionals {
          throw CLIError.usage("unknown option '\(word)'", command: self)
        }
        result.positionals.append(word)
        continue
      }
      if word == "--" {
        onlyPositionals = true
        continue
      }
      var name = String(word.dropFirst(2))
      var inlineValue: String? = nil
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if name == "help" {
        result.wantsHelp = true
        continue
      }
      guard let option = options.first(where: { $0.name == name }) else {
        throw CLIError.usage("unknown option '--\(name)'", command: self)
      }
      if option.value == nil {
        guard inlineValue == nil else {
          throw CLIError.usage("option '--\(name)' takes no value", command: self)
        }
        result.flags.insert(name)
      } else if let inlineValue {
        result.values[name] = inlineValue
        result.allValues[name, default: []].append(inlineValue)
      } else {
        guard index < words.count else {
          throw CLIError.usage("option '--\(name)' needs a value \(option.value!)", command: self)
        }
        result.values[name] = words[index]
        result.allValues[name, default: []].append(words[index])
        index += 1
      }
    }
    if result.wantsHelp { return result }
    let required = arguments.filter { !$0.optional }.count
    if result.positionals.count < required {
      let missing = arguments[result.positionals.count].name
      throw CLIError.usage("missing argument \(missing)", command: self)
    }
    if result.positionals.count > arguments.count {
      throw CLIError.usage(
        "unexpected argument '\(result.positionals[arguments.count])'", command: self)
    }
    return result
  }
}

/// What the command line said, read through the command's table so defaults apply.
public struct ParsedArguments {
  public let command: Command
  public var positionals: [String] = []
  /// Each option's value (the last, when given more than once).
  public var values: [String: String] = [:]
  /// Every value of each option, in the order given (`--annotations a --annotations b`).
  public var allValues: [String: [String]] = [:]
  public var flags: Set<String> = []
  public var wantsHelp = false

  public func flag(_ name: String) -> Bool {
    precondition(
      command.options.contains { $0.name == name && $0.value == nil }, "no flag --\(name)")
    return flags.contains(name)
  }

  /// An option's value, or its default.
  public func string(_ name: String) -> String? {
    guard let option = command.options.first(where: { $0.name == name && $0.value != nil }) else {
      preconditionFailure("no option --\(name) in \(command.name)")
    }
    return values[name] ?? option.defaultValue
  }

  /// Every value an option was given, in order; empty when it was not given.
  public func strings(_ name: String) -> [String] {
    _ = string(name)  // the option must be in the table
    return allValues[name] ?? []
  }

  /// A value the command cannot run without: a usage error naming the option when missing.
  public func required(_ name: String) throws -> String {
    guard let value = string(name) else {
      let placeholder = command.options.first { $0.name == name }?.value ?? "VALUE"
      throw CLIError.usage("--\(name) \(placeholder) is required", command: command)
    }
    return value
  }

  public func double(
    _ name: String,
    range: ClosedRange<Double> = -.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
  ) throws -> Double? {
    guard let text = string(name) else { return nil }
    guard let value = Double(text), value.isFinite, range.contains(value) else {
      throw CLIError.usage(
        "--\(name) takes a number in \(range.lowerBound)...\(range.upperBound), got '\(text)'",
        command: command)
    }
    return value
  }

  /// An `A:B` option (`--scores 0.2:0.6`, `--azimuth 30:60`): nil when not given; a usage error
  /// naming the option unless A and B are numbers with A ≤ B, both within `range`.
  public func interval(_ name: String, within range: ClosedRange<Double>) throws
    -> ClosedRange<Double>?
  {
    guard let text = string(name) else { return nil }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
    guard parts.count == 2, let low = parts[0], let high = parts[1], low <= high,
      range.contains(low), range.contains(high)
    else {
      let placeholder = command.options.first { $0.name == name }?.value ?? "A:B"
      throw CLIError.usage(
        "--\(name) takes \(placeholder) with both in \(range.lowerBound)...\(range.upperBound), "
          + "the first no more than the second, got '\(text)'",
        command: command)
    }
    return low...high
  }

  public func int(_ name: String, range: ClosedRange<Int> = Int.min...Int.max) throws -> Int? {
    guard let text = string(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw CLIError.usage(
        "--\(name) takes a whole number in \(range.lowerBound)...\(range.upperBound), got "
          + "'\(text)'",
        command: command)
    }
    return value
  }

  public func positional(_ index: Int) -> String? {
    index < positionals.count ? positionals[index] : nil
  }
}

/// Failures the command line reports itself; anything else thrown is a failure (exit 1).
public enum CLIError: Error {
  /// The command line was wrong: exit 64 with the usage.
  case usage(String, command: Command?)
  /// The work failed: exit 1, with a hint of what to do.
  case failure(String, hint: String?)
}
