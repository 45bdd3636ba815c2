import ActionModel

/// The due predictions of many sessions, made together: the runtime's batching service for a
/// caller that drives many sessions (the daemon), so the network's types stay inside the
/// runtime.
///
/// For sessions made with `Runtime.makeSession(batchingPredictions: true)`: after a round of
/// pushes, `add` each session with a prediction due, then `catchUp()`: their network states
/// catch up together, one GEMM a layer over all of them (`StreamState.catchUp(together:)`), so
/// each weight read serves them all. Then each session makes its prediction
/// (`Session.makeDuePrediction(emit:)`), which finds its network caught up. The list is kept
/// from round to round, so once it has held its largest round a round allocates nothing.
public struct PredictionBatch {
  /// The network states of the sessions added since the last catch-up.
  private var states: [StreamState] = []

  public init() {}

  /// Adds `session`'s network state, if it has a prediction due.
  public mutating func add(_ session: Session) {
    if session.predictionDue { states.append(session.streamState) }
  }

  /// Catches up the added sessions' network states together, and empties the batch.
  public mutating func catchUp() {
    StreamState.catchUp(together: states)
    states.removeAll(keepingCapacity: true)
  }
}
