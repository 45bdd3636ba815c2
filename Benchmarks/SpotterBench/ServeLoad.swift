import ActionModel
import ArgumentParsing
import Foundation
import MotionSynth
import Poses
import RepCounting
import Spotter
import SpotterServer

#if canImport(Glibc)
  import Glibc
#endif

/// `spotter-bench serve`: starts a real `spotter serve` on a private Unix socket and streams
/// synthetic workouts into it from `clients` connections at once, each at its recording's own
/// pace (30 fps). Every session's summary is checked against the same lines run in-process and
/// against the synthetic truth. Bounded: one workout per client (or, for a soak, the workout
/// over and over for `minutes`: `ServeSoak`), and a hard deadline. Each client's header names
/// it (`"client":"load-PID-INDEX"`), so the history can be checked session by session
/// (`spotter-bench fleet`).
enum ServeLoad {
  static let defaultPlan = "squat:8, rest:3, jumping_jack:12, rest:2, bicep_curl:8"

  struct Options {
    var clients = 100
    /// Distinct workouts; client i streams workout i mod this.
    var workouts = 8
    var plan = defaultPlan
    var spotter: String
    var weights: String
    /// Where the started server keeps its history: nil, a new SQLite file in its own folder;
    /// `none`, no history; else the file or URL.
    var history: String?
    /// Stream to a server (or a balancer) already on 127.0.0.1:port instead of starting one.
    var port: UInt16?
    /// Or connect each client with this (the fleet's TLS tunnel).
    var connect: (() throws -> Int32)?
    /// Sent in each client's header beside its name, when given (`"token":"…"`).
    var token: String?
    /// Given the workouts just before the clients connect (the fleet times its pause by them).
    var streaming: ([Workout]) -> Void = { _ in }
    /// A client whose connection breaks before its summary connects again with
    /// `"resume": "<its session>"` and resends its frames after the last checkpoint it was told
    /// of (README, "Resuming a session").
    var resume = false
    /// With `resume`: one client in ten, 40% of the way through its workout, connects again
    /// while its first connection is still open (a phone that changed networks before its old
    /// connection was seen to fail) and resumes there; the first connection stays open, silent,
    /// until the run ends.
    var handovers = false
    /// A soak: each client keeps one session open this long, its workout streamed over and
    /// over, and the daemon is watched minute by minute (`ServeSoak`). Nil: one workout each.
    var minutes: Int?
    /// The daemon on the first CPUs this process may use (one a worker), the load generator on
    /// the others (`CPUPinning`).
    var pin = false
    /// The daemon's `--workers` (nil: its own default; 1 when pinned, as it is given one CPU).
    var workers: Int?
    /// One more client sends this many `{"cmd":"stats"}` without reading, then drains the
    /// replies (`ServeFlood`).
    var flood: Int?

    /// The options the serve and fleet commands share: `clients`, `workouts`, `plan` and
    /// `weights`, with the `spotter` built next to this benchmark.
    init(_ arguments: ParsedArguments) throws {
      let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
      let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      spotter = executable.deletingLastPathComponent().appendingPathComponent("spotter").path
      weights = arguments.values["weights"] ?? repository + "/Weights/default.spotter"
      clients = try arguments.int("clients", range: 1...5000)!
      workouts = try arguments.int("workouts", range: 1...100)!
      plan = arguments.string("plan")!
    }
  }

  /// One recorded workout: the lines to send, each frame's stream time, and what should come
  /// back. Streamed `repeats` times over in one session, back to back, each repetition's times
  /// `period` later than the one before: frame `g` of the stream is frame `g % n` of the
  /// recording (n frames), in repetition `g / n`.
  struct Workout {
    let lines: [[UInt8]]  // header first, then one per frame of the recording
    let times: [Double]  // per frame line
    var repeats = 1
    var truth: [String: Int]
    var inProcess: [String: Int]

    /// Frames in the whole stream.
    var frameCount: Int { times.count * repeats }

    /// Seconds from a repetition's first frame to the next one's: the recording, and a frame.
    var period: Double {
      let step = times.count > 1 ? times[1] - times[0] : 1.0 / 30
      return (times.last ?? 0) + step
    }

