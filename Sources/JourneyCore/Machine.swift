// The journey as a state machine over data (protocol §4.4, §4.5, §14): each answer from the
// tenant goes in, the next thing to do comes out. No I/O happens here.
import StrivacityCore

public struct JourneyMachine: Sendable {
  /// What the client does next.
  public enum Step: Sendable, Equatable {
    /// Show the screen and ask `ask` (widget ids of the form to fill); keep `answers`.
    case render(ScreenPlan, ask: [String])
    case finalize(url: String)
    case fallback(url: String, reason: String)
    case sessionExpired
    case failed(JourneyError)
  }

  public private(set) var screen: Screen?
  public private(set) var plan: ScreenPlan?
  /// Answers by form id, then widget id. Kept while the screen stays; cleared when it changes.
  public private(set) var answers: [String: [String: JSONValue]] = [:]
  /// The form last submitted (for re-asking after a global message).
  public private(set) var lastSubmitted: String?

  public init() {}

  public mutating func setAnswer(_ value: JSONValue, form: String, widget: String) {
    answers[form, default: [:]][widget] = value
  }

  /// The body to send for `formID`, built from the answers and the screen's defaults.
  public mutating func body(for formID: String) -> JSONValue {
    lastSubmitted = formID
    guard let form = screen?.form(formID) else { return .object([:]) }
    return SubmitBody.build(form: form, answers: answers[formID] ?? [:])
  }

  /// The secrets `formID`'s answers hold (passwords, one-time codes): values a failed answer to
  /// its submission must not quote back (`HTTPRequest.sentSecrets`).
  public func secretAnswers(for formID: String) -> [String] {
    guard let form = screen?.form(formID) else { return [] }
    return form.widgets.compactMap { widget in
      switch widget.kind {
      case .password, .passcode: answers[formID]?[widget.id]?.string
      default: nil
      }
    }
  }

  /// Feeds one answer of init, a form submission, or a resumed session.
  public mutating func receive(status: Int, body: [UInt8]) -> Step {
    if status == 403 { return .sessionExpired }
    let json = JSONValue.parse(body)
    switch status {
    case 200, 400:
      break
    case 401...499:
      // Another 4xx carrying only hostedUrl is the server's way to say "continue on the web" (JS SDK).
      if let json, let url = json["hostedUrl"]?.string, json["messages"] == nil {
        return .fallback(url: url, reason: "the tenant asked to continue in the browser (HTTP \(status))")
      }
      return .failed(
        .unexpectedStatus(
          status,
          json.flatMap { try? Screen(json: $0) }?.messages?.global.flatMap { TenantWords.quoted($0) }
            ?? TenantWords.of(body)))
    default:
      return .failed(.unexpectedStatus(status, TenantWords.of(body)))
    }
    guard let json else { return .failed(.malformedAnswer("not JSON (HTTP \(status))")) }
    // A 400 that is an error document, not a screen (an expired magic link: protocol §3.5).
    if status == 400, json["error"]?.string != nil, json["messages"] == nil, json["forms"] == nil {
      return .failed(.unexpectedStatus(status, TenantWords.of(body)))
    }
    let next: Screen
    do {
      next = try Screen(json: json)
    } catch {
      return .failed(error)
    }
    if let url = next.finalizeURL { return .finalize(url: url) }
    if let url = next.hostedURL, next.forms == nil, next.messages == nil {
      return .fallback(url: url, reason: "the tenant asked to continue in the browser")
    }
    if next.forms != nil {
      let sameScreen = status == 400 || (screen?.id != nil && screen?.id == next.id)
      if !sameScreen { answers = [:] }
      var updated = next
      if updated.hostedURL == nil { updated.hostedURL = screen?.hostedURL }
      return show(updated, messages: next.messages, keepAnswers: sameScreen)
    }
    guard var current = screen else {
      return .failed(.malformedAnswer("messages arrived before any screen"))
    }
    // Messages only: same screen, same answers, new messages.
    current.messages = next.messages
    if let url = next.hostedURL { current.hostedURL = url }
    return show(current, messages: next.messages, keepAnswers: true)
  }

  private mutating func show(_ next: Screen, messages: Messages?, keepAnswers: Bool) -> Step {
    let plan = ScreenPlan(next)
    screen = next
    self.plan = plan
    if let reason = plan.fallbackReason {
      guard let url = next.hostedURL else {
        return .failed(.malformedAnswer("\(reason), and it sent no hostedUrl to continue in a browser"))
      }
      return .fallback(url: url, reason: reason)
    }
    return .render(plan, ask: fieldsToAsk(plan, messages: messages, keepAnswers: keepAnswers))
  }

  /// New screen: every editable field of the primary form. After messages: the fields they name,
  /// or, for a global message only, the editable fields of the form last submitted.
  private func fieldsToAsk(_ plan: ScreenPlan, messages: Messages?, keepAnswers: Bool) -> [String] {
    let editable = { (formID: String?) -> [String] in
      plan.blocks.compactMap { block in
        if case .field(let form, let widget) = block, form == formID, !widget.readonly, widget.isAskable {
          return widget.id
        }
        return nil
      }
    }
    guard keepAnswers, let messages, !messages.isEmpty else { return editable(plan.primaryFormID) }
    let form = lastSubmitted ?? plan.primaryFormID
    let named = editable(form).filter { messages.text(form: form ?? "", widget: $0) != nil }
    return named.isEmpty ? editable(form) : named
  }
}

extension Widget {
  /// Whether a person is asked for it (hidden checkboxes are sent as true without asking).
  public var isAskable: Bool {
    if case .checkbox(let hidden, _) = kind { return !hidden }
    return kind.takesValue && kind.isRenderable
  }
}
