import Foundation
import SpotterServer

#if canImport(Glibc)
  import Glibc
#endif

/// TLS between a check's clients and its balancer, made at run time with Debian's programs (the
/// runtime has no TLS library): a self-signed certificate from `openssl` for the balancer's
/// address, which HAProxy presents, and `stunnel` in client mode on the clients' host, which
/// takes each plain connection on a Unix socket in the check's folder and carries it over TLS
/// to the balancer, checking the certificate and the address it names. A Unix socket is the
/// file system's, not a network's, so the bench reaches a tunnel in a namespace through it.
final class TLSTunnel {
  /// Where the clients connect: a Unix socket.
  let socket: String
  private let process: Process

  /// Makes a key and a self-signed certificate for `address` (ECDSA P-256, valid for two
  /// days) in `folder`: `balancer.crt`, which clients trust, and `balancer.pem`, the
  /// certificate and its key in one file as HAProxy's `crt` takes them.
  static func certificate(for address: String, folder: String) throws
    -> (certificate: String, bundle: String)
  {
    let openssl = try LocalServers.program(
      "openssl", in: ["/usr/bin/openssl", "/usr/local/bin/openssl"], install: "openssl")
    let (certificate, key, bundle) =
      (folder + "/balancer.crt", folder + "/balancer.key", folder + "/balancer.pem")
    try LocalServers.run([
      openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
      "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj",
      "/CN=spotter fleet check", "-addext", "subjectAltName=IP:\(address)",
    ])
    let pem =
      try String(contentsOfFile: certificate, encoding: .utf8)
      + String(contentsOfFile: key, encoding: .utf8)
    try pem.write(toFile: bundle, atomically: true, encoding: .utf8)
    return (certificate, bundle)
  }

  /// Starts stunnel on `host`, carrying connections to `address`:`port` over TLS, trusting
  /// `certificate` only; returns once it accepts on `folder/tls.sock`.
  init(folder: String, on host: Host, to address: String, port: UInt16, certificate: String)
    throws
  {
    let stunnel = try LocalServers.program(
      "stunnel", in: ["/usr/bin/stunnel4", "/usr/bin/stunnel", "/usr/sbin/stunnel"],
      install: "stunnel4")
    socket = folder + "/tls.sock"
    let configuration = [
      "foreground = yes", "pid =", "syslog = no", "output = \(folder)/stunnel.log",
      "debug = warning", "[balancer]", "client = yes", "accept = \(socket)",
      "connect = \(address):\(port)", "CAfile = \(certificate)", "verifyChain = yes",
      "checkIP = \(address)", "socket = r:TCP_NODELAY=1",
    ]
    let path = folder + "/stunnel.conf"
    try (configuration.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    process = host.process([stunnel, path])
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try ChildProcesses.run(process)
    let deadline = Date().addingTimeInterval(10)
    while !FileManager.default.fileExists(atPath: socket) {
      guard process.isRunning, Date() < deadline else {
        throw LocalServers.Failure(
          description: "stunnel did not start (its log: \(folder)/stunnel.log)")
      }
      usleep(20_000)
    }
  }

  /// A plain connection that the tunnel carries to the balancer over TLS.
  func connect() throws -> Int32 { try Socket.connectUnix(path: socket) }

  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
  }
}