    /// When frame `g` of the stream is due, in stream seconds.
    func time(ofFrame g: Int) -> Double {
      times[g % times.count] + Double(g / times.count) * period
    }

    /// Appends frame `g`'s line: the recording's, its time moved on after the first repetition.
    /// Frame lines open with their time (`{"t":SECONDS,`); it is written as the shortest text
    /// that reads back as the same number.
    func appendLine(ofFrame g: Int, to bytes: inout [UInt8]) {
      let line = lines[g % times.count + 1]
      guard g >= times.count else {
        bytes += line
        return
      }
      precondition(
        line.starts(with: Self.timeKey),
        "a frame line opens with its time ({\"t\":), not \(String(decoding: line.prefix(8), as: UTF8.self))"
      )
      bytes += Self.timeKey
      bytes += "\(time(ofFrame: g))".utf8
      bytes += line[line.firstIndex(of: UInt8(ascii: ","))!...]
    }

    static let timeKey = Array("{\"t\":".utf8)

    /// The stream's first frame at or after `t`: where an event at `t` came from.
    func frame(at t: Double) -> Int {
      let repetition = min(repeats - 1, max(0, Int((t / period).rounded(.down))))
      let local = t - Double(repetition) * period
      var low = 0
      var high = times.count
      while low < high {
        let middle = (low + high) / 2
        if times[middle] < local - 1e-6 { low = middle + 1 } else { high = middle }
      }
      return repetition * times.count + low
    }
  }

  /// One connection's progress.
  struct Client {
    var fd: Int32
    let workout: Int
    let start: Double
    /// The next frame of the stream to send.
    var nextLine = 0
    var outgoing: [UInt8] = []
    /// When each frame of the recording was last sent (`nextLine - n ..< nextLine`), -1 before.
    var sentAt: [Double]
    var incoming: [UInt8] = []
    var summary: [String: Int]?
    var droppedFrames = 0
    var closedWrite = false
    var done = false
    /// Resuming (`Options.resume`): the session's id, from its first event; the time after
    /// which its frames would have to be resent, from its last `checkpoint`; and how often its
    /// connection broke and it resumed.
    var session: String?
    var resendFrom = -Double.infinity
    var resumes = 0
    /// The connection ended (the server closed it, or it broke).
    var ended = false
    /// It connected again while its connection was still open (`Options.handovers`).
    var handedOver = false
  }

  /// What one run measured.
  struct Outcome {
    var clients: [Client]
    var latencies: [Double]
    var elapsed: Double
    /// The daemon's CPU time while the clients streamed, and its peak resident memory: nil
    /// when it is not this bench's to read (a daemon on `--port`, the fleet's).
    var cpuSeconds: Double?
    var peakKiB: Int?
    /// The load generator's own CPU time meanwhile (this process: the clients, the checking).
    var generatorCPUSeconds: Double
    /// Each worker's CPU time meanwhile, by worker (empty when not read).
    var workerCPUSeconds: [Double] = []
    /// A soak's minutes (`Options.minutes`).
    var soak: ServeSoak?
  }

  /// Streams, reports, and returns whether a soak held its targets (true without a soak).
  static func run(_ options: Options) throws -> Bool {
    let (outcome, workouts) = try load(options)
    report(outcome, workouts: workouts)
    return outcome.soak?.verdict() ?? true
  }

