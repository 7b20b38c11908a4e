// The hosted UI (`hostedUrl`): a plain HTML rendition of the current step that a real browser,
// or curl, can complete. The last step redirects straight to the client's redirect_uri with
// `code` and `state`, so a CLI's loopback listener receives it (RFC 8252).
import Foundation
import JourneyCore
import LoopbackHTTP
import StrivacityCore

extension Emulator {
  func hosted(_ request: ServerRequest) -> ServerReply {
    let query = FormEncoding.dictionary(request.query)
    let now = self.now()
    guard let id = query["challenge"], let session = liveSession(id, now: now) else {
      return html(
        403,
        page(
          "Session expired", "This sign-in session is unknown, finished or expired. Start again from your application.")
      )
    }
    switch request.method {
    case "GET":
      return html(200, hostedPage(session, messages: nil))
    case "POST":
      guard let formID = query["form"] else { return html(400, page("Bad request", "No form named.")) }
      guard let form = journeyScreen(session.screen)?.form(formID) else {
        return html(
          400,
          hostedPage(
            session, messages: ["global": ["type": "error", "text": "This action is not available on this screen"]]))
      }
      if form.widgets.contains(where: { $0.type == "close" })
        && FormEncoding.dictionary(request.bodyText)["_close"] != nil
      {
        let location = FormEncoding.appending(
          [("error", "access_denied"), ("error_description", hostileText("the user cancelled the sign-in"))]
            + (session.state.map { [("state", $0)] } ?? []),
          to: session.redirectURI)
        return ServerReply(status: 302, headers: [("Location", location)])
      }
      let body = hostedValues(form, FormEncoding.decode(request.bodyText))
      switch submit(session.id, formID: formID, body: body, now: now) {
      case .screen, .hosted:
        return ServerReply(status: 303, headers: [("Location", hostedURL(session))])
      case .invalid(let current, let messages):
        return html(400, hostedPage(current, messages: messages))
      case .respond(let current, _, _):
        return html(200, hostedPage(current, messages: nil))
      case .finish(let finished, let token):
        // In the browser the finish step is the redirect itself.
        let code = state.withLock { state -> String in
          state.finishTokens[token] = nil
          return issueCode(for: finished, user: finished.user ?? "", now: now, in: &state)
        }
        return ServerReply(status: 302, headers: [("Location", codeRedirect(finished, code: code))])
      case .sessionExpired:
        return html(403, page("Session expired", "This sign-in session has expired."))
      case .badRequest(let text):
        return html(400, page("Bad request", HTML.escape(text)))
      }
    default:
      return html(405, page("Method not allowed", "Use GET or POST."))
    }
  }

  /// Turns an HTML form post into the JSON body the Journey-flow API expects.
  func hostedValues(_ form: Form, _ pairs: [(String, String)]) -> [String: JSONValue] {
    var flat: [String: JSONValue] = [:]
    for widget in form.widgets where widget.isInput {
      let values = pairs.filter { $0.0 == widget.id }.map(\.1)
      switch widget.type {
      case "checkbox": flat[widget.id] = .bool(!values.isEmpty)
      case "multiSelect": flat[widget.id] = .array(values.map(JSONValue.string))
      case "passkeyLogin", "passkeyEnroll", "webauthnLogin", "webauthnEnroll":
        if !values.isEmpty {
          flat[widget.id] = [
            "id": "emulated-credential", "rawId": "emulated-credential", "type": "public-key", "response": [:],
          ]
        }
      default:
        if let value = values.first, !value.isEmpty { flat[widget.id] = .string(value) }
      }
    }
    // Dotted ids nest, as clients send them (protocol §8.1).
    var body: [String: JSONValue] = [:]
    for (key, value) in flat { SubmitBody.set(value, at: key.split(separator: ".").map(String.init), in: &body) }
    return body
  }

