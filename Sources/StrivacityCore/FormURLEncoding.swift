// application/x-www-form-urlencoded (OAuth requests, redirect queries, hosted-page forms),
// without Foundation.

public enum FormURLEncoding {
  /// Decodes `a=1&b=2` in order; repeated names keep every value. A name without `=` is absent,
  /// as some SDKs send bare names for unset parameters (protocol §3.2).
  public static func decode(_ text: some StringProtocol) -> [(String, String)] {
    text.split(separator: "&").compactMap { pair in
      guard let eq = pair.firstIndex(of: "=") else { return nil }
      return (unescape(pair[..<eq]), unescape(pair[pair.index(after: eq)...]))
    }
  }

  /// The first value of each name.
  public static func dictionary(_ text: some StringProtocol) -> [String: String] {
    var out: [String: String] = [:]
    for (key, value) in decode(text) where out[key] == nil { out[key] = value }
    return out
  }

  /// The parameters of a URL's query (after `?`, before `#`).
  public static func query(of url: String) -> [String: String] {
    guard let q = url.firstIndex(of: "?") else { return [:] }
    let rest = url[url.index(after: q)...]
    return dictionary(rest.prefix { $0 != "#" })
  }

  public static func encode(_ pairs: [(String, String)]) -> String {
    pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
  }

  /// `url` with `pairs` appended to its query.
  public static func appending(_ pairs: [(String, String)], to url: String) -> String {
    url + (url.contains("?") ? "&" : "?") + encode(pairs)
  }

  /// Percent-encodes everything but the unreserved characters (RFC 3986 §2.3).
  public static func escape(_ text: String) -> String {
    var out = ""
    for b in text.utf8 {
      switch b {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(b))
      default:
        let hex = Array("0123456789ABCDEF".utf8)
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 15)]))
      }
    }
    return out
  }

  /// Decodes `+` as space and `%XX` escapes; malformed escapes are kept as written.
  public static func unescape(_ text: some StringProtocol) -> String {
    let utf8 = Array(text.utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count)
    var i = 0
    while i < utf8.count {
      let b = utf8[i]
      if b == UInt8(ascii: "+") {
        bytes.append(32)
      } else if b == UInt8(ascii: "%"), i + 2 < utf8.count, let high = hexValue(utf8[i + 1]),
        let low = hexValue(utf8[i + 2])
      {
        bytes.append(high << 4 | low)
        i += 2
      } else {
        bytes.append(b)
      }
      i += 1
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The value of one hex digit (either case); nil for anything else.
  static func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}

extension StringProtocol {
  /// The text without leading and trailing characters from `set`.
  public func trimming(_ set: String) -> String {
    var s = Substring(self)
    while let f = s.first, set.contains(f) { s.removeFirst() }
    while let l = s.last, set.contains(l) { s.removeLast() }
    return String(s)
  }
}