  /// Records the workouts, streams them, and returns what was measured.
  static func load(_ options: Options) throws -> (Outcome, [Workout]) {
    let classifier = try WeightsFile.load(options.weights)
    let runtime = Runtime(classifier: classifier, catalogue: try ExerciseCatalogue.load())
    let plan = try WorkoutPlan.parse(options.plan)
    let workouts = try (0..<options.workouts).map {
      try record(plan, seed: 6000 + UInt64($0), runtime: runtime, minutes: options.minutes)
    }
    let seconds = workouts.map { $0.times.last ?? 0 }
    print(
      "serve load: \(options.clients) clients, \(options.workouts) workouts of "
        + String(format: "%.0f–%.0f s", seconds.min()!, seconds.max()!)
        + " at 30 fps ('\(options.plan)')")
    options.streaming(workouts)
    if let minutes = options.minutes {
      let repeats = Set(workouts.map(\.repeats)).sorted().map(String.init)
      print(
        "soak: each client keeps one session for \(minutes) minutes and more: its workout "
          + "\(repeats.first!)\(repeats.count > 1 ? "–" + repeats.last! : "") times over, whole, "
          + "times running on")
    }
    if let connect = options.connect
      ?? options.port.map({ port in { try Socket.connectTCP(port: port) } })
    {
      let outcome = try stream(
        workouts, clients: options.clients, connect: connect, server: nil, token: options.token,
        resume: options.resume, handovers: options.handovers)
      return (outcome, workouts)
    }
    let folder = NSTemporaryDirectory() + "spotter-serve-load-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let server = try startServer(options, folder: folder)
    defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
    let socket = folder + "/s.sock"
    let connect = { try Socket.connectUnix(path: socket) }
    let soak = options.minutes.map {
      ServeSoak(minutes: $0, daemon: server.processIdentifier, connect: connect)
    }
    var outcome = try stream(
      workouts, clients: options.clients, connect: connect, server: server, flood: options.flood,
      everyRound: soak.map { soak in { soak.observe(at: $0, latencies: $1) } })
    outcome.soak = soak
    kill(server.processIdentifier, SIGTERM)
    server.waitUntilExit()
    return (outcome, workouts)
  }

  /// A real `spotter serve` on a private socket, ready to accept.
  static func startServer(_ options: Options, folder: String) throws -> Process {
    let socketPath = folder + "/s.sock"
    let server = Process()
    server.executableURL = URL(fileURLWithPath: options.spotter)
    let history =
      options.history == "none"
      ? ["--no-history"]
      : [
        "--history", options.history ?? folder + "/history.sqlite", "--state-dir",
        folder + "/state",
      ]
    server.arguments =
      [
        "serve", "--socket", socketPath, "--weights", options.weights, "--max-connections",
        "\(options.clients + 16)", "--predictions",
      ] + history
      + ((options.workers ?? (options.pin ? 1 : nil)).map { ["--workers", "\($0)"] } ?? [])
    server.standardError = FileHandle.nullDevice
    if options.pin { try CPUPinning.requireRoom(daemon: options.workers ?? 1) }
    try ChildProcesses.run(server)
    if options.pin {
      try CPUPinning.separate(daemon: server.processIdentifier, cpus: options.workers ?? 1)
    }
    for _ in 0..<500 where !FileManager.default.fileExists(atPath: socketPath) { usleep(10_000) }
    return server
  }

