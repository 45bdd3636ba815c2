import Foundation

/// Where a JSON text stops being valid, for messages that say where to look: the decoder
/// only says that the data is not JSON, the parser says at which byte.
public enum JSONSyntax {
  /// "line L, column C" (both from 1) of the first error in `data`, or nil when it parses or
  /// the parser does not say where.
  public static func errorPlace(in data: Data) -> String? {
    do {
      _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
      return nil
    } catch let error as NSError {
      guard let description = error.userInfo[NSDebugDescriptionErrorKey] as? String,
        let marker = description.range(of: "around character "),
        let offset = Int(description[marker.upperBound...].prefix { $0.isNumber })
      else { return nil }
      var (line, column) = (1, 1)
      for byte in data.prefix(offset) {
        if byte == UInt8(ascii: "\n") {
          (line, column) = (line + 1, 1)
        } else if byte & 0xC0 != 0x80 {  // a character's first byte
          column += 1
        }
      }
      return "line \(line), column \(column)"
    }
  }
}
