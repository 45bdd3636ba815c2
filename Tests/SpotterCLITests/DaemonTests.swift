import Foundation
import SpotterServer
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter serve` as a real process, with real clients on a Unix socket.
@Suite(.serialized) struct DaemonTests {
  final class Server: @unchecked Sendable {
    let process = Process()
    let socket: String
    let history: String
    /// The daemon's `--state-dir` (its spool).
    let stateFolder: String

    /// `backlog` 0 keeps every frame, so what a test sees does not depend on how busy the
    /// machine is (a server that falls behind drops the older frames of its backlog). The
    /// history is an SQLite file of the test's own unless given; so is the state folder.
    init(
      extra: [String] = [], backlog: Int = 0, history: String? = nil, stateFolder: String? = nil
    ) throws {
      let folder = Fixtures.temporaryFolder("spotter-serve")
      socket = folder + "/s.sock"
      self.history = history ?? folder + "/history.sqlite"
      self.stateFolder = stateFolder ?? folder + "/state"
      process.executableURL = URL(fileURLWithPath: SpotterProcess.binary)
      process.arguments =
        [
          "serve", "--socket", socket, "--history", self.history, "--state-dir", self.stateFolder,
          "--weights", repositoryRoot + "/Weights/default.spotter", "--backlog", "\(backlog)",
        ] + extra
      process.standardError = FileHandle.nullDevice
      try process.run()
      // Up to 20 s: loading the model takes longer on a machine busy with other work.
      for _ in 0..<1000 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
    }

    /// A test that fails before stopping its server must not leave it running: the test run
    /// would wait for it forever.
    deinit {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }

    func stop() -> Int32 {
      if process.isRunning { kill(process.processIdentifier, SIGTERM) }
      process.waitUntilExit()
      return process.terminationStatus
    }

    /// Returns once the history holds `count` sessions, or after about 20 s.
    func waitForRecords(atLeast count: Int) {
      var polls = 0
      while records.count < count && polls < 200 {
        usleep(100_000)
        polls += 1
      }
    }

    /// The stored sessions, oldest first, as `spotter history --json` prints them.
    var records: [[String: Any]] {
      guard history.hasPrefix("postgresql://") || FileManager.default.fileExists(atPath: history),
        let listed = try? SpotterProcess.run([
          "history", "--history", history, "--json", "--limit", "10000",
        ])
      else { return [] }
      return listed.stdout.split(separator: "\n").reversed().compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }
  }

  /// A client: sends lines, collects the event lines the server sends back.
  final class Client: @unchecked Sendable {
    let fd: Int32
    private var received = Data()
    private var failedRead: Int32 = 0
    private let lock = NSLock()
    private let reader = DispatchGroup()

    /// A client of the server's TCP listener on 127.0.0.1:`port`.
    convenience init(port: UInt16) throws {
      self.init(connected: try Socket.connectTCP(port: port))
    }

    init(connected fd: Int32, read: Bool = true) {
      self.fd = fd
      guard read else { return }
      startReading()
    }

    init(socket: String, read: Bool = true) throws {
      fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in Array(socket.utf8).enumerated() { raw[index] = byte }
      }
      let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      guard result == 0 else {
        close(fd)
        throw DaemonTestError.connect
      }
      guard read else { return }
      startReading()
    }

    private func startReading() {
      reader.enter()
      Thread.detachNewThread { [self] in
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
          let count = Glibc.read(fd, &buffer, buffer.count)
          if count < 0 { lock.withLock { failedRead = errno } }
          if count <= 0 { break }
          lock.withLock { received.append(contentsOf: buffer[0..<count]) }
        }
        reader.leave()
      }
    }

    func send(_ line: String) {
      let bytes = Array((line + "\n").utf8)
      var sent = 0
      while sent < bytes.count {
        // MSG_NOSIGNAL: a server that has gone away must fail this send, not kill the tests.
        let count = bytes.withUnsafeBytes {
          Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
        }
        if count <= 0 { return }
        sent += count
      }
    }

    /// Sends a whole pose file, pacing frames at `speed` times real time.
    func stream(_ path: String, speed: Double = 8, stopAfter fraction: Double = 1) {
      let lines = DaemonTests.lines(of: path)
      send(lines[0])
      let frames = lines.dropFirst()
      for line in frames.prefix(Int(Double(frames.count) * fraction)) {
        send(line)
        usleep(useconds_t(1_000_000 / 30 / speed))
      }
    }

    /// Ends the sending side and waits for the server to finish; returns the events.
    func finish() -> [[String: Any]] {
      shutdown(fd, Int32(SHUT_WR))
      _ = reader.wait(timeout: .now() + 30)
      close(fd)
      return events
    }

    var events: [[String: Any]] { lines.compactMap(DaemonTests.object) }

    /// The `errno` of the read that ended the stream of events; 0 when the server ended it
    /// cleanly (the end of the stream).
    var readError: Int32 { lock.withLock { failedRead } }

    /// The event lines as received, without the daemon's own about the session (`session`,
    /// `checkpoint`), which no other surface sends.
    var lines: [String] {
      allLines.filter {
        !$0.hasPrefix(#"{"type":"session","#) && !$0.hasPrefix(#"{"type":"checkpoint","#)
      }
    }

    /// Every line as received.
    var allLines: [String] {
      lock.withLock {
        String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
      }
    }
  }

  enum DaemonTestError: Error { case connect }

  /// A signal from one thread to others that it has happened.
  final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
  }

  static func recording(_ exercise: String, reps: Int, seed: Int) throws -> String {
    let folder = Fixtures.temporaryFolder("spotter-serve-data")
    let result = try SpotterProcess.run([
      "synth", "--output", folder, "--exercise", exercise, "--reps", "\(reps)", "--camera", "front",
      "--seed", "\(seed)",
    ])
    #expect(result.status == 0)
    return folder + "/synth-\(String(format: "%06d", seed)).jsonl"
  }

  /// Two people in one picture (they walk in past each other): one squats, one does jumping
  /// jacks. Returns the pose file's path.
  static func group(seed: Int) throws -> String {
    let folder = Fixtures.temporaryFolder("spotter-serve-group")
    let result = try SpotterProcess.run([
      "synth", "--output", folder, "--workout", "squat:8, rest:3", "--workout",
      "jumping_jack:12, rest:3", "--camera", "front", "--seed", "\(seed)",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return folder + "/group-\(String(format: "%06d", seed)).jsonl"
  }

  /// The event lines `spotter classify --json --predictions` writes for `file`.
  static func classified(_ file: String) throws -> [String] {
    let classified = try SpotterProcess.run([
      "classify", "--json", "--predictions", "--weights",
      repositoryRoot + "/Weights/default.spotter", file,
    ])
    #expect(classified.status == 0, "\(classified.stderr)")
    return classified.stdout.split(separator: "\n").map(String.init)
  }

  /// A copy of `file` whose header chooses `exercise` (`"exercise": "squat"`, after any
  /// `keys` given as `"key":value,…`): the daemon counts it from the first frame with no
  /// classifier, as `spotter count` does, so its counts are the rep engine's.
  static func choosing(_ exercise: String, in file: String, keys: String = "") -> String {
    var lines = Self.lines(of: file)
    lines[0] =
      String(lines[0].dropLast()) + (keys.isEmpty ? "" : "," + keys) + #","exercise":""#
      + exercise + #""}"#
    return Fixtures.file(named: "chosen.jsonl", lines.joined(separator: "\n") + "\n")
  }

  /// The event lines `spotter count --exercise NAME --json` writes for `file`.
  static func counted(_ file: String, exercise: String) throws -> [String] {
    let counted = try SpotterProcess.run(["count", "--exercise", exercise, "--json", file])
    #expect(counted.status == 0, "\(counted.stderr)")
    return counted.stdout.split(separator: "\n").map(String.init)
  }

  /// The lines of a pose file.
  static func lines(of file: String) -> [String] {
    String(decoding: FileManager.default.contents(atPath: file)!, as: UTF8.self)
      .split(separator: "\n").map(String.init)
  }

  static func object(_ line: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }

  static func summary(_ events: [[String: Any]]) -> [String: Int] {
    guard let summary = events.last(where: { $0["type"] as? String == "summary" }),
      let exercises = summary["exercises"] as? [String: [String: Any]]
    else { return [:] }
    return exercises.mapValues { $0["reps"] as? Int ?? -1 }
  }

  /// Streams through the daemon, three at once (so their predictions are often due in the
  /// same round, and made together), each give the event lines `spotter classify --json`
  /// writes for the same file, byte for byte, predictions included (the summary adds the
  /// daemon's drop counters, so its reps are compared instead).
  /// With one worker or two (the streams spread over both), the same events.
  @Test(arguments: [1, 2]) func streamsGetTheEventsOfClassify(workers: Int) throws {
    let files = try [("jumping_jack", 8, 307), ("squat", 6, 308), ("jumping_jack", 8, 309)].map {
      try Self.recording($0.0, reps: $0.1, seed: $0.2)
    }
    let expected = try files.map(Self.classified)
    let server = try Server(extra: ["--predictions", "--workers", "\(workers)"])
    let clients = try files.map { _ in try Client(socket: server.socket) }
    DispatchQueue.concurrentPerform(iterations: files.count) { index in
      clients[index].stream(files[index], speed: 4)
    }
    for (index, client) in clients.enumerated() {
      let served = client.finish()
      #expect(served.last?["dropped_frames"] as? Int == 0)
      #expect(expected[index].filter { $0.contains(#""type":"prediction""#) }.count > 20)
      #expect(client.lines.dropLast() == expected[index].dropLast(), "stream \(index)")
      #expect(
        Self.summary(served) == Self.summary(expected[index].suffix(1).compactMap(Self.object)))
    }
    #expect(server.stop() == 0)
  }

  /// A stream sent whole, in one write, gives the events of classify too: the server reads it
  /// in bursts of hundreds of frames, far more than a session holds while its prediction waits
  /// for the end of the round.
  /// Byte for byte, bad lines' errors included, in their place among the events (their
  /// messages name the connection instead of the file).
  @Test(arguments: [false, true])
  func aStreamSentAtOnceGetsTheEventsOfClassify(withBadLines: Bool) throws {
    var lines = Self.lines(of: try Self.recording("squat", reps: 8, seed: 361))
    let badLines = withBadLines ? Array(stride(from: lines.count - 1, to: 1, by: -97)) : []
    for index in badLines { lines.insert("oops", at: index) }
    let file = Fixtures.file(named: "at-once.jsonl", lines.joined(separator: "\n") + "\n")
    let expected = try Self.classified(file).map(Self.placeOfError)
    let server = try Server(extra: ["--predictions"])
    let client = try Client(socket: server.socket)
    client.send(lines.joined(separator: "\n"))
    let served = client.finish()
    #expect(served.last?["dropped_frames"] as? Int == 0)
    #expect(expected.filter { $0.contains(#""type":"prediction""#) }.count > 20)
    #expect(expected.filter { $0.hasPrefix("error") }.count == badLines.count)
    #expect(client.lines.map(Self.placeOfError).dropLast() == expected.dropLast())
    #expect(Self.summary(served) == Self.summary(expected.suffix(1).compactMap(Self.object)))
    #expect(server.stop() == 0)
  }

  /// An `error` event as its line number alone; any other line as it is.
  static func placeOfError(_ line: String) -> String {
    guard let object = object(line), object["type"] as? String == "error" else { return line }
    return "error at line \(object["line"] as? Int ?? -1)"
  }

  /// A stream without `t` times its frames by their index: a frame dropped as late and a line
  /// skipped as too long still count, so the frames after them keep their times (the summary
  /// ends where classify's does), and the skipped line is a bad line, as in classify.
  @Test func aStreamWithoutTimesKeepsItsClockThroughDroppedAndSkippedLines() throws {
    var lines = Self.lines(of: try Self.recording("squat", reps: 6, seed: 362))
    for index in lines.indices.dropFirst() {
      lines[index] = "{" + lines[index].drop { $0 != "," }.dropFirst()  // {"t":…, dropped
    }
    lines[lines.count / 2] = String(repeating: "x", count: 5000)
    let file = Fixtures.file(named: "untimed.jsonl", lines.joined(separator: "\n") + "\n")
    let expected = try #require(Self.object(try Self.classified(file).last!))
    let server = try Server(extra: ["--max-line", "4096"], backlog: 2)
    let client = try Client(socket: server.socket)
    client.send(lines.joined(separator: "\n"))
    let summary = try #require(client.finish().last { $0["type"] as? String == "summary" })
    #expect((summary["dropped_frames"] as? Int ?? 0) > 0, "\(summary)")
    #expect(summary["t"] as? Double == expected["t"] as? Double, "\(summary)")
    #expect(expected["bad_lines"] as? Int == 1)
    #expect(summary["bad_lines"] as? Int == 1, "\(summary)")
    #expect(server.stop() == 0)
  }

  /// Frames that arrive together beyond the backlog are dropped and counted: 300 frames
  /// written at once are read far more than 2 at a time. With no backlog (0), every one of
  /// them is kept.
  @Test(arguments: [2, 0]) func framesBeyondTheBacklogAreDroppedAndCounted(backlog: Int) throws {
    let file = try Self.recording("squat", reps: 4, seed: 311)
    let lines = Self.lines(of: file)
    let server = try Server(backlog: backlog)
    let client = try Client(socket: server.socket)
    client.send(lines.prefix(301).joined(separator: "\n"))  // the header and 300 frames
    let summary = client.finish().last { $0["type"] as? String == "summary" }
    let dropped = summary?["dropped_frames"] as? Int
    if backlog == 0 {
      #expect(dropped == 0)
    } else {
      #expect((dropped ?? 0) > 0 && (dropped ?? 0) < 300, "\(String(describing: summary))")
    }
    #expect(server.stop() == 0)
  }

  /// Three clients at once, each choosing its exercise, each get their own stream's counts:
  /// what `spotter count` gives for that stream.
  @Test func concurrentClientsEachGetTheirOwnCounts() throws {
    let server = try Server()
    let plans = [("squat", 6, 301), ("jumping_jack", 8, 302), ("bicep_curl", 6, 303)]
    let files = try plans.map { try Self.recording($0.0, reps: $0.1, seed: $0.2) }
    let chosen = zip(plans, files).map { Self.choosing($0.0, in: $1) }
    let clients = try files.map { _ in try Client(socket: server.socket) }
    DispatchQueue.concurrentPerform(iterations: clients.count) { index in
      clients[index].stream(chosen[index])
    }
    for ((client, plan), file) in zip(zip(clients, plans), files) {
      let summary = Self.summary(client.finish())
      let expected = Self.summary(
        try Self.counted(file, exercise: plan.0).suffix(1).compactMap(Self.object))
      #expect(summary == expected && (summary[plan.0] ?? 0) > 0, "\(plan.0): \(summary)")
    }
    #expect(server.stop() == 0)
    #expect(server.records.count == 3)
  }

  @Test func garbageAndOversizedLinesGetErrorsAndTheSessionGoesOn() throws {
    let server = try Server(extra: ["--max-line", "4096"])
    let client = try Client(socket: server.socket)
    client.send("this is not a header")
    client.send(#"{"spotter":"poses","version":1,"layout":"coco17"}"#)
    client.send("{broken json")
    client.send(String(repeating: "x", count: 100_000))
    client.send(#"{"t":0.1,"pose":null}"#)
    let events = client.finish()
    let errors = events.filter { $0["type"] as? String == "error" }
    #expect(errors.count == 3, "\(events)")
    #expect(events.last?["bad_lines"] as? Int == 3, "each line skipped is a bad line")
    #expect(
      (errors.first?["message"] as? String)?.contains("the first line must be a pose-file header")
        == true)
    #expect(
      errors.contains {
        ($0["message"] as? String)?.contains("100000 bytes long; the limit is 4096") == true
          && $0["line"] as? Int == 4
      })
    #expect(events.last?["type"] as? String == "summary")
    #expect(server.stop() == 0)
  }

  /// Until a header comes, each line is tried as one. The first says what is wrong with it as
  /// a header; frames after it, that the stream has no header. Each error names its own line,
  /// in its message as in its `line`, and once a header comes, the summary counts them.
  @Test func linesBeforeTheHeaderAreEachNamed() throws {
    let server = try Server()
    let client = try Client(socket: server.socket)
    client.send(#"{"t":0.1,"pose":null}"#)
    client.send(#"{"t":0.2,"pose":null}"#)
    client.send(#"{"t":0.3,"pose":null}"#)
    client.send(#"{"spotter":"poses","version":1,"layout":"coco17"}"#)
    client.send(#"{"t":0.4,"pose":null}"#)
    let events = client.finish()
    let errors = events.filter { $0["type"] as? String == "error" }
    #expect(errors.map { $0["line"] as? Int } == [1, 2, 3], "\(events)")
    for error in errors {
      let message = error["message"] as? String ?? ""
      let line = error["line"] as? Int ?? 0
      #expect(message.hasPrefix("connection 1:\(line): "), "\(error)")
      let expected = line == 1 ? "the stream starts with a frame" : "the stream has no header"
      #expect(message.contains(expected), "\(error)")
    }
    #expect(events.last?["type"] as? String == "summary")
    #expect(events.last?["bad_lines"] as? Int == 3)
    #expect(server.stop() == 0)
  }

  /// A connection over `--max-connections` reads its refusal and then the end of the stream,
  /// though it sent its header before the server took it (the server is stopped meanwhile): a
  /// server that closed the socket with the header unread would reset the connection.
  @Test func aRefusedClientReadsItsRefusalAndAnEnd() throws {
    let server = try Server(extra: ["--max-connections", "1"])
    let holder = try Client(socket: server.socket)
    holder.send(#"{"cmd":"stats"}"#)  // answered once the server has taken the connection
    for _ in 0..<1000 where holder.lines.isEmpty { usleep(20_000) }
    #expect(holder.lines.count == 1)
    kill(server.process.processIdentifier, SIGSTOP)
    let refused = try Client(socket: server.socket)
    refused.send(#"{"spotter":"poses","version":1,"layout":"coco17"}"#)
    refused.send(#"{"t":0,"pose":null}"#)
    kill(server.process.processIdentifier, SIGCONT)
    let events = refused.finish()
    #expect(events.count == 1)
    #expect(
      (events.first?["message"] as? String)?.hasPrefix("too many connections (1)") == true,
      "\(events)")
    #expect(refused.readError == 0, "read failed: \(String(cString: strerror(refused.readError)))")
    _ = holder.finish()
    #expect(server.stop() == 0)
  }

  /// A client gone mid-set (squats chosen in its header) is stored with the reps it got to.
  @Test func aClientThatDisconnectsMidStreamIsSummarisedIntoTheHistory() throws {
    let server = try Server()
    let file = Self.choosing("squat", in: try Self.recording("squat", reps: 8, seed: 311))
    let client = try Client(socket: server.socket)
    client.stream(file, speed: 10, stopAfter: 0.6)
    shutdown(client.fd, Int32(SHUT_RDWR))  // gone, mid-set (and its reader thread woken)
    close(client.fd)
    for _ in 0..<100 where server.records.isEmpty { usleep(50_000) }
    let records = server.records
    #expect(records.count == 1)
    let reps =
      (records.first?["exercises"] as? [String: [String: Any]])?["squat"]?["reps"] as? Int ?? 0
    #expect(reps >= 2 && reps < 8, "\(records)")
    #expect(server.stop() == 0)
  }

  /// A client that never reads holds up no one: another client (jumping jacks chosen in its
  /// header) gets its whole count meanwhile.
  @Test func aSlowReaderStallsNobodyElse() throws {
    let server = try Server()
    let recorded = try Self.recording("jumping_jack", reps: 6, seed: 321)
    let file = Self.choosing("jumping_jack", in: recorded)
    let sleeper = try Client(socket: server.socket, read: false)  // sends, never reads
    sleeper.send(#"{"spotter":"poses","version":1,"layout":"coco17"}"#)
    for index in 0..<2000 { sleeper.send(#"{"t":\#(Double(index) / 30),"pose":null}"#) }
    let client = try Client(socket: server.socket)
    client.stream(file, speed: 8)
    // A server stalled by the sleeper would send nothing before `finish` stops waiting.
    let summary = Self.summary(client.finish())
    let counted = Self.summary(
      try Self.counted(recorded, exercise: "jumping_jack").suffix(1).compactMap(Self.object))
    #expect(summary == counted && summary["jumping_jack"] == 6, "\(summary)")
    close(sleeper.fd)
    #expect(server.stop() == 0)
  }

  @Test func sigtermSummarisesOpenSessionsAndExitsZero() throws {
    let server = try Server()
    let file = try Self.recording("squat", reps: 6, seed: 331)
    let clients = try (0..<3).map { _ in try Client(socket: server.socket) }
    DispatchQueue.concurrentPerform(iterations: 3) { index in
      clients[index].stream(file, speed: 10, stopAfter: 0.7)
    }
    #expect(server.stop() == 0)  // sessions still open
    #expect(server.records.count == 3)
    for client in clients { #expect(client.finish().last?["type"] as? String == "summary") }
  }

  @Test func theHistoryOpensWholeAfterSigkillDuringHeavyWriting() throws {
    let server = try Server()
    // Many short sessions, each appended to the history as it ends, while the server is killed.
    // The writers go on until the kill; the kill waits until sessions are being stored, however
    // busy the machine is (up to 20 s).
    let writers = DispatchGroup()
    let socket = server.socket
    let killed = Flag()
    for _ in 0..<8 {
      writers.enter()
      Thread.detachNewThread {
        for round in 0..<10_000 where !killed.isSet {
          guard Self.shortSession(socket: socket, t: Double(round)) else { break }
        }
        writers.leave()
      }
    }
    server.waitForRecords(atLeast: 5)
    kill(server.process.processIdentifier, SIGKILL)
    server.process.waitUntilExit()
    killed.set()
    _ = writers.wait(timeout: .now() + 10)
    let integrity = try SpotterProcess.run([
      "history", "--history", server.history, "--limit", "1000",
    ])
    #expect(integrity.status == 0, "\(integrity.stderr)")
    #expect(server.records.count > 0)
    for record in server.records {
      #expect(record["source"] as? String != nil && record["exercises"] as? [String: Any] != nil)
    }
  }

  @Test func aStormOfShortConnectionsIsServedWholeAndRefusesNone() throws {
    let server = try Server()
    // Clients that connect, send a frame and hang up faster than the loop accepts them. A loop
    // that accepted until none waited would serve no one meanwhile, and refuse connections
    // beyond its limit of open ones (1,024) while the accepted ones waited to be served.
    let socket = server.socket
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for round in 0..<300 { _ = Self.shortSession(socket: socket, t: Double(round)) }
    }
    // Stopped at once, the server would drop the connections still waiting to be accepted.
    server.waitForRecords(atLeast: 2400)
    #expect(server.stop() == 0)
    #expect(server.records.count == 2400)
  }

  /// Connects, sends a header and one frame with nobody in it, and hangs up without reading.
  /// False when the server could not be reached.
  static func shortSession(socket: String, t: Double) -> Bool {
    guard let client = try? Client(socket: socket, read: false) else { return false }
    client.send(#"{"spotter":"poses","version":1,"layout":"coco17"}"#)
    client.send(#"{"t":\#(t),"pose":null}"#)
    close(client.fd)
    return true
  }

  /// The history keeps the stream's client id with its sets and their reps: those `spotter
  /// count` reports for the same stream (squats chosen in its header).
  @Test func aStreamsClientIdIsStoredWithItsSetsAndReps() throws {
    let server = try Server()
    let file = try Self.recording("squat", reps: 6, seed: 341)
    let client = try Client(socket: server.socket)
    let named = Self.choosing("squat", in: file, keys: #""client":"bench-7""#)
    let ended = try Self.counted(file, exercise: "squat").compactMap(Self.object).filter {
      $0["type"] as? String == "exercise_ended"
    }
    client.stream(named)
    #expect((Self.summary(client.finish())["squat"] ?? 0) > 0)
    #expect(server.stop() == 0)
    let records = server.records
    #expect(records.count == 1)
    #expect(records.first?["person"] as? String == "bench-7")
    let id = try #require(records.first?["id"] as? Int)
    let session = try SpotterProcess.run([
      "history", "--history", server.history, "--session", "\(id)", "--json",
    ])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(session.stdout.utf8)) as? [String: Any])
    let sets = try #require(object["sets"] as? [[String: Any]])
    #expect(sets.map { $0["exercise"] as? String } == ended.map { $0["exercise"] as? String })
    #expect(sets.map { ($0["reps"] as? [Any])?.count } == ended.map { $0["reps"] as? Int })
    #expect(ended.map { $0["exercise"] as? String } == ["squat"])
  }

  /// A name the history could not store whole (a NUL inside: `"a\u0000b"` was stored as `a`)
  /// is refused with an error on line 1; the session is stored, without a name.
  @Test func aClientIdWithAControlCharacterIsRefusedNotCut() throws {
    let server = try Server()
    let file = try Self.recording("squat", reps: 3, seed: 342)
    var lines = Self.lines(of: file)
    lines[0] = String(lines[0].dropLast()) + #","client":"a\u0000b"}"#
    let client = try Client(socket: server.socket)
    client.stream(Fixtures.file(named: "nul.jsonl", lines.joined(separator: "\n") + "\n"))
    let events = client.finish()
    let error = events.first { $0["type"] as? String == "error" }
    #expect(error?["line"] as? Int == 1)
    #expect((error?["message"] as? String)?.contains("control character") == true, "\(events)")
    #expect(events.last?["type"] as? String == "summary")
    #expect(server.stop() == 0)
    #expect(server.records.count == 1)
    #expect(server.records.first?["person"] as? String == nil, "\(server.records)")
  }

  /// A stream's header may name its own goals; a bad one is an error on line 1, and the stream
  /// goes on with the server's (none here). The header chooses squats, so the counts are the
  /// rep engine's: those of `spotter count`.
  @Test func aStreamsHeaderGoalEndsItsSet() throws {
    let server = try Server()
    let recorded = try Self.recording("squat", reps: 8, seed: 351)
    let file = Self.choosing("squat", in: recorded)
    var lines = Self.lines(of: file)
    let header = lines[0]
    func events(goal: String) throws -> [[String: Any]] {
      lines[0] = String(header.dropLast()) + #","goal":"# + goal + "}"
      let client = try Client(socket: server.socket)
      client.stream(Fixtures.file(named: "goal.jsonl", lines.joined(separator: "\n") + "\n"))
      return client.finish()
    }
    let reached = try events(goal: #"["squat:5"]"#)
    let goal = reached.first { $0["type"] as? String == "goal_reached" }
    #expect(goal?["goal"] as? String == "squat:5", "\(reached)")
    #expect(Self.summary(reached)["squat"] == 5)
    let bad = try events(goal: #""squat:lots""#)
    let error = bad.first { $0["type"] as? String == "error" }
    #expect(error?["line"] as? Int == 1)
    #expect((error?["message"] as? String)?.contains("squat:lots") == true, "\(bad)")
    #expect(Self.summary(bad)["squat"] == 8)
    let counted = try Self.counted(recorded, exercise: "squat").suffix(1).compactMap(Self.object)
    #expect(Self.summary(bad) == Self.summary(counted))
    #expect(server.stop() == 0)
  }

  /// Several people in one stream (`serve --people 2`, or `"people": N` in the header): each
  /// person's events carry their id, and are what `spotter classify --people 2` gives on the
  /// same file, whatever the model makes of them; the history keeps a session per person. A
  /// bad "people" is an error on line 1, and the stream follows one person.
  @Test func aStreamOfTwoPeopleIsCountedPerPerson() throws {
    let file = try Self.group(seed: 31)
    let weights = repositoryRoot + "/Weights/default.spotter"
    let classified = try SpotterProcess.run([
      "classify", "--people", "2", "--json", "--weights", weights, file,
    ])
    #expect(classified.status == 0, "\(classified.stderr)")
    let expected = classified.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let server = try Server(extra: ["--people", "2"])
    var lines = Self.lines(of: file)
    let header = lines[0]
    func stream(_ keys: String, fraction: Double = 1) throws -> [[String: Any]] {
      lines[0] = String(header.dropLast()) + keys + "}"
      let client = try Client(socket: server.socket)
      client.stream(
        Fixtures.file(named: "people.jsonl", lines.joined(separator: "\n") + "\n"), speed: 6,
        stopAfter: fraction)
      return client.finish()
    }
    // What each person did: their reps as counted, and their summary.
    func byPerson(_ events: [[String: Any]]) -> [Int: [String]] {
      var seen: [Int: [String]] = [:]
      for event in events {
        guard let person = event["person"] as? Int, let type = event["type"] as? String else {
          continue
        }
        if type == "rep" {
          seen[person, default: []].append("\(event["exercise"]!) \(event["count"]!)")
        } else if type == "summary" {
          seen[person, default: []].append(
            "summary \(Self.summary([event]).sorted { $0.key < $1.key })")
        }
      }
      return seen
    }
    let served = try stream(#","client":"mirror""#)
    #expect(served.allSatisfy { $0["person"] as? Int != nil }, "an event without its person")
    #expect(Set(served.compactMap { $0["person"] as? Int }) == [1, 2])
    let summaries = served.filter { $0["type"] as? String == "summary" }
    #expect(summaries.count == 2 && summaries.allSatisfy { $0["dropped_frames"] as? Int == 0 })
    #expect(byPerson(served) == byPerson(expected), "\(served)")
    #expect(Set(byPerson(served).keys) == [1, 2], "a summary each: \(served)")

    let one = try stream(#","people":1"#, fraction: 0.3)
    #expect(one.allSatisfy { $0["person"] == nil }, "\(one)")
    #expect(one.last?["type"] as? String == "summary")
    let bad = try stream(#","people":"lots""#, fraction: 0.3)
    let error = bad.first { $0["type"] as? String == "error" }
    #expect(error?["line"] as? Int == 1)
    #expect(
      (error?["message"] as? String)?.hasPrefix(#"header "people" is "lots"; expected"#) == true,
      "\(bad)")
    #expect(bad.allSatisfy { $0["person"] == nil } && bad.last?["type"] as? String == "summary")
    #expect(server.stop() == 0)

    let records = server.records
    #expect(records.count == 4)
    for person in [1, 2] {
      let record = records.first { $0["person"] as? String == "mirror/\(person)" }
      let stored = (record?["exercises"] as? [String: [String: Any]])?.mapValues {
        $0["reps"] as? Int ?? -1
      }
      let summary = summaries.first { $0["person"] as? Int == person }.map { Self.summary([$0]) }
      #expect(stored != nil && stored == summary, "person \(person): \(records)")
    }
  }

  @Test func aLastLineWithoutItsNewlineIsStillRead() throws {
    let server = try Server()
    let client = try Client(socket: server.socket)
    client.send(#"{"spotter":"poses","version":1,"layout":"coco17"}"#)
    _ = #"{"t":0.1,"pose":[oops"#.withCString { Glibc.write(client.fd, $0, strlen($0)) }
    let events = client.finish()
    let error = events.first { $0["type"] as? String == "error" }
    #expect(error?["line"] as? Int == 2, "\(events)")
    #expect(events.last?["type"] as? String == "summary")
    #expect(server.stop() == 0)
  }

  @Test func statusReportsTheCounters() throws {
    let server = try Server()
    let result = try SpotterProcess.run(["status", "--socket", server.socket])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["type"] as? String == "stats")
    #expect(object["open_sessions"] as? Int == 0)
    #expect(object["history_errors"] as? Int == 0)
    #expect(object["history_written"] as? Int == 0)
    #expect(object["history_spooled"] as? Int == 0)
    #expect(server.stop() == 0)
  }
}
