// Server-side validation of a form submission against its widgets' validators (protocol §7.3,
// §9), answered the way the tenant does: one message per failing widget.
import Foundation
import StrivacityCore

enum FormValidation {
  /// The value of a (possibly dotted) widget id in a submitted body: `a.b` reads body.a.b.
  static func value(of id: String, in body: [String: JSONValue]) -> JSONValue? {
    if let direct = body[id] { return direct }
    let parts = id.split(separator: ".").map(String.init)
    guard parts.count > 1 else { return nil }
    var current: JSONValue = .object(body)
    for part in parts {
      guard let next = current[part] else { return nil }
      current = next
    }
    return current
  }

  /// Messages by widget id for every widget whose submitted value breaks its rules.
  static func validate(_ form: Form, body: [String: JSONValue]) -> [String: String] {
    var messages: [String: String] = [:]
    for widget in form.widgets where widget.isInput {
      if let message = check(widget, value(of: widget.id, in: body)) { messages[widget.id] = message }
    }
    return messages
  }

  static func check(_ widget: Widget, _ value: JSONValue?) -> String? {
    let rules = widget.validator
    let required = rules["required"]?.bool ?? false
    let present: Bool = {
      switch value {
      case nil, .null?: return false
      case .string(let s)?: return !s.isEmpty
      case .array(let a)?: return !a.isEmpty
      default: return true
      }
    }()
    switch widget.type {
    case "input", "phone", "password", "passcode", "date", "select":
      let mustHave = required || widget.type == "password" || widget.type == "passcode"
      guard present else { return mustHave ? "This field is required" : nil }
      guard let text = value?.string else { return "Expected text" }
      return checkText(widget, text, rules)
    case "checkbox":
      guard let value, !value.isNull else { return required ? "This field is required" : nil }
      guard let checked = value.bool else { return "Expected true or false" }
      return required && !checked ? "This must be accepted" : nil
    case "multiSelect":
      guard let value, !value.isNull else {
        return (rules["minSelectable"]?.int ?? 0) > 0 ? "Select at least \(rules["minSelectable"]!.int!)" : nil
      }
      guard let items = value.array, items.allSatisfy({ $0.string != nil }) else { return "Expected a list of choices" }
      let chosen = items.compactMap(\.string)
      let allowed = Set(widget.optionValues)
      if let bad = chosen.first(where: { !allowed.contains($0) }) { return "\"\(bad)\" is not one of the choices" }
      if Set(chosen).count != chosen.count { return "Each choice may be selected once" }
      if let min = rules["minSelectable"]?.int, chosen.count < min { return "Select at least \(min)" }
      if let max = rules["maxSelectable"]?.int, chosen.count > max { return "Select at most \(max)" }
      return nil
    case "passkeyLogin", "passkeyEnroll", "webauthnLogin", "webauthnEnroll":
      return value?.object == nil && value?.string == nil ? "A passkey credential is required" : nil
    default:
      return nil
    }
  }

  static func checkText(_ widget: Widget, _ text: String, _ rules: [String: JSONValue]) -> String? {
    let length = text.count
    if let min = rules["minLength"]?.int, length < min { return "Must be at least \(min) characters" }
    if let max = rules["maxLength"]?.int, length > max { return "Must be at most \(max) characters" }
    switch widget.type {
    case "input":
      if let pattern = (rules["regex"] ?? rules["regexp"])?.string, let regex = try? Regex(pattern),
        (try? regex.wholeMatch(in: text)) == nil
      {
        return "Invalid format"
      }
    case "passcode":
      if !text.allSatisfy(\.isASCIIDigit) { return "Use digits only" }
      if let expected = rules["length"]?.int, length != expected { return "Enter the \(expected)-digit code" }
    case "phone":
      let digits = text.filter(\.isASCIIDigit)
      if digits.count < 6 || !text.allSatisfy({ $0.isASCIIDigit || " +-()".contains($0) }) { return "Enter a valid phone number" }
    case "date":
      guard let date = DateValue(text) else { return "Enter a date as YYYY-MM-DD" }
      if let bound = rules["notBefore"]?.string.flatMap(DateValue.init), date < bound { return "Must not be before \(rules["notBefore"]!.string!)" }
      if let bound = rules["notAfter"]?.string.flatMap(DateValue.init), bound < date { return "Must not be after \(rules["notAfter"]!.string!)" }
    case "select":
      if !widget.optionValues.contains(text) { return "\"\(text)\" is not one of the choices" }
    case "password":
      return PasswordPolicy.violation(text, rules)
    default:
      break
    }
    return nil
  }
}

enum PasswordPolicy {
  /// The first rule `password` breaks, as a sentence; nil when it satisfies all.
  static func violation(_ password: String, _ rules: [String: JSONValue]) -> String? {
    for requirement in rules["mustContain"]?.array?.compactMap(\.string) ?? [] {
      switch requirement {
      case "UPPERCASE" where !password.contains(where: \.isUppercase):
        return "Password must contain an uppercase letter"
      case "LOWERCASE" where !password.contains(where: \.isLowercase):
        return "Password must contain a lowercase letter"
      case "NUMERIC" where !password.contains(where: \.isASCIIDigit):
        return "Password must contain a number"
      case "SPECIAL" where !password.contains(where: { !$0.isLetter && !$0.isNumber && !$0.isWhitespace }):
        return "Password must contain a special character"
      default: continue
      }
    }
    if let limit = rules["maxRepeatedCharacters"]?.int, longestRun(password) > limit {
      return "Password must not repeat a character more than \(limit) times in a row"
    }
    if let limit = rules["maxNumericCharacterSequences"]?.int, longestDigitSequence(password) > limit {
      return "Password must not contain more than \(limit) sequential digits"
    }
    if let restricted = rules["restrictedCharacters"]?.string, let bad = password.first(where: { restricted.contains($0) }) {
      return "Password must not contain \"\(bad)\""
    }
    return nil
  }

  static func longestRun(_ text: String) -> Int {
    var best = 0, run = 0
    var previous: Character?
    for c in text {
      run = c == previous ? run + 1 : 1
      previous = c
      best = max(best, run)
    }
    return best
  }

  /// Longest run of ascending or descending consecutive digits ("1234", "987").
  static func longestDigitSequence(_ text: String) -> Int {
    var best = 0, run = 0, direction = 0
    var previous: Int?
    for c in text {
      guard let digit = c.wholeNumberValue, c.isASCIIDigit else {
        previous = nil
        run = 0
        continue
      }
      if let p = previous, abs(digit - p) == 1, direction == 0 || direction == digit - p {
        direction = digit - p
        run += 1
      } else if let p = previous, abs(digit - p) == 1 {
        direction = digit - p
        run = 2
      } else {
        direction = 0
        run = 1
      }
      previous = digit
      best = max(best, run)
    }
    return best
  }
}

extension Character {
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
