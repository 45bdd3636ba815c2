import Foundation

/// Progress of long work on standard error, only when a person is watching it (a terminal):
/// `clip 12/148`, redrawn in place.
final class ProgressLine {
  let total: Int
  let unit: String
  private let shown = Terminal.isTerminal(2)
  private var lastDrawn: Date?

  init(total: Int, unit: String) {
    self.total = total
    self.unit = unit
  }

  func advance(to done: Int) {
    if shown { Terminal.error("\r\(unit) \(done)/\(total)", newline: false) }
  }

  /// `unit done/total, detail`, over the last line whatever its length; drawn at most five
  /// times a second, so a fast loop spends its time on its work and not on the terminal. The
  /// last step of a known total is always drawn, so the line ends on it; with no total (0) there
  /// is no last step to know, and every step is throttled alike.
  func advance(to done: Int, detail: String) {
    guard shown else { return }
    let now = Date()
    let isLast = total > 0 && done >= total
    if let last = lastDrawn, now.timeIntervalSince(last) < 0.2, !isLast { return }
    lastDrawn = now
    let count = total > 0 ? "\(done)/\(total)" : "\(done)"
    Terminal.error("\r\(unit) \(count), \(detail)\u{1B}[K", newline: false)
  }

  func finish() {
    if shown { Terminal.error("") }
  }
}
