import Foundation
import TestSupport
import Testing

@testable import SpotterServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The daemon's Unix socket is its own: only its user may connect, whatever the umask; a path
/// another server answers on, or that holds anything but a socket, is refused and left as it
/// is; a dead daemon's socket is replaced; and at stop only the socket it made is removed.
/// Serialized: one test sets the process umask, which every thread shares.
@Suite(.serialized) struct SocketPathTests {
  /// A socket path in a new folder of the test's own.
  static func freshPath() -> String { Fixtures.temporaryFolder("socket") + "/s.sock" }

  /// The names in the folder of `path`: only the socket's when nothing was left behind.
  static func names(besides path: String) -> [String] {
    let folder = (path as NSString).deletingLastPathComponent
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
  }

  /// Whether a client can connect to the socket at `path`.
  static func connects(_ path: String) -> Bool {
    guard let fd = try? Socket.connectUnix(path: path) else { return false }
    close(fd)
    return true
  }

  @Test(arguments: [0o000, 0o022, 0o077] as [mode_t])
  func onlyTheOwnerMayConnectWhateverTheUmask(umaskWhileListening: mode_t) throws {
    let path = Self.freshPath()
    let previous = umask(umaskWhileListening)
    let listening = Result { () throws(SystemError) in try Socket.listenUnixOwned(path: path) }
    umask(previous)
    let listener = try listening.get()
    defer { listener.descriptor.close() }
    var info = stat()
    #expect(lstat(path, &info) == 0)
    #expect(info.st_mode & mode_t(S_IFMT) == mode_t(S_IFSOCK))
    #expect(info.st_mode & 0o7777 == 0o600)
    #expect(FileIdentity(ofFileAt: path) == listener.file)
    #expect(Self.connects(path))
    #expect(Self.names(besides: path) == ["s.sock"])
  }

  @Test func aPathAServerAnswersOnIsRefusedAndKept() throws {
    let path = Self.freshPath()
    let first = try Socket.listenUnixOwned(path: path)
    defer { first.descriptor.close() }
    let error = #expect(throws: SystemError.self) { try Socket.listenUnixOwned(path: path) }
    #expect(error?.code == EADDRINUSE)
    #expect(error?.description.hasPrefix("a server already answers on \(path)") == true)
    #expect(FileIdentity(ofFileAt: path) == first.file)
    #expect(Self.connects(path))
    #expect(Self.names(besides: path) == ["s.sock"])
  }

  @Test func theSocketOfADeadServerIsReplaced() throws {
    let path = Self.freshPath()
    let dead = try Socket.listenUnixOwned(path: path)
    dead.descriptor.close()
    #expect(!Self.connects(path))
    let listener = try Socket.listenUnixOwned(path: path)
    defer { listener.descriptor.close() }
    #expect(listener.file != dead.file)
    #expect(FileIdentity(ofFileAt: path) == listener.file)
    #expect(Self.connects(path))
  }

  /// Something other than a socket at the path, and how the refusal names it.
  enum Occupant: String, CaseIterable {
    case regularFile = "a regular file"
    case folder = "a folder"
    case symbolicLink = "a symbolic link"
  }

  @Test(arguments: Occupant.allCases)
  func anythingButASocketIsRefusedAndKept(_ occupant: Occupant) throws {
    let path = Self.freshPath()
    let content = Data("the user's own\n".utf8)
    switch occupant {
    case .regularFile: #expect(FileManager.default.createFile(atPath: path, contents: content))
    case .folder: #expect(mkdir(path, 0o755) == 0)
    case .symbolicLink: #expect(symlink("elsewhere.sock", path) == 0)
    }
    let before = FileIdentity(ofFileAt: path)
    let error = #expect(throws: SystemError.self) { try Socket.listenUnixOwned(path: path) }
    #expect(error?.code == EEXIST)
    #expect(error?.description.hasPrefix("\(path) is \(occupant.rawValue), not a socket") == true)
    #expect(before != nil && FileIdentity(ofFileAt: path) == before)
    if occupant == .regularFile { #expect(FileManager.default.contents(atPath: path) == content) }
    #expect(Self.names(besides: path) == ["s.sock"])
  }

  @Test func aMissingFolderIsNamed() {
    let folder = Fixtures.temporaryFolder("socket") + "/missing"
    let error = #expect(throws: SystemError.self) {
      try Socket.listenUnixOwned(path: folder + "/s.sock")
    }
    #expect(error?.code == ENOENT)
    #expect(error?.description.contains("the folder \(folder) does not exist") == true)
  }

  @Test func stoppingLeavesTheSocketAnotherServerPutAtThePath() throws {
    let path = Self.freshPath()
    let first = try Socket.listenUnixOwned(path: path)
    defer { first.descriptor.close() }
    // The path is freed while the first server runs, and a second one takes it.
    #expect(unlink(path) == 0)
    let second = try Socket.listenUnixOwned(path: path)
    defer { second.descriptor.close() }
    #expect(!Socket.removeUnix(path: path, made: first.file))
    #expect(FileIdentity(ofFileAt: path) == second.file)
    #expect(Self.connects(path))
    #expect(Socket.removeUnix(path: path, made: second.file))
    #expect(FileIdentity(ofFileAt: path) == nil)
  }
}
