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

/// A listening Unix socket and the socket file the daemon made for it.
struct UnixListener: Sendable {
  let descriptor: FileDescriptor
  /// The socket file as made: at stop, its path is removed only if it still names this file.
  let file: FileIdentity
}

/// A file told apart from every other on the machine, whatever its name: its device and inode
/// (`lstat`). A path can come to name another file; the identity says whether it still names
/// the one made.
struct FileIdentity: Equatable, Sendable {
  let device: dev_t
  let inode: ino_t

  /// The file `info` (from `stat` or `lstat`) describes.
  init(_ info: stat) { (device, inode) = (info.st_dev, info.st_ino) }

  /// The file at `path` itself (a symbolic link is not followed); nil when there is none.
  init?(ofFileAt path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    self.init(info)
  }
}

/// The few socket calls the daemon and its clients make, named for what they do.
public enum Socket {
  /// A listening Unix-domain stream socket at `path` that only this user can connect to, and
  /// the file it made there.
  ///
  /// The socket streams poses in and tells counts and stats out, so it is the user's alone:
  /// mode 0600 whatever the umask. The process umask is shared by every thread, so it is not
  /// changed; instead the socket is bound inside a new folder beside `path` that only this
  /// user may enter (`mkdtemp`, 0700), set to 0600 and made to listen there, then linked in
  /// at `path`, and the folder removed. At no moment does `path` name a socket with a wider
  /// mode, or one that does not yet listen. The folder is beside `path` so the link stays on
  /// one file system.
  ///
  /// What is already at `path` is never taken over blindly: a socket a server answers on is
  /// refused (two daemons on one path would leave one unreachable); a socket nobody answers
  /// on, left by a daemon that died, is replaced; anything else (a file, a folder, a
  /// symbolic link) is refused and left as it is. It is `link`, not `rename`, that puts the
  /// socket in place: it fails when something has appeared at `path` since it was looked
  /// at, which is then looked at again, so two daemons started together do not both take it.
  ///
  /// - Throws: `SystemError` saying what stood in the way: `EADDRINUSE` when a server answers
  ///   on `path`, `EEXIST` when something other than a socket is there, `ENOENT` when the
  ///   folder of `path` does not exist (`ENOTDIR` when it is not a folder), `ENAMETOOLONG`
  ///   when the path does not fit in a socket address; otherwise the call that failed and its
  ///   `errno`.
  static func listenUnixOwned(path: String) throws(SystemError) -> UnixListener {
    _ = try unixAddress(path)
    // The socket is bound first at `template`/s, `mkdtemp` filling in the Xs: that path must
    // fit in a socket address too.
    let template = folder(of: path) + "/.spotter-XXXXXX"
    guard (template + "/s").utf8.count < unixPathCapacity else {
      throw SystemError(
        "socket path \(path) is too long: the socket is made first as \(template)/s "
          + "(\((template + "/s").utf8.count) bytes, at most \(unixPathCapacity - 1))",
        code: ENAMETOOLONG)
    }
    var stale = try staleSocket(at: path)
    let privateFolder = try makePrivateFolder(template, for: path)
    let boundPath = privateFolder + "/s"
    defer {
      unlink(boundPath)
      rmdir(privateFolder)
    }
    let listener = try open(AF_UNIX, unixAddress(boundPath), named: path, listening: true)
    do throws(SystemError) {
      guard chmod(boundPath, 0o600) == 0, let file = FileIdentity(ofFileAt: boundPath) else {
        throw SystemError("cannot listen on \(path): chmod() of the new socket")
      }
      for attempt in 1... {
        if let stale { removeUnix(path: path, made: stale) }
        if link(boundPath, path) == 0 { break }
        guard errno == EEXIST, attempt < 3 else {
          throw SystemError("cannot listen on \(path): link() of the new socket")
        }
        stale = try staleSocket(at: path)
      }
      return UnixListener(descriptor: listener, file: file)
    } catch {
      listener.close()
      throw error
    }
  }

  /// Removes the socket file at `path` if it is still the one `made`, and returns whether it
  /// did. Another daemon may have put its own socket at `path` since (after this one's was
  /// deleted): that one is left, so that it stays reachable. Call it before the listener is
  /// closed, so that the file system cannot give its inode to another file meanwhile.
  @discardableResult
  static func removeUnix(path: String, made: FileIdentity) -> Bool {
    guard FileIdentity(ofFileAt: path) == made else { return false }
    return unlink(path) == 0
  }

