import Foundation
import SpotterServer
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A daemon listening beyond loopback lets in only clients that send its token: any other gets
/// one `error` event and the end of the stream, before a frame is read.
@Suite(.serialized) struct TokenTests {
  static let token = "3f9c2a7be1d84c06a5b7e2f19d3c8a40"

  static func freePort() throws -> UInt16 { try #require(Fixtures.freeTCPPort()) }

  @Test func onlyAClientWithTheTokenIsServed() throws {
    let folder = Fixtures.temporaryFolder("spotter-token")
    let tokenFile = folder + "/token"
    try (Self.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
    let port = try Self.freePort()
    let server = try DaemonTests.Server(extra: [
      "--listen", "0.0.0.0:\(port)", "--token-file", tokenFile,
    ])
    // Squats chosen in the header: the counts are the rep engine's.
    let file = DaemonTests.choosing(
      "squat", in: try DaemonTests.recording("squat", reps: 4, seed: 381))
    let lines = DaemonTests.lines(of: file)
    func header(token: String?) -> String {
      String(lines[0].dropLast()) + (token.map { #","token":""# + $0 + #"""# } ?? "") + "}"
    }
    /// The events a TCP client gets for `first`, then the recording's frames.
    func served(_ first: String) throws -> DaemonTests.Client {
      let client = try DaemonTests.Client(port: port)
      client.send(first)
      for line in lines.dropFirst() { client.send(line) }
      _ = client.finish()
      return client
    }
    let refusals = [
      (header(token: nil), "needs a token"),
      (header(token: String(Self.token.dropLast()) + "1"), "wrong token"),  // the last byte
      (header(token: String(Self.token.dropLast())), "wrong token"),
      (header(token: String(repeating: Self.token, count: 300)), "wrong token"),  // 9.6 KB
      (#"{"cmd":"stats"}"#, "must be a pose-file header"),
      (lines[1], "must be a pose-file header"),
    ]
    for (first, reason) in refusals {
      let client = try served(first)
      #expect(client.events.count == 1, "\(first.prefix(80)): \(client.lines)")
      #expect(client.events.first?["type"] as? String == "error")
      #expect((client.events.first?["message"] as? String)?.contains(reason) == true)
      #expect(!client.lines.joined().contains(Self.token.prefix(16)), "the token echoed")
    }
    // The right token: a session like any other, counted and stored.
    let welcome = try served(header(token: Self.token))
    #expect(
      welcome.events.filter { $0["type"] as? String == "rep" }.count == 4,
      "\(welcome.lines.prefix(5))")
    // On the Unix socket (this machine only), no token is asked for.
    let local = try DaemonTests.Client(socket: server.socket)
    local.stream(file)
    #expect(local.finish().filter { $0["type"] as? String == "rep" }.count == 4)
    server.waitForRecords(atLeast: 2)
    #expect(server.records.count == 2, "refused clients store nothing")
    #expect(server.stop() == 0)
  }

  /// Listening beyond loopback without a token is refused at the start, naming the fix; a
  /// token file that is too short is named.
  @Test func listeningBeyondLoopbackNeedsAGoodTokenFile() throws {
    let port = try Self.freePort()
    let bare = try SpotterProcess.run(["serve", "--no-socket", "--listen", "0.0.0.0:\(port)"])
    #expect(bare.status == 64, "\(bare.stderr)")
    #expect(bare.stderr.contains("--token-file"), "\(bare.stderr)")
    let short = Fixtures.temporaryFolder("spotter-token") + "/short"
    try "abc\n".write(toFile: short, atomically: true, encoding: .utf8)
    let weak = try SpotterProcess.run([
      "serve", "--no-socket", "--listen", "0.0.0.0:\(port)", "--token-file", short,
    ])
    #expect(weak.status == 1, "\(weak.stderr)")
    #expect(weak.stderr.contains("16 to 1,024"), "\(weak.stderr)")
    let both = try SpotterProcess.run(["serve", "--listen", "127.0.0.1:\(port)", "--port", "9"])
    #expect(both.status == 64 && both.stderr.contains("not both"), "\(both.stderr)")
  }
}
