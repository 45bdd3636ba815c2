import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where one part of a check runs: the address the other parts reach it at, and what starts a
/// program there.
struct Host {
  /// What runs there, for names: `db`, `lb`, `cl`, `d1`.
  let role: String
  /// Its IPv4 address: 127.0.0.1 on loopback, else its own on the check's network.
  let address: String
  /// What runs a program on it (`ip netns exec NAMESPACE`); nothing on this machine's network.
  let launcher: [String]

  /// This machine's own network, shared with every other part on loopback.
  static func loopback(_ role: String) -> Host {
    Host(role: role, address: "127.0.0.1", launcher: [])
  }

  var isLoopback: Bool { launcher.isEmpty }

  /// `standard` on a host of its own; on loopback, where the parts share the ports, a free one.
  func port(_ standard: UInt16) throws -> UInt16 {
    isLoopback ? try LocalServers.freePort() : standard
  }

  /// The command line that runs `command` (a program's path, then its arguments) on this host.
  func command(_ command: [String]) -> [String] { launcher + command }

  /// A process that runs `command` on this host, not yet started.
  func process(_ command: [String]) -> Process {
    let line = self.command(command)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: line[0])
    process.arguments = Array(line.dropFirst())
    return process
  }
}

/// Hosts of their own on this machine, for a check whose parts should talk across a network:
/// a network namespace each, linked by a veth pair to a bridge the network makes, addressed
/// from the benchmarking range 198.18.0.0/15 (RFC 2544: never routed on the internet) with no
/// default route, so no traffic leaves them. The bench itself, in the root namespace, has the
/// first address, on the bridge. Needs root and iproute2's `ip`.
///
/// Names carry the bench's pid: `spf<PID>-br` is the bridge, `spf<PID>-<role>` a namespace
/// and the bridge's end of its link (the other end, inside, is `eth0`). So a run removes what it
/// made when it ends, fails or is stopped (SIGTERM, SIGINT), and the next run removes what a
/// run that was killed (SIGKILL) left behind: everything named for a pid whose bench is gone,
/// processes in its namespaces included. Each run takes a /24 that no other run here holds, so
/// two runs at once never meet.
final class HostNetwork {
  /// The range every check's hosts are in.
  static let range = "198.18.0.0/15"
  static let prefix = "spf"

  /// `spf<PID>`: the start of every name this network gives.
  let name: String
  /// The first three parts of this run's /24 (`198.18.7`); the bench is `.1` on the bridge.
  let subnet: String
  private let ip: String
  private var bridge: String { name + "-br" }

  /// Makes the bridge; hosts come with `host(_:number:)`. Throws when not root or when `ip`
  /// fails, having removed what it made.
  init() throws {
    guard geteuid() == 0 else {
      throw LocalServers.Failure(description: "network namespaces need root")
    }
    ip = try Self.ipProgram()
    name = Self.prefix + "\(getpid())"
    // Choosing a /24 and taking it is one step for every run on this machine.
    let lock = open(NSTemporaryDirectory() + "spotter-host-network.lock", O_CREAT | O_RDWR, 0o600)
    defer { close(lock) }
    flock(lock, LOCK_EX)
    let taken = try LocalServers.run([ip, "-o", "-4", "address", "show"])
    subnet = try Self.freeSubnet(taken: taken, from: Int(getpid()))
    ChildProcesses.atStop(name) { [ip, name] in Self.remove(named: name, ip: ip) }
    do {
      try LocalServers.run([ip, "link", "add", bridge, "type", "bridge"])
      try LocalServers.run([ip, "address", "add", subnet + ".1/24", "dev", bridge])
      try LocalServers.run([ip, "link", "set", bridge, "up"])
    } catch {
      remove()
      throw error
    }
  }

  /// A host of its own at `SUBNET.number`: a namespace with loopback and `eth0`, linked to the
  /// bridge. Throws, having removed the network, when `ip` fails.
  func host(_ role: String, number: Int) throws -> Host {
    precondition((2...254).contains(number), "host number \(number) is not in 2...254")
    let namespace = "\(name)-\(role)"
    precondition(namespace.utf8.count < 15, "link name \(namespace)p is over 15 bytes")
    let inside = [ip, "-n", namespace]
    do {
      try LocalServers.run([ip, "netns", "add", namespace])
      try LocalServers.run([
        ip, "link", "add", namespace, "type", "veth", "peer", "name", namespace + "p",
      ])
      try LocalServers.run([ip, "link", "set", namespace + "p", "netns", namespace])
      try LocalServers.run(inside + ["link", "set", namespace + "p", "name", "eth0"])
      try LocalServers.run(inside + ["address", "add", "\(subnet).\(number)/24", "dev", "eth0"])
      try LocalServers.run(inside + ["link", "set", "eth0", "up"])
      try LocalServers.run(inside + ["link", "set", "lo", "up"])
      try LocalServers.run([ip, "link", "set", namespace, "master", bridge, "up"])
    } catch {
      remove()
      throw error
    }
    return Host(
      role: role, address: "\(subnet).\(number)", launcher: [ip, "netns", "exec", namespace])
  }

