// Server-side validation of a form submission against its widgets' validators: the shared
// rules of JourneyCore, answered the way the tenant does, one message per failing widget.
import JourneyCore
import StrivacityCore

enum FormValidation {
  /// The value of a (possibly dotted) widget id in a submitted body: `a.b` reads body.a.b.
  static func value(of id: String, in body: [String: JSONValue]) -> JSONValue? {
    SubmitBody.value(of: id, in: body)
  }

  /// Messages by widget id for every widget whose submitted value breaks its rules.
  static func validate(_ form: Form, body: [String: JSONValue]) -> [String: String] {
    var messages: [String: String] = [:]
    for widget in form.widgets where widget.isInput {
      let parsed = JourneyCore.Widget(json: .object(widget.raw))
      if let message = WidgetValidation.problem(parsed, value(of: widget.id, in: body)) {
        messages[widget.id] = message
      }
    }
    return messages
  }
}
