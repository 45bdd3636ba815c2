import Foundation

/// `spotter serve --metrics HOST:PORT`: the counters of `{"cmd":"stats"}` in Prometheus' text
/// format (version 0.0.4) over HTTP, `GET /metrics`, for a scraper or a balancer's health check
/// (README, "A fleet"). A request gets one reply and the connection closes. With a token, a
/// request must carry `Authorization: Bearer <token>` (compared in constant time), as TCP
/// clients send it in their header.
enum MetricsEndpoint {
  /// A request's head longer than this is refused (a scraper's is a few hundred bytes).
  static let maxRequestBytes = 8192
  /// How long a connection may take to send its request.
  static let requestSeconds = 2.0
  /// Metrics connections open at once: a scraper or a health check needs one; more are closed
  /// as they come, so that nobody holds the daemon's descriptors through this port.
  static let connectionsKept = 16

  /// The counters a reply gives, as the daemon read them.
  struct Counters {
    var openSessions = 0
    var connections = 0
    var connectionsTotal = 0
    var frames = 0
    var droppedFrames = 0
    var errors = 0
    var sessionsFinished = 0
    var historyWritten = 0
    var historyQueued = 0
    var historySpooled = 0
    var historyErrors = 0
    var uptimeSeconds = 0.0
    /// Connections each worker holds, by worker.
    var workerConnections: [Int] = []
  }

  /// The reply to the request in `bytes`, once its head is whole (nil while it is not); the
  /// body made by `counters` only for a request that may have it.
  static func reply(to bytes: [UInt8], token: [UInt8]?, counters: () -> Counters) -> String? {
    guard let end = headEnd(bytes) else { return nil }
    let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
    let requestLine = lines.first?.split(separator: " ") ?? []
    guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
      return response(400, "Bad Request", "expected a request line such as GET /metrics HTTP/1.1")
    }
    guard requestLine[0] == "GET" || requestLine[0] == "HEAD" else {
      return response(405, "Method Not Allowed", "only GET", extra: "Allow: GET, HEAD\r\n")
    }
    guard requestLine[1] == "/metrics" || requestLine[1].hasPrefix("/metrics?") else {
      return response(404, "Not Found", "the counters are at /metrics")
    }
    if let token {
      let given = lines.dropFirst().first { $0.lowercased().hasPrefix("authorization:") }
        .map { $0.dropFirst("authorization:".count).trimmingCharacters(in: .whitespaces) }
      guard let given, given.hasPrefix("Bearer "),
        HeaderToken.isSame(Array(given.dropFirst("Bearer ".count).utf8), token)
      else {
        return response(
          401, "Unauthorized", "send Authorization: Bearer <token>",
          extra: "WWW-Authenticate: Bearer\r\n")
      }
    }
    let body = text(counters())
    return response(
      200, "OK", requestLine[0] == "HEAD" ? "" : body,
      contentType: "text/plain; version=0.0.4; charset=utf-8", length: body.utf8.count)
  }

  /// The counters in Prometheus' text format: each with its help and type.
  static func text(_ counters: Counters) -> String {
    let metrics: [(String, String, String, String)] = [
      ("open_sessions", "gauge", "Sessions open now.", "\(counters.openSessions)"),
      ("connections", "gauge", "Connections open now.", "\(counters.connections)"),
      (
        "connections_total", "counter", "Connections accepted since the start.",
        "\(counters.connectionsTotal)"
      ),
      ("frames_total", "counter", "Frames counted since the start.", "\(counters.frames)"),
      (
        "dropped_frames_total", "counter", "Frames dropped as late since the start.",
        "\(counters.droppedFrames)"
      ),
      (
        "errors_total", "counter", "Error events sent and clients refused since the start.",
        "\(counters.errors)"
      ),
      (
        "sessions_finished_total", "counter", "Sessions ended and handed to the history.",
        "\(counters.sessionsFinished)"
      ),
      (
        "history_written_total", "counter", "Sessions the history writer stored.",
        "\(counters.historyWritten)"
      ),
      (
        "history_queued", "gauge", "Sessions waiting for the history writer.",
        "\(counters.historyQueued)"
      ),
      (
        "history_spooled", "gauge", "Sessions waiting in the spool for the history.",
        "\(counters.historySpooled)"
      ),
      (
        "history_errors_total", "counter", "Sessions neither stored nor spooled.",
        "\(counters.historyErrors)"
      ),
      (
        "uptime_seconds", "gauge", "Seconds since the daemon started.",
        String(format: "%.3f", counters.uptimeSeconds)
      ),
    ]
    let perWorker =
      "# HELP spotter_worker_connections Connections each worker holds now.\n"
      + "# TYPE spotter_worker_connections gauge\n"
      + counters.workerConnections.enumerated().map {
        "spotter_worker_connections{worker=\"\($0)\"} \($1)\n"
      }.joined()
    return metrics.map { name, type, help, value in
      "# HELP spotter_\(name) \(help)\n# TYPE spotter_\(name) \(type)\nspotter_\(name) \(value)\n"
    }.joined() + perWorker
  }

  /// The end of the request's head (the blank line after its headers), if it has come.
  private static func headEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 0...(bytes.count - 4)
    where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D
      && bytes[index + 3] == 0x0A
    {
      return index
    }
    return nil
  }

  private static func response(
    _ status: Int, _ reason: String, _ body: String, extra: String = "",
    contentType: String = "text/plain; charset=utf-8", length: Int? = nil
  ) -> String {
    let body = status == 200 ? body : body + "\n"
    return "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: "
      + "\(length ?? body.utf8.count)\r\n\(extra)Connection: close\r\n\r\n\(body)"
  }
}
