import Foundation

/// Finds streams whose every frame was min-max normalised to its own box (a pipeline quirk:
/// each axis of each frame stretched to 0…1) and puts their poses back into proportion.
///
/// Such a frame has lost three things: its aspect (x and y are stretched by different, changing
/// factors, so lengths and angles mix them), its scale (a squat shrinks the person's box and the
/// stretch takes the height change back out) and its position (the box moves whenever an arm or
/// a foot does). The aspect can be recovered from the body's own proportions: the body-size
/// segments (torso 1, shoulders 0.75, upper arms 0.6, thighs and shins 0.85 of a torso) should
/// come out at their shares, `share² ≈ α·dx² + β·dy²`, fitted per frame by weighted least
/// squares that lets foreshortened segments (shorter than 0.8 of their share) count for less and
/// leans towards the recent aspect when the frame cannot tell (every segment along one axis).
/// Then x is scaled by √(α/β), and one unit is as long across the picture as up it. The scale
/// and the position stay lost: the rep engines are told (`RepCounter.positionsAreLost`) and
/// measure each frame in its own scale, without the travel check, and follow anchors side to
/// side.
///
/// Recognition (causal, then latched for the stream): of the last 30 frames with a person, at
/// least 27 have every joint within the frame's box (±0.01) spanning at least 0.6 of both axes,
/// and 15 of those touch its edge (within 0.002). The box is 0…1 of the source's units
/// (normalised coordinates that the reader scaled to the image's pixels are measured back in
/// the image), or for pixels the image, when the source gives its size: a pipeline may scale
/// each normalised frame to the picture. The thresholds are set so that it fires on real
/// per-frame-normalised recordings within their first 30 frames with a person, and on none of
/// the recordings in proportion it was checked on (README, "How a frame flows"). Before it
/// fires, frames pass unchanged. Allocates nothing per frame.
public struct FrameBoxCorrector: Sendable {
  /// Whether the stream has been recognised as normalised frame by frame.
  public private(set) var isCorrecting = false
  private var boxLike = FixedRing(capacity: 30, repeating: (box: false, edge: false))
  /// Of the frames in `boxLike`, those that are box-like and those that touch the edge: kept
  /// as frames come and go, since most streams are never recognised and look every frame.
  private var boxes = 0
  private var edges = 0
  private var logAspects = RunningMedian(capacity: 30)
  /// The last fitted length of an x unit in y units.
  private var aspect: Float?

  public init() {}

  /// Forgets the stream.
  public mutating func reset() { self = FrameBoxCorrector() }

  /// Takes one pose (`.nobody` passes through) and returns it corrected, once the stream is
  /// recognised. `box` is what a frame normalised to its own box fills in Spotter's
  /// coordinates (`PeopleFrame.box`).
  public mutating func correct(_ pose: Pose, box: (x: Float, y: Float) = (1, 1)) -> Pose {
    guard pose.hasPerson else { return pose }
    if !isCorrecting { recognise(pose, box: box) }
    guard isCorrecting else { return pose }
    return restore(pose)
  }

  // MARK: recognising

