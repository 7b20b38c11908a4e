// What was just sent, kept out of what the tenant says back. A gateway that quotes the request
// in its error_description (or an error page) would have strivacity quote the client secret, the
// assertion, the refresh token or the code verifier into stderr, a helper's answer or doctor's
// report. So a failed answer's body has every value its request carried replaced by
// `Redaction.mark` before anyone parses it (TenantClient.send, the one way to the tenant):
// as sent, percent-encoded, JSON- and HTML-escaped. A successful answer is never changed (a
// server that does not rotate returns the same refresh token). Linear in the body's length for
// each value (Knuth–Morris–Pratt), whatever the tenant chose its tokens to be.

public enum Redaction {
  /// What stands where a secret was.
  public static let mark = "[redacted]"

  /// Form fields whose values are secrets (RFC 6749 §4.1.3, §6, §2.3.1; RFC 7636 §4.5; RFC 7523
  /// §2.2; RFC 7009 §2.1; RFC 8693 §2.1; RFC 8628 §3.4).
  public static let secretFields: Set<String> = [
    "code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "token", "assertion",
    "subject_token", "actor_token", "device_code", "password",
  ]

  /// `body` with every form of every value in `secrets` replaced by `mark`.
  public static func redact(_ body: [UInt8], _ secrets: [String]) -> [UInt8] { redacting(body, secrets) ?? body }

  /// The same; nil when no form of any is in `body`.
  static func redacting(_ body: [UInt8], _ secrets: [String]) -> [UInt8]? {
    guard !body.isEmpty else { return nil }
    var spans: [Range<Int>] = []
    for form in Set(secrets.filter { !$0.isEmpty }.flatMap(forms)) {
      spans += occurrences(of: form, in: body)
    }
    guard !spans.isEmpty else { return nil }
    spans.sort { $0.lowerBound < $1.lowerBound }
    var out: [UInt8] = []
    out.reserveCapacity(body.count)
    var at = 0
    for span in spans {
      if span.lowerBound >= at {
        out += body[at..<span.lowerBound]
        out += mark.utf8
        at = span.upperBound
      } else if span.upperBound > at {
        at = span.upperBound  // overlaps the one just marked: one mark for both
      }
    }
    out += body[at...]
    return out
  }

  /// The ways a value may come back: as sent; percent-encoded (upper- or lower-case hex, a space
  /// as `%20` or `+`); in a JSON string (`\"`, `\\`, and `\/` or not); in HTML (`&amp;` …).
  static func forms(of secret: String) -> [[UInt8]] {
    let escaped = FormURLEncoding.escape(secret)
    let json = secret.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
    let html = secret.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
      .replacing("\"", with: "&quot;").replacing("'", with: "&#39;")
    let variants = [
      secret, escaped, lowercasedHex(escaped), escaped.replacing("%20", with: "+"), json,
      json.replacing("/", with: "\\/"), html,
    ]
    var seen = Set<String>()
    return variants.filter { seen.insert($0).inserted }.map { Array($0.utf8) }
  }

  /// `%2F` written `%2f`.
  private static func lowercasedHex(_ escaped: String) -> String {
    var out: [UInt8] = []
    var afterPercent = 0
    for b in escaped.utf8 {
      if b == UInt8(ascii: "%") {
        afterPercent = 2
        out.append(b)
        continue
      }
      out.append(afterPercent > 0 && (0x41...0x46).contains(b) ? b + 0x20 : b)
      afterPercent = max(0, afterPercent - 1)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Where `pattern` occurs in `text`, left to right, not overlapping (Knuth–Morris–Pratt: each
  /// byte of `text` is looked at a bounded number of times, amortised).
  static func occurrences(of pattern: [UInt8], in text: [UInt8]) -> [Range<Int>] {
    guard !pattern.isEmpty, pattern.count <= text.count else { return [] }
    var failure = [Int](repeating: 0, count: pattern.count)
    var k = 0
    for i in 1..<pattern.count {
      while k > 0 && pattern[i] != pattern[k] { k = failure[k - 1] }
      if pattern[i] == pattern[k] { k += 1 }
      failure[i] = k
    }
    var found: [Range<Int>] = []
    k = 0
    text.withUnsafeBufferPointer { text in
      pattern.withUnsafeBufferPointer { pattern in
        for i in 0..<text.count {
          while k > 0 && text[i] != pattern[k] { k = failure[k - 1] }
          if text[i] == pattern[k] { k += 1 }
          if k == pattern.count {
            found.append((i + 1 - k)..<(i + 1))
            k = 0
          }
        }
      }
    }
    return found
  }
}

extension HTTPResponse {
  /// This answer with `secrets` (`HTTPRequest.sentSecrets`, the client's own) redacted from the
  /// body when it is a failure: any status but 2xx, or a 2xx whose body is an OAuth error
  /// document. Any other answer is returned as it came.
  public func redactingFailure(_ secrets: [String]) -> HTTPResponse {
    guard !secrets.isEmpty else { return self }
    // A success is looked at no further unless it could be an error document (a token answer
    // that repeats a refresh token the server does not rotate is never scanned or parsed).
    if (200..<300).contains(status),
      body.firstRange(of: Array("\"error\"".utf8)) == nil || JSONValue.parse(body)?["error"]?.string == nil
    {
      return self
    }
    guard let redacted = Redaction.redacting(body, secrets) else { return self }
    var out = self
    out.body = redacted
    return out
  }
}
