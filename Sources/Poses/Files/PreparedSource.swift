/// A source whose frames pass through `prepare` first: changed, or dropped when it returns
/// false (`spotter eval --shake`, `--scores`, `--frame-rate`: the same videos as another
/// detector would give them).
public final class PreparedSource: PoseSource {
  private let source: any PoseSource
  private let prepare: (inout PeopleFrame) -> Bool

  public init(_ source: any PoseSource, prepare: @escaping (inout PeopleFrame) -> Bool) {
    self.source = source
    self.prepare = prepare
  }

  public var header: PoseFileHeader { source.header }
  public var name: String { source.name }

  public func next(into frame: inout PeopleFrame) throws -> PoseReadResult {
    while true {
      let result = try source.next(into: &frame)
      guard case .frame = result, !prepare(&frame) else { return result }
    }
  }
}

extension PoseFiles {
  /// `open(path)`, its frames passed through `prepare` first when one is given.
  public static func open(_ path: String, prepare: ((inout PeopleFrame) -> Bool)?) throws
    -> any PoseSource
  {
    let source = try open(path)
    return prepare.map { PreparedSource(source, prepare: $0) } ?? source
  }
}