  private mutating func recognise(_ pose: Pose, box frame: (x: Float, y: Float)) {
    var (minX, minY, maxX, maxY) = (
      Float.infinity, Float.infinity, -Float.infinity, -Float.infinity
    )
    for index in pose.joints.indices where !pose.joints[index].isMissing {
      let joint = pose.joints[index]
      (minX, maxX) = (min(minX, joint.x), max(maxX, joint.x))
      (minY, maxY) = (min(minY, joint.y), max(maxY, joint.y))
    }
    /// Whether the pose fills `box` as a frame normalised to it would, and touches its edge.
    func fills(_ box: (x: Float, y: Float)) -> (box: Bool, edge: Bool) {
      let (x0, x1, y0, y1) = (minX / box.x, maxX / box.x, minY / box.y, maxY / box.y)
      let inside = x0 >= -0.01 && y0 >= -0.01 && x1 <= 1.01 && y1 <= 1.01
      let filled = inside && x1 - x0 >= 0.6 && y1 - y0 >= 0.6
      return (filled, filled && (x0 <= 0.002 || y0 <= 0.002 || x1 >= 0.998 || y1 >= 0.998))
    }
    // Values of 0…1 in a file that calls them pixels are a normalised frame too.
    let framed = fills(frame)
    let (box, edge) = framed.box || frame == (1, 1) ? framed : fills((1, 1))
    let gone = boxLike.append((box, edge))
    boxes += (box ? 1 : 0) - (gone?.box == true ? 1 : 0)
    edges += (edge ? 1 : 0) - (gone?.edge == true ? 1 : 0)
    guard boxLike.isFull else { return }
    isCorrecting = boxes >= 27 && edges >= 15
  }

  // MARK: restoring

  private mutating func restore(_ pose: Pose) -> Pose {
    if let (alpha, beta) = fit(pose) {
      logAspects.add(log(alpha / beta))
      aspect = (alpha / beta).squareRoot()
    }
    guard let aspect else { return pose }
    var result = pose
    for index in result.joints.indices where !result.joints[index].isMissing {
      result.joints[index].x *= aspect
    }
    return result
  }

  /// (α, β) with share² ≈ α·dx² + β·dy² over the frame's body-size segments; nil when fewer
  /// than two are seen or the fit is not positive. Four rounds: each reweights segments that
  /// came out shorter than 0.8 of their share by (q / 0.8)³, since foreshortening only shortens.
  private func fit(_ pose: Pose) -> (Float, Float)? {
    var rows = InlineArray<8, (a: Float, b: Float)>(repeating: (0, 0))
    var count = 0
    func add(_ from: Joint, _ to: Joint, share: Float) {
      guard from.confidence > 0.1, to.confidence > 0.1 else { return }
      let (dx, dy) = ((from.x - to.x) / share, (from.y - to.y) / share)
      rows[count] = (dx * dx, dy * dy)
      count += 1
    }
    let (neck, right, left) = (pose[.neck], pose[.rightHip], pose[.leftHip])
    if !right.isMissing && !left.isMissing {
      add(neck, Pose.midpoint(right, left), share: 1)
    }
    for (a, b, share) in BodySizeEstimator.segments { add(pose[a], pose[b], share: share) }
    guard count >= 2 else { return nil }
    let prior = logAspects.median.map { exp($0) }
    var weights = InlineArray<8, Float>(repeating: 1)
    var solution: (Float, Float)?
    for _ in 0..<4 {
      var (maa, mab, mbb, ra, rb): (Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0)
      for index in 0..<count {
        let (a, b, w) = (rows[index].a, rows[index].b, weights[index])
        maa += w * a * a
        mab += w * a * b
        mbb += w * b * b
        ra += w * a
        rb += w * b
      }
      let trace = maa + mbb
      if let prior {
        // A light ridge towards α/β = prior: along e = (1, −prior), 5% of the trace.
        let norm = 1 + prior * prior
        let ridge = 0.05 * trace / norm
        maa += ridge
        mab -= ridge * prior
        mbb += ridge * prior * prior
      } else {
        maa += 1e-9 * trace
        mbb += 1e-9 * trace
      }
      let determinant = maa * mbb - mab * mab
      guard determinant != 0, determinant.isFinite else { return nil }
      let alpha = (ra * mbb - rb * mab) / determinant
      let beta = (maa * rb - mab * ra) / determinant
      guard alpha > 0, beta > 0 else { return nil }
      solution = (alpha, beta)
      for index in 0..<count {
        let q = rows[index].a * alpha + rows[index].b * beta
        weights[index] = q >= 0.8 ? 1 : pow(max(q, 1e-6) / 0.8, 3)
      }
    }
    return solution
  }
}
