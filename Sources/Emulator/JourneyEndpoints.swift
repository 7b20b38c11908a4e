// POST /flow/api/v1/init and /flow/api/v1/form/{formId}: the screen loop (protocol §4, §7, §8).
import Foundation
import LoopbackHTTP
import OAuthCore
import StrivacityCore

/// What a form submission leads to. The JSON API and the hosted pages render it differently.
enum SubmitOutcome {
  case screen(JourneySession)
  /// 400 with messages (global or per widget); the screen stays.
  case invalid(JourneySession, messages: JSONValue)
  case finish(JourneySession, finishToken: String)
  case hosted(JourneySession)
  case respond(JourneySession, status: Int, body: JSONValue)
  case sessionExpired
  case badRequest(String)
}

extension Emulator {
  /// The code an `activation` check expects of an account without its own (new ones).
  static let defaultActivationCode = "111111"

  func hostedURL(_ session: JourneySession) -> String {
    issuer + "provider/flow?" + FormEncoding.encode([("challenge", session.id), ("redirect_uri", session.redirectURI)])
  }

  /// The live session named by `Authorization: Bearer <session_id>`.
  func session(fromBearer request: ServerRequest, now: Int64) -> JourneySession? {
    guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else { return nil }
    return liveSession(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), now: now)
  }

  func liveSession(_ id: String, now: Int64) -> JourneySession? {
    state.withLock { state in
      guard let session = state.sessions[id], !session.finished, session.expiresAt > now else { return nil }
      return session
    }
  }

  func journeyHeaders() -> [(name: String, value: String)] { [("X-Event-ID", UUID().uuidString.lowercased())] }

  func sessionExpiredReply() -> ServerReply {
    json(
      403,
      ["error": "session_expired", "error_description": "the sign-in session is unknown or has expired; start again"],
      headers: journeyHeaders())
  }

  // MARK: init

  func journeyInit(_ request: ServerRequest) -> ServerReply {
    guard request.method == "POST" else { return json(405, ["error": "method_not_allowed"]) }
    guard let session = session(fromBearer: request, now: now()) else { return sessionExpiredReply() }
    // Empty, {} and null are all fine (protocol §4.1); anything else must at least be JSON.
    if !request.body.isEmpty && JSONValue.parse(request.body) == nil {
      return json(
        400,
        [
          "hostedUrl": .string(hostedURL(session)),
          "messages": ["global": ["type": "error", "text": "Malformed request body"]],
        ],
        headers: journeyHeaders())
    }
    if journey.mode == .hostedOnly {
      return json(200, conforming(["hostedUrl": .string(hostedURL(session))], "init"), headers: journeyHeaders())
    }
    return json(200, conforming(render(session, messages: nil), "init"), headers: journeyHeaders())
  }

  /// Checks a screen the journey is about to serve against the API description's `Screen`;
  /// what breaks it is recorded, and the screen is still served. (Hostile mode changes answers
  /// after this point, in `handle`: its changes are not checked here.)
  func conforming(_ screen: JSONValue, _ endpoint: String) -> JSONValue {
    let problems = JourneySpec.bundled.problems(screen: screen)
    if !problems.isEmpty {
      state.withLock {
        $0.stats.nonConforming.append([
          "direction": "response", "endpoint": .string(endpoint), "screen": screen["screen"] ?? .null,
          "problems": .array(problems.map(JSONValue.string)),
        ])
      }
    }
    return screen
  }

  // MARK: form

  func journeyForm(_ request: ServerRequest) -> ServerReply {
    guard request.method == "POST" else { return json(405, ["error": "method_not_allowed"]) }
    let now = self.now()
    guard let session = session(fromBearer: request, now: now) else { return sessionExpiredReply() }
    guard let formID = FormPath.formID(request.path) else { return json(404, ["error": "not_found"]) }
    func bad(_ text: String) -> ServerReply {
      json(
        400,
        ["hostedUrl": .string(hostedURL(session)), "messages": ["global": ["type": "error", "text": .string(text)]]],
        headers: journeyHeaders())
    }
    guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true else {
      return bad("Content-Type must be application/json")
    }
    let body: [String: JSONValue]
    switch request.body.isEmpty ? JSONValue.null : JSONValue.parse(request.body) {
    case .object(let object)?: body = object
    case .null?: body = [:]
    default: return bad("Malformed request body: expected a JSON object")
    }
    // A strict server: a body that breaks the request schema of its form id is refused. A form
    // id the description does not list (a journey's own) is served, and recorded.
    let problems = JourneySpec.bundled.problems(formID: formID, body: .object(body))
    if !problems.isEmpty {
      state.withLock {
        $0.stats.nonConforming.append([
          "direction": "request", "form": .string(formID), "body": .object(body),
          "problems": .array(problems.map(JSONValue.string)),
        ])
      }
    }
    if !problems.isEmpty && JourneySpec.bundled.lists(formID: formID) {
      let schema = JourneySpec.bundled.requestSchemaName(formID: formID).map { " (\($0))" } ?? ""
      return bad("The request does not match the API\(schema): \(problems.prefix(3).joined(separator: "; "))")
    }
    if let screen = journeyScreen(session.screen), let fault = state.withLock({ $0.takeScreenFault(screen) }) {
      if let early = fault.replyBefore(endpoint: .form) { return early }
      return fault.apply(to: reply(for: submit(session.id, formID: formID, body: body, now: now)))
    }
    return reply(for: submit(session.id, formID: formID, body: body, now: now))
  }

  func reply(for outcome: SubmitOutcome) -> ServerReply {
    let headers = journeyHeaders()
    switch outcome {
    case .screen(let session):
      return json(200, conforming(render(session, messages: nil), "form"), headers: headers)
    case .invalid(let session, let messages):
      if journey.errorsWithScreen {
        return json(400, conforming(render(session, messages: messages), "form"), headers: headers)
      }
      return json(
        400, conforming(["hostedUrl": .string(hostedURL(session)), "messages": messages], "form"), headers: headers)
    case .finish(let session, let token):
      return json(
        200,
        conforming(
          [
            "hostedUrl": .string(hostedURL(session)),
            "finalizeUrl": .string(issuer + "provider/oauth2/v1/finish?" + FormEncoding.encode([("token", token)])),
          ], "form"), headers: headers)
    case .hosted(let session):
      return json(200, conforming(["hostedUrl": .string(hostedURL(session))], "form"), headers: headers)
    case .respond(let session, let status, let body):
      return json(status, substitute(body, session: session, user: nil), headers: headers)
    case .sessionExpired:
      return sessionExpiredReply()
    case .badRequest(let text):
      return json(400, ["messages": ["global": ["type": "error", "text": .string(text)]]], headers: headers)
    }
  }

  /// Runs one submission of `formID` with `body` against the session's current screen.
  func submit(_ sessionID: String, formID: String, body: [String: JSONValue], now: Int64) -> SubmitOutcome {
    state.withLock { state -> SubmitOutcome in
      guard var session = state.sessions[sessionID], !session.finished, session.expiresAt > now else {
        return .sessionExpired
      }
      guard let screen = journeyScreen(session.screen) else {
        return .badRequest("the journey has no screen \(session.screen)")
      }
      guard let form = screen.form(formID) else {
        return .invalid(session, messages: global("This action is not available on this screen"))
      }
      // Widget validators first: a malformed submission never reaches the checks.
      let problems = FormValidation.validate(form, body: body).merging(Hostile.problems(form, body, state.hostile)) {
        own, _ in own
      }
      if !problems.isEmpty {
        return .invalid(
          session, messages: .object([form.id: .object(problems.mapValues { ["type": "error", "text": .string($0)] })]))
      }
      guard let transition = screen.transitions.first(where: { $0.form == formID && matches($0.when, body) }) else {
        return .invalid(
          session, messages: global("Nothing happens for this action here (the journey declares no transition)"))
      }
      if let check = transition.check {
        if let messages = run(check, transition, form: form, body: body, session: &session, state: &state) {
          state.sessions[session.id] = session
          return .invalid(session, messages: messages)
        }
        // What makes the sign-in's acr `mfa` (Consent): a second factor proved.
        if check == .passcode || check == .enroll || screen.id == Self.stepUpScreenID { session.secondFactor = true }
      }
      remember(body, prefix: "", in: &session)
      if let respond = transition.respond {
        state.sessions[session.id] = session
        return .respond(session, status: respond.status, body: respond.body)
      }
      switch transition.next {
      case .screen(let next):
        if next == journey.start {
          session.user = nil
          session.factor = nil
          session.secondFactor = false
        }
        session.screen = next
        state.sessions[session.id] = session
        return .screen(session)
      case .hosted:
        state.sessions[session.id] = session
        return .hosted(session)
      case .finish:
        guard session.user != nil else {
          return .invalid(session, messages: global("The journey finished without identifying a user"))
        }
        if session.consent.wantsMFA && !session.secondFactor {
          // Step-up (RFC 9470): acr_values asked for mfa and the journey did no second factor.
          session.screen = Self.stepUpScreenID
          state.sessions[session.id] = session
          return .screen(session)
        }
        let token = SecureRandom.token()
        state.finishTokens[token] = session.id
        state.sessions[session.id] = session
        return .finish(session, finishToken: token)
      }
    }
  }

  private func matches(_ when: [String: JSONValue], _ body: [String: JSONValue]) -> Bool {
    when.allSatisfy { FormValidation.value(of: $0.key, in: body) == $0.value }
  }

  /// Keeps the submitted text values for `{{answer.ID}}` placeholders (never passwords).
  private func remember(_ body: [String: JSONValue], prefix: String, in session: inout JourneySession) {
    for (key, value) in body where !key.lowercased().contains("password") {
      switch value {
      case .string(let text): session.answers[prefix + key] = text
      case .object(let object): remember(object, prefix: prefix + key + ".", in: &session)
      default: break
      }
    }
  }

  private func global(_ text: String) -> JSONValue { ["global": ["type": "error", "text": .string(text)]] }

  private func widgetMessage(_ form: Form, _ widget: String, _ text: String) -> JSONValue {
    [form.id: [widget: ["type": "error", "text": .string(text)]]]
  }

  /// Runs a transition's check; returns messages when it fails.
  private func run(
    _ check: Transition.Check, _ transition: Transition, form: Form, body: [String: JSONValue],
    session: inout JourneySession, state: inout TenantState
  ) -> JSONValue? {
    func text(_ field: String) -> String? { FormValidation.value(of: field, in: body)?.string }
    switch check {
    case .identify:
      let field = transition.field ?? "identifier"
      let identifier = text(field) ?? ""
      session.identifier = identifier
      guard let user = state.user(identifier) else {
        return widgetMessage(form, field, transition.message ?? "No account found for \(identifier)")
      }
      session.user = user.identifier
    case .password:
      let field = transition.field ?? "password"
      guard let user = state.user(session.user), user.password != nil, user.password == text(field) else {
        return global(transition.message ?? "Incorrect password")
      }
    case .mfaMethod:
      let field = transition.field ?? "id"
      guard let user = state.user(session.user), let chosen = text(field),
        user.factors.contains(where: { $0.id == chosen })
      else {
        return widgetMessage(form, field, transition.message ?? "Choose one of your registered methods")
      }
      session.factor = chosen
    case .passcode:
      let field = transition.field ?? "passcode"
      let user = state.user(session.user)
      let factor = user?.factors.first { $0.id == session.factor } ?? user?.factors.first
      guard let factor, factor.passcode == text(field) else {
        return widgetMessage(form, field, transition.message ?? "Incorrect code")
      }
    case .register:
      let field = transition.field ?? (form.widgets.contains { $0.id == "email" } ? "email" : "identifier")
      guard let identifier = text(field), !identifier.isEmpty else {
        return widgetMessage(form, field, "This field is required")
      }
      if state.user(identifier) != nil {
        return widgetMessage(form, field, transition.message ?? "An account with this identifier already exists")
      }
      if let confirmation = text("passwordConfirmation"), confirmation != text("password") {
        return widgetMessage(form, "passwordConfirmation", "Passwords do not match")
      }
      var claims: [String: JSONValue] = ["email": .string(identifier)]
      for key in ["name", "given_name", "family_name", "phone_number"] {
        if let value = body[key] { claims[key] = value }
      }
      Self.merge(body, into: &claims)
      state.users.append(
        User(
          identifier: identifier, password: text("password"), claims: claims, factors: [], passkey: false,
          activationCode: nil))
      session.user = identifier
      session.identifier = identifier
    case .activation:
      let field = transition.field ?? "passcode"
      let expected = state.user(session.user)?.activationCode ?? Self.defaultActivationCode
      guard text(field) == expected else { return widgetMessage(form, field, transition.message ?? "Incorrect code") }
    case .code:
      let field = transition.field ?? "passcode"
      guard text(field) == transition.expect else {
        return widgetMessage(form, field, transition.message ?? "Incorrect code")
      }
    case .enroll:
      // The enrolment challenge: the code sent to the target chosen earlier; the target becomes a factor.
      let field = transition.field ?? "passcode"
      guard text(field) == transition.expect else {
        return widgetMessage(form, field, transition.message ?? "Incorrect code")
      }
      if let index = state.users.firstIndex(where: { $0.identifier == session.user }) {
        let target = session.answers["target"] ?? "?"
        let id = UUID().uuidString.lowercased() + "/passcode"
        state.users[index].factors.append(.init(id: id, label: target, passcode: transition.expect ?? ""))
      }
    case .setPassword:
      let field = transition.field ?? "password"
      guard let password = text(field), !password.isEmpty else {
        return widgetMessage(form, field, "This field is required")
      }
      if let confirmation = text("passwordConfirmation"), confirmation != password {
        return widgetMessage(form, "passwordConfirmation", transition.message ?? "Passwords do not match")
      }
      guard let index = state.users.firstIndex(where: { $0.identifier == session.user }) else {
        return global("The journey has not identified a user whose password to set")
      }
      state.users[index].password = password
    case .profile:
      // attributes become claims of the user; consents are kept as a `consents` claim.
      guard let index = state.users.firstIndex(where: { $0.identifier == session.user }) else {
        return global("The journey has not identified a user to update")
      }
      Self.merge(body, into: &state.users[index].claims)
    case .passkey:
      if session.user == nil { session.user = state.users.first(where: \.passkey)?.identifier }
      guard let user = state.user(session.user), user.passkey else {
        return global(transition.message ?? "No passkey is registered for this account")
      }
    }
    return nil
  }

  /// A body's `attributes` (and `local`) as claims, its `consents` as the `consents` claim.
  static func merge(_ body: [String: JSONValue], into claims: inout [String: JSONValue]) {
    for key in ["attributes", "local"] {
      for (name, value) in body[key]?.object ?? [:] where !value.isNull { claims[name] = value }
    }
    if let consents = body["consents"]?.object {
      var kept = claims["consents"]?.object ?? [:]
      kept.merge(consents) { _, new in new }
      claims["consents"] = .object(kept)
    }
  }

  // MARK: rendering

  /// The screen as the Journey-flow API sends it, for the session's sdk mode.
  func render(_ session: JourneySession, messages: JSONValue?) -> JSONValue {
    guard let screen = journeyScreen(session.screen) else { return ["hostedUrl": .string(hostedURL(session))] }
    let user = state.withLock { $0.user(session.user) }
    var forms = screen.forms.map(\.raw)
    if session.minimal {
      forms = forms.map { form in
        guard var object = form.object, let widgets = object["widgets"]?.array else { return form }
        object["widgets"] = .array(
          widgets.map { widget in
            guard var w = widget.object else { return widget }
            w["render"] = nil
            return .object(w)
          })
        return .object(object)
      }
    }
    var body: [String: JSONValue] = [
      "screen": .string(screen.id), "hostedUrl": .string(hostedURL(session)), "forms": .array(forms),
    ]
    if !session.minimal {
      if let layout = screen.layout { body["layout"] = layout }
      body["branding"] =
        screen.branding ?? [
          "logoUrl": .null, "copyright": "© 2026 strivacity-emulator", "siteTermUrl": .null, "privacyPolicyUrl": .null,
        ]
    }
    if let messages { body["messages"] = messages }
    return substitute(.object(body), session: session, user: user)
  }

  /// Replaces `{{identifier}}`, `{{user.CLAIM}}`, `{{factor.label}}` and `{{hostedUrl}}` in every string.
  func substitute(_ value: JSONValue, session: JourneySession, user: User?) -> JSONValue {
    switch value {
    case .string(let text) where text.contains("{{"):
      var out = text
      out = out.replacingOccurrences(of: "{{identifier}}", with: user?.identifier ?? session.identifier ?? "")
      out = out.replacingOccurrences(of: "{{hostedUrl}}", with: hostedURL(session))
      let factor = user?.factors.first { $0.id == session.factor } ?? user?.factors.first
      out = out.replacingOccurrences(of: "{{factor.label}}", with: factor?.label ?? "")
      for (key, answer) in session.answers where out.contains("{{answer.") {
        out = out.replacingOccurrences(of: "{{answer.\(key)}}", with: answer)
      }
      for (key, claim) in user?.claims ?? [:] {
        out = out.replacingOccurrences(of: "{{user.\(key)}}", with: claim.string ?? claim.text)
      }
      return .string(out)
    case .array(let items): return .array(items.map { substitute($0, session: session, user: user) })
    case .object(let object): return .object(object.mapValues { substitute($0, session: session, user: user) })
    default: return value
    }
  }
}
