/// One stream's cached activations: each new frame computes only the newest column of each
/// layer, and the probabilities equal the window forward pass over the last T frames.
///
/// Concept: layer l keeps a ring of the last (k − 1)·d + 1 columns of its input, exactly what
/// its newest output column reads; the last layer's outputs go into a ring of T_out columns
/// that the pooling averages. A new stream starts as if it had seen T frames of nobody, which
/// is what the window forward pass sees in a window zero-padded at its start, so the two agree
/// from the first frame on.
///
/// Allocates at `init`, never per frame. Not thread-safe: one state per stream.
public final class StreamState {
  public let classifier: Classifier
  /// Frames pushed since `init` or `reset()`.
  public private(set) var framesSeen = 0
  private var rings: [ColumnRing]  // layer l's input history; the last ring is the pooled history
  private let taps: UnsafeMutableBufferPointer<Float>
  private let column: [UnsafeMutableBufferPointer<Float>]  // scratch output column per layer
  private let pooled: UnsafeMutableBufferPointer<Float>

  init(classifier: Classifier) {
    self.classifier = classifier
    let config = classifier.config
    rings = config.convolutions.enumerated().map { index, layer in
      ColumnRing(columns: layer.reach + 1, channels: config.inputChannels(of: index))
    }
    rings.append(ColumnRing(columns: config.pooledFrames, channels: config.pooledChannels))
    let widest = config.convolutions.enumerated().map {
      $0.element.kernel * config.inputChannels(of: $0.offset)
    }.max()!
    taps = .allocate(capacity: widest)
    taps.initialize(repeating: 0)
    column = config.convolutions.map {
      let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: $0.channels)
      buffer.initialize(repeating: 0)
      return buffer
    }
    pooled = .allocate(capacity: config.pooledChannels)
    pooled.initialize(repeating: 0)
    reset()
  }

  deinit {
    taps.deallocate()
    for buffer in column { buffer.deallocate() }
    pooled.deallocate()
  }

  /// Back to the start of a stream: as if T frames of nobody had been seen.
  public func reset() {
    framesSeen = 0
    rings[0].fill(with: nil)
    for index in 1..<rings.count { rings[index].fill(with: classifier.restingColumns[index - 1]) }
  }

  /// Takes one frame's F features (all zeros for nobody) and updates every layer's newest
  /// column. Allocates nothing.
  public func push(_ features: UnsafeBufferPointer<Float>) {
    let config = classifier.config
    precondition(
      features.count == config.inputFeatures,
      "frame has \(features.count) features, the model takes F = \(config.inputFeatures)")
    rings[0].append(features)
    for (index, layer) in config.convolutions.enumerated() {
      let width = layer.kernel * config.inputChannels(of: index)
      let gathered = UnsafeMutableBufferPointer(rebasing: taps[0..<width])
      rings[index].gather(kernel: layer.kernel, dilation: layer.dilation, into: gathered)
      TemporalConvolution.column(
        taps: UnsafeBufferPointer(gathered), weight: classifier.convolutionWeight(index),
        bias: classifier.convolutionBias(index), output: column[index])
      rings[index + 1].append(UnsafeBufferPointer(column[index]))
    }
    framesSeen += 1
  }

  /// The probabilities over the model's labels for the last T frames (K floats). Allocates
  /// nothing.
  public func probabilities(into output: UnsafeMutableBufferPointer<Float>) {
    let config = classifier.config
    precondition(output.count == config.classes, "probabilities need K = \(config.classes) floats")
    rings[rings.count - 1].average(into: pooled)
    Head.linear(
      pooled: UnsafePointer(pooled.baseAddress!), batch: 1, channels: config.pooledChannels,
      weight: classifier.linearWeight, bias: classifier.linearBias, classes: config.classes,
      logits: output.baseAddress!)
    Head.softmax(output.baseAddress!, batch: 1, classes: config.classes)
  }
}

extension StreamState {
  /// The probabilities as a new array. Allocates: for tools and tests, not the live path.
  public func probabilities() -> [Float] {
    var output = [Float](repeating: 0, count: classifier.config.classes)
    output.withUnsafeMutableBufferPointer { probabilities(into: $0) }
    return output
  }
}

/// A fixed ring of the last `columns` columns of `channels` floats.
struct ColumnRing {
  let columns: Int
  let channels: Int
  private var storage: [Float]
  private var next = 0  // slot of the next append; the oldest column once full

  init(columns: Int, channels: Int) {
    self.columns = columns
    self.channels = channels
    storage = Array(repeating: 0, count: columns * channels)
  }

  /// Sets every column to `value`, or zeros.
  mutating func fill(with value: [Float]?) {
    next = 0
    storage.withUnsafeMutableBufferPointer { buffer in
      for slot in 0..<columns {
        let target = UnsafeMutableBufferPointer(
          rebasing: buffer[slot * channels..<(slot + 1) * channels])
        if let value {
          _ = target.update(fromContentsOf: value)
        } else {
          target.update(repeating: 0)
        }
      }
    }
  }

  mutating func append(_ values: UnsafeBufferPointer<Float>) {
    let slot = next
    let channels = channels
    storage.withUnsafeMutableBufferPointer { buffer in
      _ = UnsafeMutableBufferPointer(rebasing: buffer[slot * channels..<(slot + 1) * channels])
        .update(fromContentsOf: values)
    }
    next = next + 1 == columns ? 0 : next + 1
  }

  /// Copies the taps of the newest output column, oldest first: tap j is the column
  /// (k − 1 − j)·d appends ago.
  func gather(kernel: Int, dilation: Int, into taps: UnsafeMutableBufferPointer<Float>) {
    storage.withUnsafeBufferPointer { buffer in
      for tap in 0..<kernel {
        let age = (kernel - 1 - tap) * dilation
        let slot = (next - 1 - age + 2 * columns) % columns
        (taps.baseAddress! + tap * channels).update(
          from: buffer.baseAddress! + slot * channels, count: channels)
      }
    }
  }

  /// The mean of all columns.
  func average(into output: UnsafeMutableBufferPointer<Float>) {
    output.update(repeating: 0)
    storage.withUnsafeBufferPointer { buffer in
      for slot in 0..<columns {
        let base = buffer.baseAddress! + slot * channels
        for c in 0..<channels { output[c] += base[c] }
      }
    }
    let scale = 1 / Float(columns)
    for c in 0..<channels { output[c] *= scale }
  }
}
