import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Serves the live page of one session over HTTP: the page (`/`), its updates as Server-Sent
/// Events (`/events`: `state` and `frame` events, the newest of each whenever the browser is
/// ready for it), and the state as JSON (`/state`, for scripts and tests).
///
/// A thread accepts, and each browser has a thread of its own: a page is watched by a person
/// or two, not by thousands, and blocking writes are the simplest way to let a slow browser
/// skip frames rather than queue them (it is sent the newest when its last write is done).
/// Updates go at most 15 times a second to each browser; the camera's pictures come a few a
/// second anyway, and the count changes far less often.
///
/// Beyond loopback the page is reachable from other machines, so it asks for a token then, as
/// `spotter serve --listen` does: `?token=…` in the page's address (the page passes it on to
/// its updates), compared in constant time; a request without it gets 403.
public final class PageServer: @unchecked Sendable {
  /// Where the page is served: an IPv4 address and a port (0: any free one).
  public struct Address: Equatable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    /// Reads `HOST:PORT`, or `PORT` alone for 127.0.0.1 (`localhost` is 127.0.0.1); nil when
    /// either part is not one.
    public init?(_ text: String) {
      let colon = text.lastIndex(of: ":")
      let hostText = colon.map { String(text[..<$0]) } ?? "127.0.0.1"
      guard let port = UInt16(colon.map { String(text[text.index(after: $0)...]) } ?? text)
      else { return nil }
      let host = hostText == "localhost" ? "127.0.0.1" : hostText
      var address = in_addr()
      guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
      (self.host, self.port) = (host, port)
    }

    /// Only this machine can connect (127.0.0.0/8).
    public var isLoopback: Bool { host.hasPrefix("127.") }

