import Foundation
import SpotterServer
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon sends what its served streams write: a stream sent to a real `spotter serve`
/// gives the bytes the same stream gives in-process, but for the lines whose place or content
/// is the server's moment (stats replies: the counters; `checkpoint` lines: when the history
/// stored them) and the session's random id.
@Suite(.serialized) struct DaemonBytesTests {
  /// Reads a socket to its end on a thread of its own, so the test can write meanwhile.
  final class Reader: @unchecked Sendable {
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ fd: Int32) {
      Thread.detachNewThread { [self] in
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
          let count = read(fd, &buffer, buffer.count)
          if count <= 0 { break }
          bytes += buffer[0..<count]
        }
        done.signal()
      }
    }

    func wait() -> [UInt8] {
      done.wait()
      return bytes
    }
  }

  /// The event lines, the session's id as `<uid>`, without stats replies and `checkpoint`
  /// lines.
  static func comparable(_ bytes: [UInt8]) -> [String] {
    var text = String(decoding: bytes, as: UTF8.self)
    if let id = text.firstMatch(of: #/"session":"([0-9a-f-]{36})"/#)?.output.1 {
      text = text.replacingOccurrences(of: String(id), with: "<uid>")
    }
    return Recordings.withoutCheckpoints(text.split(separator: "\n").map(String.init)).filter {
      !$0.hasPrefix(#"{"type":"stats""#)
    }
  }

  @Test func theDaemonSendsWhatItsStreamsWrite() throws {
    let port = try #require(Fixtures.freeTCPPort())
    let server = Process()
    server.executableURL = URL(fileURLWithPath: SpotterProcess.binary)
    server.arguments = [
      "serve", "--no-socket", "--port", "\(port)", "--no-history", "--predictions",
      "--backlog", "0", "--max-line", "4096", "--weights",
      Recordings.repository + "/Weights/default.spotter",
    ]
    server.standardError = FileHandle.nullDevice
    try server.run()
    defer {
      kill(server.processIdentifier, SIGTERM)
      server.waitUntilExit()
    }
    // Up to 20 s: loading the model takes longer on a machine busy with other work.
    var connected: Int32?
    for _ in 0..<1000 where connected == nil {
      connected = try? Socket.connectTCP(port: port)
      if connected == nil { usleep(20_000) }
    }
    let fd = try #require(connected)
    let reader = Reader(fd)
    let bytes = Array(ChunkTests.stream.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      sent += count
    }
    shutdown(fd, Int32(SHUT_WR))
    let daemon = Self.comparable(reader.wait())
    close(fd)

    let driver = StreamDriver(
      runtime: Recordings.predicting,
      settings: StreamDriver.settings(maxLineBytes: 4096, keepsHistory: false))
    driver.send(bytes, chunk: 65536)
    driver.end()
    #expect(daemon.count > 100)
    #expect(daemon == Self.comparable(driver.received))
  }
}