  /// Connects the clients (their starts spread over the first second, as cameras would) and
  /// streams every workout at its own pace until each client has its summary, or the deadline.
  /// `everyRound` hears the time after each round of sends and reads, with the latencies so far
  /// (in the order measured).
  static func stream(
    _ workouts: [Workout], clients count: Int, connect: () throws -> Int32, server: Process?,
    token: String? = nil, resume: Bool = false, handovers: Bool = false, flood: Int? = nil,
    everyRound: ((_ time: Double, _ latencies: [Double]) -> Void)? = nil
  ) throws -> Outcome {
    // A client's server may go away while it writes (a daemon killed): the write fails with
    // EPIPE instead of ending the bench.
    signal(SIGPIPE, SIG_IGN)
    let begin = now()
    var clients: [Client] = []
    for index in 0..<count {
      let fd = try connect()
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
      let workout = index % workouts.count
      var client = Client(
        fd: fd, workout: workout, start: begin + Double(index) / Double(count),
        sentAt: Array(repeating: -1, count: workouts[workout].times.count))
      client.outgoing = named(workouts[workout].lines[0], client: clientName(index), token: token)
      clients.append(client)
    }
    let cpuBefore = server.map { ProcessFigures.cpuSeconds($0.processIdentifier) } ?? 0
    let workersBefore = server.map { ProcessFigures.workerCPUSeconds($0.processIdentifier) } ?? []
    let generatorBefore = ProcessFigures.cpuSeconds(getpid())
    let streamBegin = now()
    let deadline = begin + 1 + workouts.map { $0.time(ofFrame: $0.frameCount - 1) }.max()! + 60
    var latencies: [Double] = []
    latencies.reserveCapacity(count * 400)
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    var pollSet = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    var flooder = flood.map { ServeFlood(commands: $0, startAt: begin + 5) }
    /// Connections left open by clients that connected again (`handovers`).
    var leftOpen: [Int32] = []
    defer { for fd in leftOpen { close(fd) } }
    while clients.contains(where: { !$0.done }) && now() < deadline {
      let time = now()
      for index in clients.indices where !clients[index].done {
        let workout = workouts[clients[index].workout]
        if handovers, index % 10 == 3, !clients[index].handedOver, clients[index].session != nil,
          clients[index].nextLine >= workout.frameCount * 2 / 5, let fd = try? connect()
        {
          leftOpen.append(clients[index].fd)
          clients[index].handedOver = true
          reconnect(&clients[index], fd: fd, workout: workout, index: index, token: token)
          pollSet[index].fd = fd
        }
        send(&clients[index], workout: workouts[clients[index].workout], at: time)
        pollSet[index].events =
          Int16(POLLIN) | (clients[index].outgoing.isEmpty ? 0 : Int16(POLLOUT))
      }
      _ = poll(&pollSet, nfds_t(pollSet.count), 2)
      let received = now()
      for index in clients.indices where !clients[index].done && pollSet[index].revents != 0 {
        receive(&clients[index], buffer: &buffer)
        events(&clients[index], workout: workouts[clients[index].workout], at: received) {
          latencies.append($0)
        }
        guard clients[index].ended else { continue }
        close(clients[index].fd)
        if resume, clients[index].summary == nil, clients[index].session != nil,
          let fd = try? connect()
        {
          reconnect(
            &clients[index], fd: fd, workout: workouts[clients[index].workout], index: index,
            token: token)
          pollSet[index].fd = fd
        } else {
          clients[index].done = true
        }
      }
      flooder?.step(at: received, latencies: latencies.count, connect: connect, buffer: &buffer)
      everyRound?(received, latencies)
    }
    if let flooder { print(flooder.report(latencies: latencies)) }
    return Outcome(
      clients: clients, latencies: latencies.sorted(), elapsed: now() - streamBegin,
      cpuSeconds: server.map { ProcessFigures.cpuSeconds($0.processIdentifier) - cpuBefore },
      peakKiB: server.map { ProcessFigures.peakResidentKiB($0.processIdentifier) },
      generatorCPUSeconds: ProcessFigures.cpuSeconds(getpid()) - generatorBefore,
      workerCPUSeconds: server.map {
        zip(ProcessFigures.workerCPUSeconds($0.processIdentifier), workersBefore).map { $0 - $1 }
      } ?? [])
  }

  /// What client `index` calls itself in its header.
  static func clientName(_ index: Int) -> String { "load-\(getpid())-\(index)" }

  /// The header line with a `client` key added, and a `token` key when one is given.
  static func named(_ header: [UInt8], client: String, token: String? = nil) -> [UInt8] {
    guard let close = header.lastIndex(of: UInt8(ascii: "}")) else { return header }
    let token = token.map { ",\"token\":\"\($0)\"" } ?? ""
    return Array(header[..<close]) + Array(",\"client\":\"\(client)\"\(token)}\n".utf8)
  }

  /// Every frame whose time has come joins the outgoing bytes; once all are sent, the client
  /// closes its side.
  static func send(_ client: inout Client, workout: Workout, at time: Double) {
    while client.nextLine < workout.frameCount,
      client.start + workout.time(ofFrame: client.nextLine) <= time
    {
      workout.appendLine(ofFrame: client.nextLine, to: &client.outgoing)
      client.sentAt[client.nextLine % workout.times.count] = time
      client.nextLine += 1
    }
    flush(&client)
    if client.nextLine == workout.frameCount, client.outgoing.isEmpty, !client.closedWrite {
      shutdown(client.fd, Int32(SHUT_WR))
      client.closedWrite = true
    }
  }

