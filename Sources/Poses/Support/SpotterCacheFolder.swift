import Foundation

/// Where Spotter keeps what it makes once and reuses: the network's measured execution plans
/// (`ActionModel`'s `Planner`) and the video detector's Python environment (`VideoPoses`).
///
/// One rule for both, the XDG Base Directory one: `$XDG_CACHE_HOME/spotter` when that variable
/// is an absolute path (a relative one is to be ignored, as the specification says), else
/// `$HOME/.cache/spotter`, else the user's home as the system knows it. Both callers must
/// agree, or a relative `XDG_CACHE_HOME` would put the plans in one folder and the detector in
/// another.
public enum SpotterCacheFolder {
  /// The folder, from `environment`'s `XDG_CACHE_HOME` and `HOME`.
  public static func path(_ environment: [String: String]) -> String {
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
      return (cache as NSString).appendingPathComponent("spotter")
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return (home as NSString).appendingPathComponent(".cache/spotter")
  }
}
