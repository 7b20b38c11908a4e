// Building a form submission (protocol §8): only the submitted form's values, dotted widget ids
// expanded into nested objects, defaults the server sent kept for widgets not asked.
import StrivacityCore

public enum SubmitBody {
  /// The JSON body for `form` given the answers by widget id.
  ///
  /// - Widgets answered keep their answer; unanswered widgets with a server value keep it
  ///   (readonly ones included, as JS and Android do); `checkboxHidden` is sent as `true`;
  ///   unanswered checkboxes as `false` and multiSelects as `[]`; empty optional text is left out.
  public static func build(form: Form, answers: [String: JSONValue]) -> JSONValue {
    var flat: [(String, JSONValue)] = []
    for widget in form.widgets where widget.kind.takesValue {
      if let answer = answers[widget.id] {
        if case .string(let text) = answer, text.isEmpty { continue }
        flat.append((widget.id, answer))
        continue
      }
      switch widget.kind {
      case .checkbox(let hidden, _): flat.append((widget.id, hidden ? true : (widget.value ?? false)))
      case .multiSelect: flat.append((widget.id, widget.value ?? []))
      default: if let value = widget.value { flat.append((widget.id, value)) }
      }
    }
    var object: [String: JSONValue] = [:]
    for (id, value) in flat { set(value, at: id.split(separator: ".").map(String.init), in: &object) }
    for (key, value) in implied[form.id] ?? [:] where object[key] == nil { object[key] = value }
    return .object(object)
  }

  /// Keys the API description requires that no widget of the form carries: the SDK demos add
  /// them (protocol §8.3, §18), and a widget of that id, when a tenant sends one, wins.
  public static let implied: [String: [String: JSONValue]] = ["mfaEnrollTargetSelect": ["method": "passcode"]]

  /// Sets `value` at a dotted path, creating the objects on the way.
  public static func set(_ value: JSONValue, at path: [String], in object: inout [String: JSONValue]) {
    guard let head = path.first else { return }
    if path.count == 1 {
      object[head] = value
      return
    }
    var child = object[head]?.object ?? [:]
    set(value, at: Array(path.dropFirst()), in: &child)
    object[head] = .object(child)
  }

  /// The value of a (possibly dotted) id in a body: `a.b` reads body.a.b.
  public static func value(of id: String, in body: [String: JSONValue]) -> JSONValue? {
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
}
