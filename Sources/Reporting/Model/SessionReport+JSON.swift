import Foundation

extension SessionReport {
  /// The report as JSON (`spotter report --json`): the page's data, keys in snake_case as in
  /// the events, sorted so two reports of one session compare line for line.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    return try encoder.encode(self)
  }

  /// A report read back from `jsonData()`.
  public init(json: Data) throws {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    self = try decoder.decode(SessionReport.self, from: json)
  }
}
