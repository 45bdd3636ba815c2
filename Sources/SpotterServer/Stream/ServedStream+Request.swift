import History
import Spotter

extension ServedStream {
  /// What a stream asks of the server, in the order it asks: it holds no reference to the
  /// daemon, so the daemon takes these after each call into it (`nextRequest()`) and does them.
  enum Request {
    /// The server's counters (`{"cmd":"stats"}`), now: the daemon answers with
    /// `answer(stats:into:)` before it calls the stream again, so the reply takes the
    /// command's place among the events. `receive` stops after asking (it returns false).
    case stats
    /// The history's answer to a resume of session `id` by the stream's own session
    /// `resumer`, given to `claimed(_:asked:into:)` when it comes; the stream holds its lines
    /// meanwhile, and should not be read.
    case claim(id: String, resumer: String)
    /// Keep the session's progress in the history; `checkpointStored(_:into:)` once stored.
    case checkpoint(Checkpoint)
    /// Store a finished session (counted in `sessions_finished`).
    case record(SessionRecord, uid: String)
  }
}