  /// Reads what the server sent; the server closing the connection, or the connection
  /// breaking, ends it.
  static func receive(_ client: inout Client, buffer: inout [UInt8]) {
    while true {
      let count = read(client.fd, &buffer, buffer.count)
      if count > 0 {
        client.incoming += buffer[0..<count]
        continue
      }
      if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        client.ended = true
      }
      return
    }
  }

  /// Connects a client whose connection broke again, resuming its session: the header asks
  /// for it, and the frames after its last checkpoint go again (at once: their time has come).
  static func reconnect(
    _ client: inout Client, fd: Int32, workout: Workout, index: Int, token: String?
  ) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
    client.fd = fd
    client.resumes += 1
    client.ended = false
    client.closedWrite = false
    client.incoming.removeAll()
    var header = named(workout.lines[0], client: clientName(index), token: token)
    header.removeLast(2)  // "}\n"
    client.outgoing = header + Array(",\"resume\":\"\(client.session!)\"}\n".utf8)
    var first = 0
    while first < client.nextLine, workout.time(ofFrame: first) <= client.resendFrom { first += 1 }
    client.nextLine = first
  }

  static func report(_ outcome: Outcome, workouts: [Workout]) {
    let clients = outcome.clients
    let finished = clients.filter { $0.summary != nil }
    let matchesInProcess = finished.filter { $0.summary! == workouts[$0.workout].inProcess }.count
    var reported = Set<Int>()
    for client in finished where client.summary! != workouts[client.workout].inProcess {
      guard reported.insert(client.workout).inserted else { continue }
      print(
        "workout \(client.workout): served \(client.summary!), in-process "
          + "\(workouts[client.workout].inProcess), truth \(workouts[client.workout].truth)"
      )
    }
    let matchesTruth = finished.filter { $0.summary! == workouts[$0.workout].truth }.count
    let inProcessTruth = workouts.filter { $0.inProcess == $0.truth }.count
    let frames = clients.reduce(0) { $0 + $1.nextLine }
    let latencies = outcome.latencies
    func percentile(_ p: Double) -> String {
      guard !latencies.isEmpty else { return "n/a" }
      return String(
        format: "%.1f ms",
        1000 * latencies[min(latencies.count - 1, Int(p * Double(latencies.count)))])
    }
    let elapsed = outcome.elapsed
    print("sessions held at once      \(clients.count)")
    print(
      "sessions summarised        \(finished.count) of \(clients.count) (lost: "
        + "\(clients.count - finished.count))"
    )
    print(
      String(
        format: "frames streamed            %d in %.1f s (%.0f frames/s)", frames, elapsed,
        Double(frames) / elapsed))
    print("frames dropped by server   \(clients.reduce(0) { $0 + $1.droppedFrames })")
    print(
      "frame → event latency      p50 \(percentile(0.5)), p99 \(percentile(0.99)), max "
        + "\(percentile(1)) (\(latencies.count) predictions and live reps)"
    )
    func cpuLine(_ name: String, _ cpu: Double) -> String {
      String(
        format: "%@%.1f s (%.0f%% of one core, %.1f ms per 1,000 frames)",
        name.padding(toLength: 27, withPad: " ", startingAt: 0), cpu, 100 * cpu / elapsed,
        1000 * cpu / Double(max(frames, 1)) * 1000)
    }
    if let cpu = outcome.cpuSeconds, let peak = outcome.peakKiB {
      print(cpuLine("server CPU", cpu))
      print("server peak resident       \(peak / 1024) MiB")
    } else {
      print("server CPU, peak resident  not measured here: the daemon is not this bench's child")
    }
    if !outcome.workerCPUSeconds.isEmpty {
      print(
        "server CPU by worker       "
          + outcome.workerCPUSeconds.enumerated().map {
            String(format: "worker %d %.0f%%", $0, 100 * $1 / elapsed)
          }.joined(separator: ", ") + " of one core")
    }
    print(cpuLine("load generator CPU", outcome.generatorCPUSeconds))
    if let pinned = CPUPinning.placement { print("pinned                     \(pinned)") }
    print("counts equal to in-process \(matchesInProcess) of \(finished.count) sessions")
    print(
      "counts equal to the truth  \(matchesTruth) of \(finished.count) sessions (in-process: "
        + "\(inProcessTruth) of \(workouts.count) workouts exact)"
    )
  }

  /// Sends what the socket takes now.
  static func flush(_ client: inout Client) {
    guard !client.outgoing.isEmpty else { return }
    let written = client.outgoing.withUnsafeBytes { write(client.fd, $0.baseAddress, $0.count) }
    if written > 0 { client.outgoing.removeFirst(written) }
  }

  /// Handles the complete event lines received: a prediction's or live rep's latency is
  /// measured from the sending of the first frame at or after the tick it happened at.
  static func events(
    _ client: inout Client, workout: Workout, at time: Double, latency: (Double) -> Void
  ) {
    while let newline = client.incoming.firstIndex(of: UInt8(ascii: "\n")) {
      let line = Array(client.incoming[..<newline])
      client.incoming.removeFirst(newline + 1)
      guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
        let type = object["type"] as? String
      else { continue }
      let live = type == "prediction" || (type == "rep" && object["backfilled"] as? Bool == false)
      if live, let t = object["t"] as? Double {
        // Of the frames sent, the last n still hold their sending time.
        let frame = workout.frame(at: t)
        if frame < client.nextLine, frame >= client.nextLine - workout.times.count {
          latency(time - client.sentAt[frame % workout.times.count])
        }
      } else if type == "session" {
        client.session = object["session"] as? String
        if let from = object["resend_from"] as? Double { client.resendFrom = from }
      } else if type == "checkpoint", let from = object["resend_from"] as? Double {
        client.resendFrom = from
      } else if type == "summary", let exercises = object["exercises"] as? [String: [String: Any]] {
        client.summary = exercises.compactMapValues { $0["reps"] as? Int }.filter { $0.value > 0 }
        client.droppedFrames = (object["dropped_frames"] as? Int) ?? 0
      }
    }
  }

  /// Records a workout, and runs the lines a client sends through an in-process session for
  /// the expected counts. With `minutes` (a soak), the workout is streamed whole, over and over,
  /// until the stream spans that long and 2 s more (the clients' starts spread over a second).
  static func record(_ plan: WorkoutPlan, seed: UInt64, runtime: Runtime, minutes: Int? = nil)
    throws -> Workout
  {
    var options = RecordingOptions()
    options.camera = .front
    options.fps = 30
    let recording = Recorder.record(plan, options: options, seed: seed)
    let path = NSTemporaryDirectory() + "spotter-serve-load-\(getpid())-\(seed).jsonl"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try SessionBenchmarks.write(recording, to: path)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let lines = text.split(separator: "\n").map { Array($0.utf8) + [UInt8(ascii: "\n")] }
    var truth: [String: Int] = [:]
    for segment in recording.segments where segment.label != Labels.other {
      truth[segment.label, default: 0] += segment.reps ?? 0
    }
    var workout = Workout(
      lines: lines, times: recording.frames.map(\.t), truth: truth, inProcess: [:])
    if let minutes {
      let repeats = Int((Double(minutes * 60) + 2) / workout.period) + 1
      workout.repeats = repeats
      workout.truth = truth.mapValues { $0 * repeats }
    }
    workout.inProcess = try counts(of: workout, runtime: runtime)
    return workout
  }

  /// The counts of a session in-process over the lines a client of `workout` sends, decoded
  /// as the daemon decodes them.
  static func counts(of workout: Workout, runtime: Runtime) throws -> [String: Int] {
    func withoutNewline<T>(_ line: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) throws -> T)
      rethrows -> T
    {
      try line.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0.dropLast())) }
    }
    let name = "workout"
    let header = try withoutNewline(workout.lines[0]) { try PoseFileHeader(line: $0, file: name) }
    var decoder = PoseLineDecoder(header: header, name: name)
    let session = runtime.makeSession()
    var expected: [String: Int] = [:]
    func collect(_ event: SpotterEvent) {
      if case .summary(_, let exercises, _) = event {
        for exercise in exercises where exercise.reps > 0 {
          expected[exercise.name] = exercise.reps
        }
      }
    }
    var frame = PeopleFrame()
    var line: [UInt8] = []
    for g in 0..<workout.frameCount {
      line.removeAll(keepingCapacity: true)
      workout.appendLine(ofFrame: g, to: &line)
      switch withoutNewline(line, { decoder.decode($0, line: g + 2, into: &frame) }) {
      case .frame: session.push(frame, emit: collect)
      case .skipped(let error): session.reportBadLine(error, emit: collect)
      case .end: break
      }
    }
    session.finish(emit: collect)
    return expected
  }

  static func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
  }
}
