import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The live page of a real `spotter classify --view` fed synthetic squats on standard input,
/// as `tail -f poses.jsonl | spotter classify --view …` is (BlazePose sees no stick figure, so
/// a camera cannot count them; the page is the same page).
@Suite(.serialized) struct LivePageTests {
  /// Synthetic squats, then a rest long enough for the set's end to be told while the stream
  /// is still open (the session waits for the movement to stop, then for a restart of the same
  /// exercise, before it tells the end: README, "How it works").
  static let squats: String = {
    let folder = Fixtures.temporaryFolder("live-page")
    let run = try? SpotterProcess.run([
      "synth", "--workout", "squat:8, rest:12", "--camera", "front", "--fps", "30", "--seed", "3",
      "--output", folder,
    ])
    precondition(run?.status == 0, "spotter synth failed: \(run?.stderr ?? "")")
    return folder + "/synth-000003.jsonl"
  }()

  /// `GET path` on 127.0.0.1:`port`: the status and the body (a stream's, up to `limit` bytes).
  static func get(_ path: String, port: Int, limit: Int = 1 << 20) throws -> (Int, String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(connected == 0, "cannot connect to port \(port)")
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while bytes.count < limit {
      let count = recv(fd, &buffer, buffer.count, 0)
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
  }

  /// The port `spotter` says its page is on (`Live page: http://HOST:PORT/`), once it has.
  static func pagePort(_ running: RunningProcess) throws -> Int {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if let found = running.standardError.firstMatch(of: /Live page: http:\/\/[0-9.]+:([0-9]+)\//)
      {
        return Int(found.1)!
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    try #require(Bool(false), "no page address: \(running.standardError)")
    return 0
  }

  static func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  /// The page's count is the session's: the count of its last rep event, while the stream is
  /// still open; the same in its first `state` update; and the page itself fetches nothing.
  @Test func thePagesCountIsTheSessions() throws {
    let running = try RunningProcess(["classify", "--json", "--view", "127.0.0.1:0", "-"])
    let port = try Self.pagePort(running)
    running.write(try String(contentsOfFile: Self.squats, encoding: .utf8))
    // The events the stream's frames gave, up to the end of the set.
    var reps = 0
    while let line = running.nextLine(timeout: 30) {
      let event = try Self.json(line)
      if event["type"] as? String == "rep" { reps = event["count"] as? Int ?? reps }
      if event["type"] as? String == "exercise_ended" { break }
    }
    try #require(reps >= 6, "the squats were not counted")

    let (status, body) = try Self.get("/state", port: port)
    #expect(status == 200)
    let state = try Self.json(body)
    #expect(state["status"] as? String == "live")
    #expect(state["exercise"] is NSNull)
    #expect((state["last_set"] as? [String: Any])?["reps"] as? Int == reps)
    let sets = try #require(state["sets"] as? [[String: Any]])
    #expect(sets.count == 1 && sets[0]["exercise"] as? String == "squat")
    #expect(sets[0]["reps"] as? Int == reps)

    // The updates: the state first, then the newest frame's pose.
    let (_, events) = try Self.get("/events", port: port, limit: 2000)
    let first = try #require(
      events.components(separatedBy: "event: state\ndata: ").dropFirst().first)
    let streamed = try Self.json(String(first.prefix { $0 != "\n" }))
    #expect(streamed["sets"] as? NSArray == state["sets"] as? NSArray)

    let (pageStatus, page) = try Self.get("/", port: port)
    #expect(pageStatus == 200 && page.contains("id=\"count\"") && page.contains("EventSource"))
    for fetched in ["http://", "https://", "src=\"//", "@import"] {
      #expect(!page.contains(fetched), "the page fetches \(fetched)")
    }
    #expect(try Self.get("/nothing", port: port).0 == 404)

    running.closeInput()
    let rest = running.remainingLines(timeout: 30)
    #expect(running.waitForExit(timeout: 10) == 0)
    #expect(rest.contains { $0.contains("\"type\":\"summary\"") })
  }

  /// Beyond loopback the page asks for its token, and without one the command will not serve.
  @Test func beyondLoopbackThePageNeedsItsToken() throws {
    let folder = Fixtures.temporaryFolder("live-page")
    let refused = try SpotterProcess.run(
      ["classify", "--view", "0.0.0.0:0", "-"], stdin: "")
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("--view-token-file"), "\(refused.stderr)")

    let token = "0123456789abcdef0123"
    try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/token"))
    let running = try RunningProcess([
      "classify", "--view", "0.0.0.0:0", "--view-token-file", folder + "/token", "-",
    ])
    let port = try Self.pagePort(running)
    #expect(!running.standardError.contains(token), "the token is never printed")
    #expect(try Self.get("/", port: port).0 == 403)
    #expect(try Self.get("/state?token=wrong", port: port).0 == 403)
    #expect(try Self.get("/state?token=\(token)", port: port).0 == 200)
    #expect(try Self.get("/?token=\(token)", port: port).0 == 200)
    running.write(try String(contentsOfFile: Self.squats, encoding: .utf8))
    running.closeInput()
    #expect(running.waitForExit(timeout: 10) == 0)
  }

  /// Ctrl-C ends a piped session shown on a page as the end of its stream would: the summary,
  /// and exit 0 (the page's browsers are told it ended).
  @Test func ctrlCEndsAPipedSessionWithItsSummary() throws {
    let running = try RunningProcess(["classify", "--json", "--view", "127.0.0.1:0", "-"])
    _ = try Self.pagePort(running)
    running.write(try String(contentsOfFile: Self.squats, encoding: .utf8))
    try #require(running.nextLine(timeout: 30) != nil, "\(running.standardError)")
    kill(running.process.processIdentifier, SIGINT)
    let rest = running.remainingLines(timeout: 30)
    #expect(running.waitForExit(timeout: 10) == 0, "\(running.standardError)")
    #expect(rest.last?.contains("\"type\":\"summary\"") == true, "\(rest)")
  }
}
