// The rules of widget validators (protocol §7.3, §9), in one place: the CLI checks answers
// with them before submitting, and the emulator answers 400 with the same messages.
import StrivacityCore

public enum WidgetValidation {
  /// Why `value` breaks `widget`'s rules, as a sentence; nil when it is acceptable.
  public static func problem(_ widget: Widget, _ value: JSONValue?) -> String? {
    let rules = widget.validator
    let present: Bool = {
      switch value {
      case nil, .null?: return false
      case .string(let s)?: return !s.isEmpty
      case .array(let a)?: return !a.isEmpty
      default: return true
      }
    }()
    switch widget.kind {
    case .input, .phone, .password, .passcode, .date, .select:
      let mustHave: Bool = {
        switch widget.kind {
        case .password, .passcode: return true
        default: return rules.required
        }
      }()
      guard present else { return mustHave ? "This field is required" : nil }
      guard let text = value?.string else { return "Expected text" }
      return textProblem(widget, text)
    case .checkbox:
      guard let value, !value.isNull else { return rules.required ? "This field is required" : nil }
      guard let checked = value.bool else { return "Expected true or false" }
      return rules.required && !checked ? "This must be accepted" : nil
    case .multiSelect:
      guard let value, !value.isNull else {
        if let min = rules.minSelectable, min > 0 { return "Select at least \(min)" }
        return nil
      }
      guard let items = value.array, items.allSatisfy({ $0.string != nil }) else { return "Expected a list of choices" }
      let chosen = items.compactMap(\.string)
      let allowed = Set(widget.optionValues)
      if let bad = chosen.first(where: { !allowed.contains($0) }) { return "\"\(bad)\" is not one of the choices" }
      if Set(chosen).count != chosen.count { return "Each choice may be selected once" }
      if let min = rules.minSelectable, chosen.count < min { return "Select at least \(min)" }
      if let max = rules.maxSelectable, chosen.count > max { return "Select at most \(max)" }
      return nil
    case .passkey:
      return value?.object == nil && value?.string == nil ? "A passkey credential is required" : nil
    default:
      return nil
    }
  }

  static func textProblem(_ widget: Widget, _ text: String) -> String? {
    let rules = widget.validator
    let length = text.count
    if let min = rules.minLength, length < min { return "Must be at least \(min) characters" }
    if let max = rules.maxLength, length > max { return "Must be at most \(max) characters" }
    switch widget.kind {
    case .input:
      // A pattern SafeRegex does not admit is not checked here; the server still validates.
      if let pattern = rules.regex, let regex = SafeRegex(pattern), !regex.wholeMatch(text) {
        return "Invalid format"
      }
    case .passcode:
      if !text.allSatisfy(\.isASCIIDigit) { return "Use digits only" }
      if let expected = rules.length, length != expected { return "Enter the \(expected)-digit code" }
    case .phone:
      let digits = text.filter(\.isASCIIDigit)
      if digits.count < 6 || !text.allSatisfy({ $0.isASCIIDigit || " +-()".contains($0) }) {
        return "Enter a valid phone number"
      }
    case .date:
      guard let date = CalendarDate(text) else { return CalendarDate.problem(text) }
      if let bound = rules.notBefore, let limit = CalendarDate(bound), date < limit {
        return "Must not be before \(bound)"
      }
      if let bound = rules.notAfter, let limit = CalendarDate(bound), limit < date {
        return "Must not be after \(bound)"
      }
    case .select:
      if !widget.optionValues.contains(text) { return "\"\(text)\" is not one of the choices" }
    case .password:
      return PasswordPolicy.violation(text, rules)
    default:
      break
    }
    return nil
  }
}

public enum PasswordPolicy {
  /// The first rule `password` breaks, as a sentence; nil when it satisfies all.
  public static func violation(_ password: String, _ rules: Validator) -> String? {
    for requirement in rules.mustContain {
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
    if let limit = rules.maxRepeatedCharacters, longestRun(password) > limit {
      return "Password must not repeat a character more than \(limit) times in a row"
    }
    if let limit = rules.maxNumericCharacterSequences, longestDigitSequence(password) > limit {
      return "Password must not contain more than \(limit) sequential digits"
    }
    if let restricted = rules.restrictedCharacters, let bad = password.first(where: { restricted.contains($0) }) {
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
    var best = 0, run = 0, step = 0
    var previous: Int?
    for c in text {
      guard c.isASCIIDigit, let digit = c.wholeNumberValue else {
        previous = nil
        run = 0
        continue
      }
      if let p = previous, abs(digit - p) == 1 {
        run = (step == digit - p) ? run + 1 : 2
        step = digit - p
      } else {
        run = 1
        step = 0
      }
      previous = digit
      best = max(best, run)
    }
    return best
  }
}

/// A calendar date written YYYY-MM-DD, comparable.
public struct CalendarDate: Comparable, Sendable {
  public var year: Int, month: Int, day: Int

  public init?(_ text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
      let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m)
    else { return nil }
    guard (1...Self.days(month: m, year: y)).contains(d) else { return nil }
    year = y
    month = m
    day = d
  }

  public static func < (a: CalendarDate, b: CalendarDate) -> Bool {
    (a.year, a.month, a.day) < (b.year, b.month, b.day)
  }

  /// Why `text` is not a date: its shape, or the calendar ("1990-02-30: February 1990 has 28 days").
  public static func problem(_ text: String) -> String {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }), let y = Int(parts[0]), let m = Int(parts[1])
    else { return "Enter a date as YYYY-MM-DD" }
    guard (1...12).contains(m) else { return "\(text): there is no month \(parts[1]); enter a date as YYYY-MM-DD" }
    let names = [
      "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
      "December",
    ]
    return "\(text): \(names[m - 1]) \(y) has \(days(month: m, year: y)) days"
  }

  static func days(month: Int, year: Int) -> Int {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  }
}

extension Character {
  public var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
