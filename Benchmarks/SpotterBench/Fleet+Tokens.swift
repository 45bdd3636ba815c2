import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

extension Fleet {
  /// What a connection without the token tries first.
  enum Intruder: CaseIterable {
    case wrongToken, noToken, statsFirst

    var name: String {
      switch self {
      case .wrongToken: "wrong token"
      case .noToken: "no token"
      case .statsFirst: "stats first"
      }
    }

    /// Its first line, then frames: a pose stream's header with a wrong token or none, or a
    /// stats command.
    var lines: [UInt8] {
      let stream = Fixtures.squatFile(frames: 30).split(separator: "\n").map {
        Array($0.utf8) + [UInt8(ascii: "\n")]
      }
      let client = "fleet-\(getpid())-\(self)"
      let first: [UInt8]
      switch self {
      case .wrongToken:
        first = ServeLoad.named(stream[0], client: client, token: String(repeating: "0", count: 64))
      case .noToken: first = ServeLoad.named(stream[0], client: client)
      case .statsFirst: first = Array("{\"cmd\":\"stats\"}\n".utf8)
      }
      return first + stream.dropFirst().joined()
    }
  }

  /// Connections without the token, through the balancer (over TLS, by `connect`), `rounds` of
  /// each kind: each must get exactly one `error` event and then the end of the stream, before
  /// any of its frames is read. Prints what each kind got; true when every one got that alone.
  static func checkRefusals(rounds: Int, connect: () throws -> Int32) -> Bool {
    var passed = true
    var counts: [String] = []
    for intruder in Intruder.allCases {
      var refused = 0
      for _ in 0..<rounds {
        let (lines, ended) = exchange(intruder.lines, connect: connect)
        let types = lines.map {
          (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["type"]
            as? String
        }
        if ended && types == ["error"] {
          refused += 1
        } else {
          passed = false
          print(
            "\(intruder.name): got \(lines.count) lines\(ended ? "" : ", no end of stream in 10 s")"
              + ": \(lines.prefix(3).joined(separator: " "))")
        }
      }
      counts.append("\(intruder.name) \(refused) of \(rounds)")
    }
    print(
      "refused without the token  \(counts.joined(separator: ", ")): one error, then the end")
    print(
      passed
        ? "no connection without the token got anything but the error"
        : "a connection without the token got more than the error, or no end")
    return passed
  }

  /// Sends `bytes` on a new connection and reads what comes back until the end of the stream
  /// (or 10 s of silence): the lines, and whether the stream ended.
  static func exchange(_ bytes: [UInt8], connect: () throws -> Int32) -> (
    lines: [String], ended: Bool
  ) {
    guard let fd = try? connect() else { return (["(no connection)"], false) }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var ended = false
    while true {
      let count = read(fd, &buffer, buffer.count)
      if count > 0 {
        received += buffer[0..<count]
      } else {
        ended = count == 0
        break
      }
    }
    let lines = String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
    return (lines, ended)
  }
}