  func hostedPage(_ session: JourneySession, messages: JSONValue?) -> String {
    guard let screen = journeyScreen(session.screen) else { return page("Unknown step", "") }
    let user = state.withLock { $0.user(session.user) }
    let rendered = substitute(render(session, messages: nil), session: session, user: user)
    let forms = rendered["forms"]?.array ?? []
    var out = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>Sign in · \(HTML.escape(journey.name))</title></head>
      <body data-screen="\(HTML.escape(screen.id))">

      """
    if let text = messages?["global"]?["text"]?.string {
      out += "<p class=\"error\" role=\"alert\">\(HTML.escape(text))</p>\n"
    }
    for form in forms {
      guard let formID = form["id"]?.string else { continue }
      let action = "/provider/flow?" + FormEncoding.encode([("challenge", session.id), ("form", formID)])
      out += "<form method=\"post\" action=\"\(HTML.escape(action))\" data-form=\"\(HTML.escape(formID))\">\n"
      for widget in form["widgets"]?.array ?? [] {
        out += hostedWidget(widget, error: messages?[formID]?[widget["id"]?.string ?? ""]?["text"]?.string)
      }
      out += "</form>\n"
    }
    return out + "</body></html>\n"
  }

  private func hostedWidget(_ widget: JSONValue, error: String?) -> String {
    let id = HTML.escape(widget["id"]?.string ?? "")
    let label = HTML.escape(widget["label"]?.string ?? "")
    let value = widget["value"]?.string.map(HTML.escape) ?? ""
    var out: String
    switch widget["type"]?.string ?? "" {
    case "static":
      let text = widget["value"]?.string ?? ""
      out = widget["render"]?["type"]?.string == "html" ? "<div>\(text)</div>" : "<p>\(HTML.escape(text))</p>"
    case "submit":
      out = "<button type=\"submit\" name=\"_submit\" value=\"\(id)\">\(label)</button>"
    case "close":
      out = "<button type=\"submit\" name=\"_close\" value=\"\(id)\">\(label)</button>"
    case "input", "password", "passcode", "phone", "date":
      let type = ["password": "password", "phone": "tel", "date": "date"][widget["type"]!.string!] ?? "text"
      out = "<label>\(label) <input type=\"\(type)\" name=\"\(id)\" value=\"\(value)\"></label>"
    case "checkbox":
      let labelHTML = widget["render"]?["labelType"]?.string == "html" ? (widget["label"]?.string ?? "") : label
      let checked = widget["value"]?.bool == true ? " checked" : ""
      out = "<label><input type=\"checkbox\" name=\"\(id)\" value=\"true\"\(checked)> \(labelHTML)</label>"
    case "select":
      let radio = widget["render"]?["type"]?.string == "radio"
      out = "<fieldset><legend>\(label)</legend>"
      out += radio ? "" : "<select name=\"\(id)\">"
      for option in widget["options"]?.array ?? [] {
        let items = option["type"]?.string == "group" ? (option["options"]?.array ?? []) : [option]
        if option["type"]?.string == "group" {
          out +=
            radio
            ? "<p>\(HTML.escape(option["label"]?.string ?? ""))</p>"
            : "<optgroup label=\"\(HTML.escape(option["label"]?.string ?? ""))\">"
        }
        for item in items {
          let v = HTML.escape(item["value"]?.string ?? ""), l = HTML.escape(item["label"]?.string ?? "")
          out +=
            radio
            ? "<label><input type=\"radio\" name=\"\(id)\" value=\"\(v)\"> \(l)</label>"
            : "<option value=\"\(v)\">\(l)</option>"
        }
        if option["type"]?.string == "group" && !radio { out += "</optgroup>" }
      }
      out += radio ? "</fieldset>" : "</select></fieldset>"
    case "multiSelect":
      out = "<fieldset><legend>\(label)</legend>"
      for option in widget["options"]?.array ?? [] {
        for item in option["type"]?.string == "group" ? (option["options"]?.array ?? []) : [option] {
          let v = HTML.escape(item["value"]?.string ?? ""), l = HTML.escape(item["label"]?.string ?? "")
          out += "<label><input type=\"checkbox\" name=\"\(id)\" value=\"\(v)\"> \(l)</label>"
        }
      }
      out += "</fieldset>"
    case "passkeyLogin", "passkeyEnroll", "webauthnLogin", "webauthnEnroll":
      // The emulator stands in for the authenticator: pressing the button is the ceremony.
      out = "<input type=\"hidden\" name=\"\(id)\" value=\"emulated\"><button type=\"submit\">\(label)</button>"
    default:
      out = "<p>(\(HTML.escape(widget["type"]?.string ?? "unknown")) widget)</p>"
    }
    if let error { out += "<span class=\"error\">\(HTML.escape(error))</span>" }
    return out + "\n"
  }
}
