import Testing

@testable import LiveView

/// The request line as the page's server reads it: the path, and the query's token decoded.
@Suite struct PageRequestTests {
  @Test func aRequestLineGivesItsPathAndQuery() throws {
    let request = try #require(
      PageRequest(head: "GET /events?token=a%2Bb+c&x HTTP/1.1\r\nHost: h\r\n\r\n"))
    #expect(request.method == "GET" && request.path == "/events")
    #expect(request.query == ["token": "a+b c", "x": ""])
  }

  @Test(arguments: ["", "GET", "GET /", "GET nopath HTTP/1.1", "GET / FTP/1"])
  func whatIsNoRequestLineIsRefused(head: String) {
    #expect(PageRequest(head: head + "\r\n\r\n") == nil)
  }

  @Test(arguments: [
    ("8080", "127.0.0.1", 8080), ("localhost:0", "127.0.0.1", 0),
    ("0.0.0.0:9000", "0.0.0.0", 9000),
  ])
  func addressesAreRead(text: String, host: String, port: Int) throws {
    let address = try #require(PageServer.Address(text))
    #expect(address.host == host && Int(address.port) == port)
  }

  @Test(arguments: ["", "host:80", "1.2.3:80", "127.0.0.1:65536", "127.0.0.1:x"])
  func whatIsNoAddressIsRefused(text: String) {
    #expect(PageServer.Address(text) == nil)
  }
}