  /// The identity of the socket at `path` when it is one a server no longer answers on (left
  /// by a daemon that died, to be replaced); nil when nothing is there.
  /// - Throws: `SystemError` when `path` cannot be taken: a server answers on it (`EADDRINUSE`),
  ///   it is not a socket (`EEXIST`), its folder is missing (`ENOENT`) or cannot be reached.
  private static func staleSocket(at path: String) throws(SystemError) -> FileIdentity? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      guard errno == ENOENT || errno == ENOTDIR else {
        throw SystemError("cannot listen on \(path): lstat()")
      }
      try requireFolder(of: path)
      return nil
    }
    guard info.st_mode & mode_t(S_IFMT) == mode_t(S_IFSOCK) else {
      throw SystemError(
        "\(path) is \(kind(of: info.st_mode)), not a socket, and is left as it is", code: EEXIST)
    }
    guard try !answers(path) else {
      throw SystemError("a server already answers on \(path)", code: EADDRINUSE)
    }
    return FileIdentity(info)
  }

  /// Throws when the folder `path` would go in is missing (`ENOENT`, naming the folder) or is
  /// not a folder (`ENOTDIR`).
  private static func requireFolder(of path: String) throws(SystemError) {
    let folder = folder(of: path)
    var info = stat()
    guard stat(folder, &info) == 0 else {
      let code = errno
      throw SystemError(
        code == ENOENT
          ? "cannot listen on \(path): the folder \(folder) does not exist"
          : "cannot listen on \(path): cannot reach the folder \(folder)", code: code)
    }
    guard info.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) else {
      throw SystemError("cannot listen on \(path): \(folder) is not a folder", code: ENOTDIR)
    }
  }

  /// Whether a server accepts connections on the socket at `path`: true when it does, false
  /// when the socket refuses them (`ECONNREFUSED`: no process listens on it any more). The
  /// connection is closed at once. It does not block: a server whose backlog is full
  /// (`EAGAIN`) answers, too.
  /// - Throws: `SystemError` when it cannot tell, e.g. the socket is another user's.
  private static func answers(_ path: String) throws(SystemError) -> Bool {
    let fd = socket(AF_UNIX, streamType, 0)
    guard fd >= 0 else { throw SystemError("socket()") }
    let probe = FileDescriptor(rawValue: fd)
    defer { probe.close() }
    probe.setNonBlocking()
    var address = try unixAddress(path)
    let result = withSocketAddress(&address) { connect(fd, $0, $1) }
    if result == 0 { return true }
    switch errno {
    case EAGAIN, EINPROGRESS: return true
    case ECONNREFUSED: return false
    default: throw SystemError("cannot tell whether a server answers on \(path): connect()")
    }
  }

  /// Makes the folder `template` names (its last six characters `XXXXXX`, which `mkdtemp`
  /// replaces) with mode 0700: only this user may enter it, whatever the umask.
  private static func makePrivateFolder(
    _ template: String, for path: String
  ) throws(SystemError) -> String {
    var name = Array(template.utf8CString)
    let made = name.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    guard made else {
      throw SystemError("cannot listen on \(path): mkdtemp() in \(folder(of: path))")
    }
    let folder = String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // `mkdtemp` asks for 0700 and the umask may take from it; 0700 is set outright.
    guard chmod(folder, 0o700) == 0 else {
      let error = SystemError("cannot listen on \(path): chmod() of \(folder)")
      rmdir(folder)
      throw error
    }
    return folder
  }

  /// The folder `path` is in: what comes before its last `/`, `.` when it has none.
  private static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// What kind of file `mode` (`st_mode`) is, for a sentence: "a regular file".
  private static func kind(of mode: mode_t) -> String {
    switch mode & mode_t(S_IFMT) {
    case mode_t(S_IFREG): "a regular file"
    case mode_t(S_IFDIR): "a folder"
    case mode_t(S_IFLNK): "a symbolic link"
    case mode_t(S_IFIFO): "a named pipe"
    case mode_t(S_IFCHR), mode_t(S_IFBLK): "a device"
    default: "a file of another kind"
    }
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
    let result = withSocketAddress(&address) {
      listening ? bind(fd, $0, $1) : connect(fd, $0, $1)
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

  /// Calls `body` with `address` as the `sockaddr` pointer and length that `bind` and
  /// `connect` take.
  private static func withSocketAddress<Address>(
    _ address: inout Address, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Int32 {
    let size = socklen_t(MemoryLayout<Address>.size)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, size) }
    }
  }

  /// The bytes `sun_path` holds, the terminating zero included.
  private static let unixPathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

  private static func unixAddress(_ path: String) throws(SystemError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < unixPathCapacity else {
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
