#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the command line writes, and whether a person is watching.
enum Terminal {
  static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) != 0 }

  /// Writes to standard error, unbuffered: errors and progress.
  static func error(_ text: String, newline: Bool = true) {
    var line = text
    if newline && !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
  }
}
