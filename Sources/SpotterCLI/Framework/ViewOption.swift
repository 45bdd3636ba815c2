import ArgumentParsing
import Foundation
import LiveView
import Poses

/// `--view [HOST:]PORT` and `--view-token-file FILE`: a live page of the session, served while
/// it runs (`LiveView`), for the commands that run a session live (`video` on a camera or a
/// stream, `classify` on a pipe).
enum ViewOption {
  static let options: [Option] = [
    .value(
      "view", "[HOST:]PORT",
      "Serve a live page of the session there (the count, the last cue, the sets, the pose): "
        + "127.0.0.1 for this machine only, 0.0.0.0 for every interface (then "
        + "--view-token-file is required); port 0 picks a free one."),
    .value(
      "view-token-file", "FILE",
      "The key a --view address other than loopback asks for: the page is opened as "
        + "http://HOST:PORT/?token=KEY; read once, never printed."),
  ]

  /// The page's server, listening, if `--view` was given (nil otherwise), with the board the
  /// session writes to; the address goes to standard error.
  ///
  /// - Throws: `CLIError.usage` for an address that is not one, or one beyond loopback without
  ///   a token; `CLIError.failure` when it cannot listen there.
  static func start(
    _ arguments: ParsedArguments, source: String, pictured: Bool,
    imageSize: (width: Double, height: Double)?
  ) throws -> PageServer? {
    guard let text = arguments.string("view") else {
      if arguments.string("view-token-file") != nil {
        throw CLIError.usage("--view-token-file is for --view", command: arguments.command)
      }
      return nil
    }
    guard let address = PageServer.Address(text) else {
      throw CLIError.usage(
        "--view \(text): expected PORT or HOST:PORT, an IPv4 address and a port from 0 to 65535 "
          + "(8080, 127.0.0.1:8080, 0.0.0.0:8080)", command: arguments.command)
    }
    let token = try arguments.string("view-token-file").map(ServeCommand.readToken)
    if !address.isLoopback, token == nil {
      throw CLIError.usage(
        "--view \(address) is reachable from other machines: give --view-token-file, so that "
          + "only those given the token see the session", command: arguments.command)
    }
    let board = SessionBoard(source: source, pictured: pictured, imageSize: imageSize)
    let server: PageServer
    do {
      server = try PageServer(address: address, token: token, board: board)
    } catch {
      throw CLIError.failure("\(error)", hint: "pick another --view port, or stop what holds it.")
    }
    server.start()
    Terminal.error(
      "Live page: http://\(server.address)/" + (token == nil ? "" : "?token=KEY (the token file's)")
    )
    return server
  }

  /// Ends the page of a session that is over (`failure` says why it failed, if it did): the
  /// browsers watching are sent its last state, for up to a second, before the server closes.
  static func finish(_ server: PageServer?, failure: (any Error)? = nil) {
    guard let server else { return }
    server.board.end(failure: failure.map { "\($0)" })
    server.stop(grace: 1)
  }

  /// `source` with each frame shown on the page before the session has it; `picture` gives the
  /// frame's picture, if it came with one.
  static func showing(
    _ source: any PoseSource, on board: SessionBoard, picture: @escaping () -> Data? = { nil }
  ) -> any PoseSource {
    PreparedSource(source) { frame in
      board.take(people: frame.people, t: frame.t, picture: picture())
      return true
    }
  }
}
