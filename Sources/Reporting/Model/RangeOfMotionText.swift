import RepCounting

/// A rep's range of motion in words a person reads, with its units: `159.2°` for an angle or a
/// lean, `0.58 body sizes` for a height or a distance (the person's own scale, so the figure
/// means the same near the camera or far from it). The report's page and `spotter`'s timeline
/// both write ranges through this, so they read alike.
public enum RangeOfMotionText {
  /// The units of `definition`'s reps' ranges, from the signals it counts on (`SignalNaming`):
  /// `°` or `body sizes`; nil when they are in different units (a knee raise counts on the
  /// knee's height and on the thigh's lean, and a rep does not say which) or it has none.
  public static func units(of definition: ExerciseDefinition) -> String? {
    let units = Set(definition.countingSignals.map(SignalNaming.units))
    return units.count == 1 ? units.first : nil
  }

  /// A measurement in the signal's units: degrees to a tenth, body sizes to a hundredth
  /// (about what a detector can tell); `named` adds the units.
  public static func amount(_ value: Double, units: String, named: Bool = false) -> String {
    let degrees = units == "°"
    let text = Markup.number(value, decimals: degrees ? 1 : 2, fixed: true)
    guard named, !units.isEmpty else { return text }
    return text + (degrees ? "°" : " " + units)
  }
}