  /// Removes the namespaces (ending what still runs in them), their links and the bridge.
  func remove() {
    ChildProcesses.forget(name)
    Self.remove(named: name, ip: ip)
  }

  /// Removes everything named for a bench that is gone: what a run killed with SIGKILL left.
  /// Returns the pids of those runs.
  static func removeLeftovers() -> [Int32] {
    guard geteuid() == 0, let ip = try? ipProgram() else { return [] }
    var gone = Set<Int32>()
    for name in namespaces(ip: ip).union(links(ip: ip)) {
      guard let pid = owner(of: name), pid != getpid(), !benchIsRunning(pid) else { continue }
      gone.insert(pid)
    }
    for pid in gone { remove(named: prefix + "\(pid)", ip: ip) }
    return gone.sorted()
  }

  /// Removes every namespace and link whose name starts `name-`, first killing the processes
  /// in those namespaces (what the run started there), so that nothing keeps them.
  private static func remove(named name: String, ip: String) {
    let namespaces = namespaces(ip: ip).filter { $0.hasPrefix(name + "-") }
    for namespace in namespaces {
      let pids = ((try? LocalServers.run([ip, "netns", "pids", namespace])) ?? "")
        .split(separator: "\n").compactMap { Int32($0) }
      for pid in pids { kill(pid, SIGKILL) }
    }
    // A veth pair goes with either end; the bridge goes last.
    let links = links(ip: ip).filter { $0.hasPrefix(name + "-") }
    for link in links.filter({ !$0.hasSuffix("-br") }) + links.filter({ $0.hasSuffix("-br") }) {
      _ = try? LocalServers.run([ip, "link", "delete", link])
    }
    for namespace in namespaces { _ = try? LocalServers.run([ip, "netns", "delete", namespace]) }
  }

  /// The network namespaces named as this kind of network names them (`spf<PID>-…`).
  private static func namespaces(ip: String) -> Set<String> {
    let lines = ((try? LocalServers.run([ip, "netns", "list"])) ?? "").split(separator: "\n")
    // `spf123-db (id: 3)`
    return Set(lines.compactMap { $0.split(separator: " ").first.map(String.init) })
      .filter { owner(of: $0) != nil }
  }

  /// The root namespace's links named as this kind of network names them.
  private static func links(ip: String) -> Set<String> {
    let lines = ((try? LocalServers.run([ip, "-o", "link", "show"])) ?? "").split(separator: "\n")
    // `7: spf123-db@if6: <BROADCAST,…`: the name is the second field, before any `@`.
    return Set(
      lines.compactMap { line -> String? in
        let fields = line.split(separator: " ")
        guard fields.count > 1 else { return nil }
        return String(fields[1].split(separator: ":")[0].split(separator: "@")[0])
      }
    ).filter { owner(of: $0) != nil }
  }

  /// iproute2's `ip`.
  private static func ipProgram() throws -> String {
    try LocalServers.program(
      "iproute2's ip", in: ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"],
      install: "iproute2")
  }

  /// The pid in a name this kind of network gives, `spf<PID>-…`.
  private static func owner(of name: String) -> Int32? {
    guard name.hasPrefix(prefix), let dash = name.firstIndex(of: "-") else { return nil }
    return Int32(name[name.index(name.startIndex, offsetBy: prefix.count)..<dash])
  }

  /// Whether `pid` is a `spotter-bench` still running (not a process that took its number).
  private static func benchIsRunning(_ pid: Int32) -> Bool {
    let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
    return command.trimmingCharacters(in: .whitespacesAndNewlines) == "spotter-bench"
  }

  /// The first /24 of 198.18.0.0/15 that no address in `taken` (`ip -o -4 address show`) is in,
  /// trying from `from` modulo 512.
  private static func freeSubnet(taken: String, from: Int) throws -> String {
    for step in 0..<512 {
      let index = (from + step) % 512
      let subnet = index < 256 ? "198.18.\(index)" : "198.19.\(index - 256)"
      if !taken.contains(" \(subnet).") { return subnet }
    }
    throw LocalServers.Failure(description: "every /24 of \(range) is taken on this machine")
  }
}
