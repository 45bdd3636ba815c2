import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The few socket calls the daemon and its clients make, named for what they do.
public enum Socket {
  /// A listening Unix-domain stream socket at `path` (a stale socket file is replaced).
  static func listenUnix(path: String) throws -> Int32 {
    let address = try unixAddress(path)
    unlink(path)
    return try open(AF_UNIX, address, named: path, listening: true)
  }

  /// A listening TCP socket on 127.0.0.1:`port` (loopback only).
  static func listenTCP(port: UInt16) throws -> Int32 {
    try open(AF_INET, loopbackAddress(port), named: "127.0.0.1:\(port)", listening: true)
  }

  /// Connects to a Unix socket (blocking); for clients and tests.
  public static func connectUnix(path: String) throws -> Int32 {
    try open(AF_UNIX, unixAddress(path), named: path, listening: false)
  }

  /// Connects to 127.0.0.1:`port` (blocking).
  public static func connectTCP(port: UInt16) throws -> Int32 {
    try open(AF_INET, loopbackAddress(port), named: "127.0.0.1:\(port)", listening: false)
  }

  /// A stream socket bound to `address` and listening (non-blocking), or connected to it
  /// (blocking).
  private static func open<Address>(
    _ family: Int32, _ address: Address, named name: String, listening: Bool
  ) throws -> Int32 {
    let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else {
      throw DaemonError(message: "socket(): \(String(cString: strerror(errno)))")
    }
    if listening && family == AF_INET {
      var yes: Int32 = 1
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = address
    let size = socklen_t(MemoryLayout<Address>.size)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        listening ? bind(fd, $0, size) : connect(fd, $0, size)
      }
    }
    guard result == 0, !listening || Glibc.listen(fd, 512) == 0 else {
      let reason = String(cString: strerror(errno))
      Glibc.close(fd)
      throw DaemonError(
        message: "cannot \(listening ? "listen on" : "connect to") \(name): \(reason)")
    }
    if listening { setNonBlocking(fd) }
    return fd
  }

  private static func unixAddress(_ path: String) throws -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw DaemonError(message: "socket path \(path) is too long (\(bytes.count) bytes)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return address
  }

  private static func loopbackAddress(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  static func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL, 0)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }

  /// The default Unix socket: `$XDG_RUNTIME_DIR/spotter.sock`, else `/tmp/spotter-UID.sock`.
  public static var defaultPath: String {
    if let folder = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !folder.isEmpty {
      return folder + "/spotter.sock"
    }
    return "/tmp/spotter-\(getuid()).sock"
  }
}
