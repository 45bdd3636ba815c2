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
      (#"{"cmd":"stats"}"#, "needs a token"),
      (#"{"cmd":"stats","token":"nope-nope-nope-nope"}"#, "wrong token"),
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

  /// Given a token, the daemon asks it of every TCP client, loopback included; `spotter status`
  /// sends it with its request. The counters are served in Prometheus' text format, to a
  /// request with the token as a bearer token, and they are those of `stats`.
  @Test func aTokenIsAskedOnLoopbackTooAndTheMetricsAreServed() throws {
    let folder = Fixtures.temporaryFolder("spotter-token")
    let tokenFile = folder + "/token"
    try (Self.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
    let (port, metricsPort) = (try Self.freePort(), try Self.freePort())
    let server = try DaemonTests.Server(extra: [
      "--port", "\(port)", "--token-file", tokenFile, "--metrics", "127.0.0.1:\(metricsPort)",
      "--workers", "2",
    ])
    let file = DaemonTests.choosing(
      "squat", in: try DaemonTests.recording("squat", reps: 4, seed: 383))
    let lines = DaemonTests.lines(of: file)
    for (token, reps) in [(nil, 0), (Self.token, 4)] {
      let client = try DaemonTests.Client(port: port)
      client.send(
        String(lines[0].dropLast()) + (token.map { #","token":""# + $0 + #"""# } ?? "") + "}")
      for line in lines.dropFirst() { client.send(line) }
      let events = client.finish()
      #expect(
        events.filter { $0["type"] as? String == "rep" }.count == reps, "\(client.lines.prefix(2))")
    }
    let status = try SpotterProcess.run(["status", "--port", "\(port)", "--token-file", tokenFile])
    let stats = try #require(DaemonTests.object(status.stdout), "\(status.stdout)")
    #expect(stats["type"] as? String == "stats")
    let refused = try SpotterProcess.run(["status", "--port", "\(port)"])
    #expect(refused.stdout.contains("needs a token"), "\(refused.stdout)")

    func get(_ head: String) throws -> String {
      let fd = try Socket.connectTCP(port: metricsPort)
      defer { close(fd) }
      let request = Array(head.utf8)
      _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      var reply: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while case let count = read(fd, &buffer, buffer.count), count > 0 {
        reply += buffer[..<count]
      }
      return String(decoding: reply, as: UTF8.self)
    }
    let anonymous = try get("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(anonymous.hasPrefix("HTTP/1.1 401"), "\(anonymous.prefix(80))")
    #expect(!anonymous.contains("spotter_frames_total"))
    let wrong = try get("GET /metrics HTTP/1.1\r\nAuthorization: Bearer nope\r\n\r\n")
    #expect(wrong.hasPrefix("HTTP/1.1 401"))
    #expect(try get("GET /other HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404"))
    let reply = try get(
      "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.token)\r\n\r\n")
    #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(reply.prefix(80))")
    #expect(reply.contains("Content-Type: text/plain; version=0.0.4"))
    let body = try #require(reply.components(separatedBy: "\r\n\r\n").last)
    // Prometheus' text format: each sample after its HELP and TYPE, a name (its family's,
    // with labels or not) and a number.
    var values: [String: Double] = [:]
    var typed: Set<String> = []
    for line in body.split(separator: "\n") {
      let parts = line.split(separator: " ")
      if line.hasPrefix("# TYPE ") {
        #expect(parts.count == 4 && ["counter", "gauge"].contains(String(parts[3])), "\(line)")
        typed.insert(String(parts[2]))
      } else if !line.hasPrefix("# HELP ") {
        let family = parts.first?.split(separator: "{").first.map(String.init) ?? ""
        #expect(parts.count == 2 && typed.contains(family), "\(line)")
        values[String(parts[0])] = Double(parts[1])
      }
    }
    #expect(values.count == 14 && values.values.allSatisfy { $0 >= 0 }, "\(values)")
    #expect(values[#"spotter_worker_connections{worker="1"}"#] == 0, "\(values)")
    #expect(values["spotter_frames_total"] == Double(lines.count - 1))
    #expect(values["spotter_sessions_finished_total"] == 1)
    #expect(values["spotter_errors_total"] ?? 0 >= 2, "the refused client and status")
    #expect(server.stop() == 0)
  }
}
