// A stand-in for the proxy choice (issue 29, point 2) until it lands: doctor names the proxy in
// use through these. Deleted when Context's own `proxy(for:config:)` is merged.
import CurlTransport
import StrivacityCore

struct ProxyChoice: CustomStringConvertible {
  var description: String
}

extension Context {
  func proxy(for profile: Profile?, config: Config?) throws -> ProxyChoice { ProxyChoice(description: "direct") }

  func httpClient(trust: CATrust, proxy: ProxyChoice) throws -> CurlHTTPClient { try httpClient(trust: trust) }
}