    public var description: String { "\(host):\(port)" }
  }

  public let board: SessionBoard
  /// Where it listens; the port is the one given, or the one the system chose for 0.
  public let address: Address
  private let token: [UInt8]?
  private let listener: Int32
  private let lock = NSCondition()
  private var connections: Set<Int32> = []
  private var closing = false

  /// Updates a browser is sent a second, at most.
  static let updatesPerSecond = 15.0
  /// Connections served at once, at most: a room's screens and phones, with room to spare; more
  /// are closed at once, so that nobody can tie up threads without end.
  static let maxConnections = 32

  /// Listens on `address` for the page of `board`; `token`, when given, must come with every
  /// request. Call `start` to serve.
  ///
  /// - Throws: `PageServerError` naming the address and the reason (in use, not this machine's).
  public init(address: Address, token: [UInt8]?, board: SessionBoard) throws {
    self.board = board
    self.token = token
    let fd = socket(AF_INET, Self.streamType, 0)
    guard fd >= 0 else { throw PageServerError(address: address, call: "socket()") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_port = address.port.bigEndian
    inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
    var size = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(fd, pointer, size) == 0 && listen(fd, 16) == 0
          && getsockname(fd, pointer, &size) == 0
      }
    }
    guard bound else {
      let error = PageServerError(address: address, call: "cannot listen")
      close(fd)
      throw error
    }
    listener = fd
    self.address = Address("\(address.host):\(UInt16(bigEndian: socketAddress.sin_port))")!
  }

  /// Starts accepting browsers, on a thread of its own.
  public func start() {
    let thread = Thread { [self] in
      while true {
        let connection = accept(listener, nil, nil)
        if connection < 0 {
          if errno == EINTR { continue }
          return  // closed
        }
        lock.lock()
        if closing {
          lock.unlock()
          close(connection)
          return
        }
        guard connections.count < Self.maxConnections else {
          lock.unlock()
          close(connection)
          continue
        }
        connections.insert(connection)
        lock.unlock()
        Thread { [self] in serve(connection) }.start()
      }
    }
    thread.start()
  }

  /// Stops serving: no more browsers, and those watching get the board's last state (call
  /// `board.end` first) within `grace` seconds before their connections close.
  public func stop(grace: Double) {
    lock.lock()
    closing = true
    lock.unlock()
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
    lock.lock()
    let deadline = Date().addingTimeInterval(grace)
    while !connections.isEmpty, lock.wait(until: deadline) {}
    for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
    lock.unlock()
  }

  // MARK: one browser

  private func serve(_ connection: Int32) {
    defer {
      lock.lock()
      connections.remove(connection)
      close(connection)
      lock.broadcast()
      lock.unlock()
    }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(
      connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard let head = readHead(connection) else { return }
    guard let request = PageRequest(head: head) else {
      return reply(connection, 400, "text/plain", "not an HTTP request\n")
    }
    guard request.method == "GET" || request.method == "HEAD" else {
      return reply(connection, 405, "text/plain", "only GET\n")
    }
    guard tokenMatches(request.query["token"]) else {
      return reply(
        connection, 403, "text/plain",
        "this page needs its token: open it as http://\(address)/?token=...\n")
    }
    switch request.path {
    case "/": reply(connection, 200, "text/html; charset=utf-8", LivePage.html)
    case "/state": reply(connection, 200, "application/json", board.state() + "\n")
    case "/events": stream(to: connection)
    default: reply(connection, 404, "text/plain", "no such page: \(request.path)\n")
    }
  }

  /// The request's head, up to its blank line (8 KB at most: a browser's is well under).
  private func readHead(_ connection: Int32) -> String? {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 2048)
    while bytes.count < 8192 {
      let count = recv(connection, &buffer, buffer.count, 0)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      bytes += buffer[..<count]
      if bytes.count >= 4, String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") {
        return String(decoding: bytes, as: UTF8.self)
      }
    }
    return nil
  }

  /// Whether `given` is the token (or none is asked for), in time that does not depend on
  /// where they differ.
  private func tokenMatches(_ given: String?) -> Bool {
    guard let token else { return true }
    let bytes = Array((given ?? "").utf8)
    var difference = UInt8(bytes.count == token.count ? 0 : 1)
    for index in token.indices {
      difference |= token[index] ^ (index < bytes.count ? bytes[index] : 0)
    }
    return difference == 0
  }

  private func reply(_ connection: Int32, _ status: Int, _ type: String, _ body: String) {
    let reason = [200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"][status]
    _ = send(
      connection,
      "HTTP/1.1 \(status) \(reason ?? "Method Not Allowed")\r\nContent-Type: \(type)\r\n"
        + "Content-Length: \(body.utf8.count)\r\nCache-Control: no-store\r\n"
        + "Connection: close\r\n\r\n" + body)
  }

  /// The board's updates, as they come, until the session is over or the browser goes.
  private func stream(to connection: Int32) {
    guard
      send(
        connection,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
          + "Connection: close\r\n\r\nretry: 1000\n\n")
    else { return }
    var seen = SessionBoard.Seen()
    while true {
      let started = Date()
      let update = board.wait(after: seen, timeout: 15)
      var text = ""
      if let state = update.state { text += "event: state\ndata: \(state)\n\n" }
      if let frame = update.frame { text += "event: frame\ndata: \(frame)\n\n" }
      guard send(connection, text.isEmpty ? ": waiting\n\n" : text), !update.over else { return }
      seen = update.seen
      let rest = 1 / Self.updatesPerSecond - Date().timeIntervalSince(started)
      if rest > 0 { Thread.sleep(forTimeInterval: rest) }
    }
  }

  /// Writes all of `text`; false once the browser has gone.
  private func send(_ connection: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let count = bytes.withUnsafeBytes { systemSend(connection, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      bytes = bytes.dropFirst(count)
    }
    return true
  }

  #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
  #else
    private static let streamType = SOCK_STREAM
  #endif
}

/// `send(2)` under a name of its own (the server's method shares it), never raising SIGPIPE
/// for a browser that has gone.
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
  send(fd, bytes, count, Int32(MSG_NOSIGNAL))
}

/// The page could not be served where it was asked for.
public struct PageServerError: Error, CustomStringConvertible {
  public let address: PageServer.Address
  public let reason: String

  init(address: PageServer.Address, call: String) {
    self.address = address
    reason = "\(call): \(String(cString: strerror(errno)))"
  }

  public var description: String { "cannot serve the live page on \(address): \(reason)" }
}
