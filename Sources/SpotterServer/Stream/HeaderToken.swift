import Foundation
import Poses

/// The key a TCP client sends when the daemon has one (`"token": "…"`; README, "Serving many
/// streams"): each line before its header that is not blank must be a header or a counters
/// request (`{"cmd":"stats","token":"…"}`) that carries it, or the client is refused before
/// any frame is read.
enum HeaderToken {
  /// Why a line before the header of a client that must send `token` is refused, or nil for a
  /// header or counters request that carries it. The token is compared in constant time (the time depends on its length,
  /// not on where a guess goes wrong), and never written anywhere.
  static func refusal(of line: LineSplitter.Line, token: [UInt8]) -> String? {
    let needs = "this listener needs a token: send it in the header (\"token\": \"…\")"
    // A counters request may carry it too (`spotter status --token-file`).
    if case .text(let text) = line, LineKind(text) == .statsCommand {
      guard
        let object = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any],
        let given = object["token"] as? String
      else { return needs }
      return isSame(Array(given.utf8), token) ? nil : "wrong token"
    }
    guard case .text(let text) = line, let header = try? PoseFileHeader(line: text, file: "")
    else { return "the first line must be a pose-file header; " + needs }
    guard let written = header.extra["token"] else { return needs }
    // The header keeps a key's JSON text: a token (no quotes or backslashes) inside its quotes.
    var given = Array(written.utf8)
    if given.count >= 2, given.first == 0x22, given.last == 0x22 {
      given = Array(given.dropFirst().dropLast())
    }
    return isSame(given, token) ? nil : "wrong token"
  }

  /// Byte for byte, in a time that depends only on `expected`'s length.
  static func isSame(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
    var difference: UInt8 = given.count == expected.count ? 0 : 1
    for index in expected.indices {
      difference |= expected[index] ^ (index < given.count ? given[index] : 0)
    }
    return difference == 0
  }
}
