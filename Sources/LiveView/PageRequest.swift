/// The head of an HTTP request as the live page's server reads it: the method, the path and
/// the query's parameters. Nothing else matters to a server of one page and its updates.
struct PageRequest: Equatable {
  var method: String
  var path: String
  var query: [String: String]

  /// Reads the request line of `head` (`GET /events?token=… HTTP/1.1`); nil when it is not one.
  init?(head: String) {
    let line = head.prefix { !$0.isNewline }
    let parts = line.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 3, parts[2].hasPrefix("HTTP/"), parts[1].hasPrefix("/") else {
      return nil
    }
    method = String(parts[0])
    let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    path = String(target[0])
    query = [:]
    for pair in target.count > 1 ? target[1].split(separator: "&") : [] {
      let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = Self.decode(halves[0])
      if !key.isEmpty { query[key] = halves.count > 1 ? Self.decode(halves[1]) : "" }
    }
  }

  /// A query component with its `%XX` escapes and `+` (a space) decoded; bytes that do not
  /// make UTF-8 are replaced, as a browser's own are never.
  static func decode(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    while index < utf8.endIndex {
      let byte = utf8[index]
      if byte == UInt8(ascii: "%"),
        let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
        let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
        let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        index = utf8.index(after: low)
        continue
      }
      bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
      index = utf8.index(after: index)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
