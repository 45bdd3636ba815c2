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
    /// A resume of session `id` by the stream's own session `resumer`: a session live on
    /// another connection is handed over (`handOver`, `takeOver`); any other is the history's
    /// to answer, given to `claimed(_:into:)` when it comes. The stream holds its lines
    /// meanwhile, and should not be read.
    case claim(id: String, resumer: String)
    /// The stream's session of one person is under way, as `uid`: a client that reconnects
    /// may take it over by that id (`handOver`).
    case live(uid: String)
    /// Keep the session's progress in the history; `checkpointStored(_:into:)` once stored.
    case checkpoint(Checkpoint)
    /// Store a finished session (counted in `sessions_finished`).
    case record(SessionRecord, uid: String)
  }
}
