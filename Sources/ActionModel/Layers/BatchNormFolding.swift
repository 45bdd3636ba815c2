/// Folds a batch-norm layer that follows a convolution into the convolution's weights and
/// bias, so inference pays nothing for it.
///
/// BN(y) = γ · (y − μ) / √(σ² + ε) + β. With y = W x + b, that is W' x + b' where
/// W' = W · s and b' = (b − μ) · s + β, per output channel, s = γ / √(σ² + ε).
public enum BatchNormFolding {
  /// Shapes: weight (k, C_in, C_out), bias and every statistic (C_out).
  public static func fold(
    weight: inout [Float], bias: inout [Float], gamma: [Float], beta: [Float], mean: [Float],
    variance: [Float], epsilon: Float = 1e-5
  ) {
    let channels = bias.count
    precondition(
      gamma.count == channels && beta.count == channels && mean.count == channels
        && variance.count == channels)
    precondition(
      weight.count % channels == 0, "weight of \(weight.count) floats is not (…, \(channels))")
    let scale = (0..<channels).map { gamma[$0] / (variance[$0] + epsilon).squareRoot() }
    for index in weight.indices { weight[index] *= scale[index % channels] }
    for c in 0..<channels { bias[c] = (bias[c] - mean[c]) * scale[c] + beta[c] }
  }
}
