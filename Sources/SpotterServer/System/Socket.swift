import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the daemon listens for TCP: an IPv4 address (`127.0.0.1` this machine only, `0.0.0.0`
/// every interface, or one interface's) and a port, written `HOST:PORT`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
  public let host: String
  public let port: UInt16
  /// The address in network byte order.
  let networkOrder: in_addr_t

  /// Reads `HOST:PORT` (`localhost` for 127.0.0.1); nil when either part is not one.
  public init?(_ text: String) {
    guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
      port > 0
    else { return nil }
    let host = text[..<colon] == "localhost" ? "127.0.0.1" : String(text[..<colon])
    var address = in_addr()
    guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
    (self.host, self.port, networkOrder) = (host, port, address.s_addr)
  }

  /// 127.0.0.1:`port`.
  public init(loopbackPort port: UInt16) { self.init("127.0.0.1:\(port)")! }

  /// Only this machine can connect (127.0.0.0/8): no token is asked for.
  public var isLoopback: Bool { host.hasPrefix("127.") }

  public var description: String { "\(host):\(port)" }
}

/// The few socket calls the daemon and its clients make, named for what they do.
public enum Socket {
  /// A listening Unix-domain stream socket at `path` (a stale socket file is replaced). It is
  /// bound under a neighbouring name and renamed once listening, so that a client that sees
  /// the file can connect.
  static func listenUnix(path: String) throws(SystemError) -> FileDescriptor {
    let binding = path + "~"
    let address = try unixAddress(binding)
    unlink(binding)
    let listener = try open(AF_UNIX, address, named: path, listening: true)
    guard rename(binding, path) == 0 else {
      let error = SystemError("cannot listen on \(path): rename")
      listener.close()
      unlink(binding)
      throw error
    }
    return listener
  }

  /// A listening TCP socket on `address`.
  static func listenTCP(_ address: ListenAddress) throws(SystemError) -> FileDescriptor {
    var socketAddress = loopbackAddress(address.port)
    socketAddress.sin_addr.s_addr = address.networkOrder
    return try open(AF_INET, socketAddress, named: "\(address)", listening: true)
  }

  /// Connects to a Unix socket (blocking); for clients and tests. Returns the raw descriptor,
  /// which the caller closes.
  public static func connectUnix(path: String) throws(SystemError) -> Int32 {
    try open(AF_UNIX, unixAddress(path), named: path, listening: false).rawValue
  }

  /// Connects to 127.0.0.1:`port` (blocking).
  public static func connectTCP(port: UInt16) throws(SystemError) -> Int32 {
    try open(AF_INET, loopbackAddress(port), named: "127.0.0.1:\(port)", listening: false)
      .rawValue
  }

  /// Accepts a waiting connection on a listening socket, non-blocking; nil when none waits.
  static func accept(on listener: FileDescriptor) -> FileDescriptor? {
    let fd = systemAccept(listener.rawValue)
    guard fd >= 0 else { return nil }
    let connection = FileDescriptor(rawValue: fd)
    connection.setNonBlocking()
    return connection
  }

  /// A stream socket bound to `address` and listening (non-blocking), or connected to it
  /// (blocking).
  private static func open<Address>(
    _ family: Int32, _ address: Address, named name: String, listening: Bool
  ) throws(SystemError) -> FileDescriptor {
    let fd = socket(family, streamType, 0)
    guard fd >= 0 else { throw SystemError("socket()") }
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
    guard result == 0, !listening || listen(fd, 512) == 0 else {
      let error = SystemError(listening ? "cannot listen on \(name)" : "cannot connect to \(name)")
      FileDescriptor(rawValue: fd).close()
      throw error
    }
    let descriptor = FileDescriptor(rawValue: fd)
    if listening { descriptor.setNonBlocking() }
    return descriptor
  }

  private static func unixAddress(_ path: String) throws(SystemError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw SystemError("socket path \(path) (\(bytes.count) bytes)", code: ENAMETOOLONG)
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

  /// The default Unix socket: `$XDG_RUNTIME_DIR/spotter.sock`, else `/tmp/spotter-UID.sock`.
  public static var defaultPath: String {
    if let folder = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !folder.isEmpty {
      return folder + "/spotter.sock"
    }
    return "/tmp/spotter-\(getuid()).sock"
  }

  #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
  #else
    private static let streamType = SOCK_STREAM
  #endif
}

private func systemAccept(_ fd: Int32) -> Int32 { accept(fd, nil, nil) }
