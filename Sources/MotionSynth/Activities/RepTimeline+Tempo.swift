import Foundation
import Randomness

extension RepTimeline {
  /// A set laid out at a drawn tempo (the `tempo` realism): it lasts exactly
  /// `tempo.secondsPerRep` times `count`, from rest to rest.
  ///
  /// The set's time goes to a short lead-in and lead-out at rest (at most a tenth of the set
  /// each), and the rest to the reps, each rep's share following the tempo's pace (steady,
  /// ramped or stepped) with jitter. Each rep's time holds its way down, its hold at the
  /// bottom, its way up and its rest at the top before the next; the rep's bounds run from
  /// leaving the top to getting back, so a rest between reps is in no rep. Abandoned movements
  /// (`partialReps`, placed as `init(reps:secondsPerRep:…)` places them) take a little over
  /// half a rep's time, without a hold.
  ///
  /// - Parameters:
  ///   - depth, depthSpread: as for `init(reps:secondsPerRep:…)`; `tempo.depth` wins over
  ///     `depth` when it is set.
  public init(
    reps count: Int, tempo: SetTempo, partialReps: Int = 0, alternating: Bool = false,
    depth: Double = 1, depthSpread: Double = 0.075, generator: inout SeededGenerator
  ) {
    precondition(count > 0, "RepTimeline: a set has reps")
    let total = tempo.secondsPerRep * Double(count)
    let leadIn = min(0.1 + 0.3 * generator.unit(), 0.1 * total)
    let leadOut = min(0.1 + 0.3 * generator.unit(), 0.1 * total)
    var side: Side = generator.unit() < 0.5 ? .left : .right
    let slots = count + partialReps
    let partialSlots = Self.partialSlots(reps: count, partialReps: partialReps, &generator)
    let weights = (0..<slots).map { slot in
      tempo.pace(slot, of: slots) * (1 - tempo.jitter + 2 * tempo.jitter * generator.unit())
        * (partialSlots.contains(slot) ? 0.6 : 1)
    }
    let scale = (total - leadIn - leadOut) / weights.reduce(0, +)
    let setDepth = tempo.depth ?? depth
    var reps: [Rep] = []
    var t = leadIn
    for slot in 0..<slots {
      let partial = partialSlots.contains(slot)
      let cycle = weights[slot] * scale
      // The last rep's rest at the top is the lead-out.
      let rest = slot + 1 == slots ? 0 : cycle * tempo.topPause
      let hold = partial ? 0 : cycle * tempo.bottomHold
      let moving = cycle - rest - hold
      let down = moving * (0.4 + 0.2 * generator.unit())
      let depthOfRep = Self.depth(
        partial: partial, set: setDepth, spread: depthSpread, &generator)
      let start = t
      let end = start + moving + hold
      reps.append(
        Rep(
          start: start, bottom: start + down, rise: start + down + hold, end: end,
          depth: depthOfRep, isPartial: partial, side: side))
      if alternating { side = side.other }
      t = end + rest
    }
    self.init(reps: reps, duration: total)
  }

  /// A timeline of reps already laid out.
  init(reps: [Rep], duration: Double) {
    self.reps = reps
    self.duration = duration
  }
}
