/// Progress of long work on standard error, only when a person is watching it (a terminal):
/// `clip 12/148`, redrawn in place.
final class Progress {
  let total: Int
  let unit: String
  private let shown = Terminal.isTerminal(2)

  init(total: Int, unit: String) {
    self.total = total
    self.unit = unit
  }

  func advance(to done: Int) {
    if shown { Terminal.error("\r\(unit) \(done)/\(total)", newline: false) }
  }

  func finish() {
    if shown { Terminal.error("") }
  }
}
