import Testing

@testable import ArgumentParsing

/// The parser and the program's exit codes, without a binary: `spotter` and `spotter-bench`
/// share them (their own tests run the real binaries).
@Suite struct ArgumentParsingTests {
  static let count = Command(
    name: "count", summary: "Count things.",
    arguments: [Argument(name: "FILE", help: "The input.")],
    options: [
      .value("exercise", "NAME", "What to count."),
      .value("stride", "N", "Frames between predictions.", default: "10"),
      .flag("json", "Print JSON."),
      .value("output", "FILE", "Where to write.", short: "o"),
    ],
    run: { arguments in
      Int32(try arguments.int("stride", range: 1...600)!)
    })
  static let program = Program(
    name: "tool", version: "1.0", summary: "a test tool.", commands: [count])

  static func run(_ words: [String]) -> (code: Int32, out: String, err: String) {
    var out = ""
    var err = ""
    let code = program.run(words, print: { out += $0 + "\n" }, error: { err += $0 + "\n" })
    return (code, out, err)
  }

  @Test func valuesFlagsAndPositionalsAreReadThroughTheTable() throws {
    let parsed = try Self.count.parse(["--exercise", "squat", "--json", "a.jsonl", "--stride=5"])
    #expect(parsed.string("exercise") == "squat")
    #expect(parsed.flag("json"))
    #expect(parsed.positional(0) == "a.jsonl")
    #expect(try parsed.int("stride") == 5)
    #expect(try Self.count.parse(["x"]).string("stride") == "10")  // the default
    #expect(try Self.count.parse(["--", "--json"]).positional(0) == "--json")
  }

  @Test(arguments: [
    (["count"], "missing argument FILE"),
    (["count", "a", "--bogus"], "unknown option '--bogus'"),
    (["count", "a", "--stride"], "option '--stride' needs a value N"),
    (["count", "a", "--json=yes"], "option '--json' takes no value"),
    (["count", "a", "b"], "unexpected argument 'b'"),
    (["count", "a", "-x"], "unknown option '-x'"),
    (["count", "a", "-o"], "option '--output' needs a value FILE"),
    (["count", "a", "--stride", "0"], "--stride takes a whole number in 1...600, got '0'"),
    (["frobnicate"], "unknown command 'frobnicate'"),
  ])
  func usageErrorsExit64AndSayWhatWasWrong(_ words: [String], _ message: String) {
    let (code, out, err) = Self.run(words)
    #expect(code == 64)
    #expect(out.isEmpty)
    #expect(err.contains("Error: \(message)"), "\(err)")
    #expect(err.contains("Hint: run 'tool"), "\(err)")
  }

  /// `-o FILE` is `--output FILE` where the table gives it that letter, and `-h` is `--help`
  /// for every command.
  @Test func oneLetterFormsReadAsTheirLongNames() throws {
    let parsed = try Self.count.parse(["-o", "out.html", "a.jsonl"])
    #expect(parsed.string("output") == "out.html")
    #expect(parsed.positional(0) == "a.jsonl")
    #expect(try Self.count.parse(["--", "-o"]).positional(0) == "-o")
    let (code, out, err) = Self.run(["count", "-h"])
    #expect(code == 0 && err.isEmpty)
    #expect(out.contains("Usage: tool count [options] FILE"))
    #expect(out.contains("  -o, --output FILE     Where to write."))
    #expect(out.contains("  -h, --help            Show this help and exit."))
  }

  @Test func helpComesFromTheTableWithDefaults() {
    let (code, out, _) = Self.run(["count", "--help"])
    #expect(code == 0)
    #expect(out.contains("Usage: tool count [options] FILE"))
    #expect(out.contains("--stride N") && out.contains("(default: 10)"))
    #expect(Self.run(["--help"]).out.contains("count         Count things."))
  }

  @Test func theCommandsExitCodeAndFailuresComeThrough() {
    #expect(Self.run(["count", "a", "--stride", "7"]).code == 7)
    let failing = Program(
      name: "tool", version: "1", summary: "s.",
      commands: [
        Command(name: "fail", summary: "Fails.") { _ in
          throw CLIError.failure("it broke", hint: "mend it")
        }
      ])
    var err = ""
    #expect(failing.run(["fail"], print: { _ in }, error: { err += $0 }) == 1)
    #expect(err == "Error: it broke\nHint: mend it")
  }
}
