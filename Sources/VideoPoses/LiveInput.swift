/// What `spotter video` reads live rather than from a file: a camera or a network stream.
///
/// A camera is a V4L2 device, by path (`/dev/video0`, or a stable name such as
/// `/dev/v4l/by-id/usb-…-video-index0`) or by index (`0` for `/dev/video0`). A stream is a URL
/// OpenCV's FFmpeg reads (`rtsp://`, `http://`, `udp://`, …). Anything else is a file. A file
/// named like an index is read as one by its path (`./0`).
public enum LiveInput: Equatable, Sendable, CustomStringConvertible {
  case camera(String)
  case stream(String)

  /// The live source `argument` names, or nil for a file.
  public init?(_ argument: String) {
    if !argument.isEmpty && argument.allSatisfy(\.isASCIIDigit) || argument.hasPrefix("/dev/") {
      self = .camera(argument)
    } else if Self.hasScheme(argument) {
      self = .stream(argument)
    } else {
      return nil
    }
  }

  /// `scheme://`: a letter, then letters, digits, `+`, `-` or `.`, as RFC 3986 has it.
  private static func hasScheme(_ text: String) -> Bool {
    guard let end = text.range(of: "://")?.lowerBound, end > text.startIndex else { return false }
    let scheme = text[..<end]
    return scheme.first!.isLetter
      && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
  }

  /// The helper's argument: the path, the index or the URL as given.
  var argument: String {
    switch self {
    case .camera(let name), .stream(let name): name
    }
  }

  /// The camera's device (`/dev/video0` for `0`) or the stream's URL, its password left out:
  /// what messages, the report and the workout history call it.
  public var name: String {
    switch self {
    case .camera(let name): name.allSatisfy(\.isASCIIDigit) ? "/dev/video\(name)" : name
    case .stream(let url): Self.withoutPassword(url)
    }
  }

  /// `the camera /dev/video0`, `the stream rtsp://…`.
  public var description: String {
    switch self {
    case .camera: "the camera \(name)"
    case .stream: "the stream \(name)"
    }
  }

  /// `url` with the password of its user information (`rtsp://user:secret@host/…`, as IP
  /// cameras are often given) left out, for messages and the workout history.
  static func withoutPassword(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://")?.upperBound else { return url }
    let rest = url[schemeEnd...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":")
    else { return url }
    return String(url[..<colon]) + ":…" + String(url[at...])
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
