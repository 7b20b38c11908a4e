// Times as text, computed without Foundation: RFC 3339 (token expiries in JSON and status) and
// HTTP's IMF-fixdate (a server's `Date`, for doctor's clock check). Both go through the same
// conversion between days since 1970-01-01 and a proleptic Gregorian date (Howard Hinnant's
// algorithms).

enum CivilDate {
  /// The date `days` after 1970-01-01.
  static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// Days since 1970-01-01 of a date.
  static func days(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let m = Int64(month)
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// `seconds` since the epoch split into days and the second of the day (floored).
  static func split(_ seconds: Int64) -> (days: Int64, secondOfDay: Int64) {
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    return (days, seconds - days * 86400)
  }

  static func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

  /// "08:49:37".
  static func clock(_ secondOfDay: Int64) -> String {
    "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
  }
}

/// RFC 3339 timestamps in UTC (`2026-11-22T16:05:32Z`).
public enum RFC3339 {
  public static func format(_ seconds: Int64) -> String {
    let (days, secondOfDay) = CivilDate.split(seconds)
    let (year, month, day) = CivilDate.date(days: days)
    return "\(year)-\(CivilDate.two(month))-\(CivilDate.two(day))T\(CivilDate.clock(secondOfDay))Z"
  }

  /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC only, the fraction dropped) as seconds since the
  /// epoch; nil for anything else, a day the month lacks among it.
  public static func parse(_ text: String) -> Int64? {
    var bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
    bytes.removeLast()
    if bytes.count > 19 {
      guard bytes[19] == UInt8(ascii: "."), bytes.count > 20, bytes[20...].allSatisfy(isDigit) else { return nil }
      bytes.removeSubrange(19...)
    }
    let separators: [(Int, UInt8)] = [(4, 0x2D), (7, 0x2D), (10, 0x54), (13, 0x3A), (16, 0x3A)]
    guard bytes.count == 19, separators.allSatisfy({ bytes[$0.0] == $0.1 || ($0.0 == 10 && bytes[10] == 0x74) })
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      guard bytes[range].allSatisfy(isDigit) else { return nil }
      return bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
      let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), day >= 1,
      hour < 24, minute < 60, second < 61
    else { return nil }
    let days = CivilDate.days(year: year, month: month, day: day)
    guard CivilDate.date(days: days) == (Int64(year), Int64(month), Int64(day)) else { return nil }
    return days * 86400 + Int64(hour * 3600 + minute * 60 + second)
  }

  static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

/// A server's `Date` header (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`) as
/// seconds since the epoch; nil for anything else. For the clock-skew check.
public enum HTTPDate {
  static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  public static func parse(_ text: String) -> Int64? {
    let parts = text.split(separator: " ")
    guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
      let month = months.firstIndex(of: String(parts[2]))
    else { return nil }
    let time = parts[4].split(separator: ":").compactMap { Int($0) }
    guard time.count == 3, (1...31).contains(day), (1970...9999).contains(year), (0...23).contains(time[0]),
      (0...59).contains(time[1]), (0...60).contains(time[2])
    else { return nil }
    return CivilDate.days(year: year, month: month + 1, day: day) * 86400
      + Int64(time[0] * 3600 + time[1] * 60 + time[2])
  }

  /// `seconds` since the epoch as an IMF-fixdate (what a server's `Date` says).
  public static func format(_ seconds: Int64) -> String {
    let (days, secondOfDay) = CivilDate.split(seconds)
    let (year, month, day) = CivilDate.date(days: days)
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
    return "\(weekday), \(CivilDate.two(day)) \(months[Int(month) - 1]) \(year) \(CivilDate.clock(secondOfDay)) GMT"
  }
}

/// Spans of time as people read them: "12 s", "5 min", "3 h", "2 days".
public enum Elapsed {
  public static func describe(seconds: Int64) -> String {
    switch seconds {
    case ..<120: return "\(seconds) s"
    case ..<7200: return "\(seconds / 60) min"
    case ..<172_800: return "\(seconds / 3600) h"
    default: return "\(seconds / 86400) days"
    }
  }
}
