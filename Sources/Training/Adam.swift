#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Adam (Kingma & Ba) with decoupled weight decay, over one flat parameter buffer.
public struct Adam: Sendable {
  public var learningRate: Float
  public var beta1: Float = 0.9
  public var beta2: Float = 0.999
  public var epsilon: Float = 1e-8
  /// Decoupled weight decay per step, times the learning rate (AdamW); biases are decayed too,
  /// which at this size does no harm and keeps the update one loop.
  public var weightDecay: Float
  private var m: [Float]
  private var v: [Float]
  private var steps = 0

  public init(parameterCount: Int, learningRate: Float = 2e-3, weightDecay: Float = 1e-4) {
    self.learningRate = learningRate
    self.weightDecay = weightDecay
    m = [Float](repeating: 0, count: parameterCount)
    v = m
  }

  /// One update of `parameters` from `gradients`.
  public mutating func update(_ parameters: inout [Float], gradients: [Float]) {
    precondition(parameters.count == m.count && gradients.count == m.count)
    steps += 1
    let correction1 = 1 - powf(beta1, Float(steps))
    let correction2 = 1 - powf(beta2, Float(steps))
    for i in parameters.indices {
      let g = gradients[i]
      m[i] = beta1 * m[i] + (1 - beta1) * g
      v[i] = beta2 * v[i] + (1 - beta2) * g * g
      let step = (m[i] / correction1) / ((v[i] / correction2).squareRoot() + epsilon)
      parameters[i] -= learningRate * (step + weightDecay * parameters[i])
    }
  }
}
