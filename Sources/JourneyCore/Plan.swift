// What a terminal shows and asks for one screen: texts and fields in render order, the actions
// on offer (primary first), or why the screen must go to the hosted page instead.

public struct ScreenPlan: Sendable, Equatable {
  public enum Block: Sendable, Equatable {
    case text(String, html: Bool)
    case field(formID: String, widget: Widget)
  }

  public struct Action: Sendable, Equatable {
    public var formID: String
    public var label: String
    public var link: Bool
    /// A `close` widget: cancel on the client, nothing is sent.
    public var cancels: Bool
  }

  public var blocks: [Block]
  public var actions: [Action]
  public var primaryFormID: String?
  /// True when a layout gave the render order; without one (the *-minimal modes drop it) the
  /// forms' order says nothing about where texts stand.
  public var laidOut = false
  /// Set when a terminal cannot present this screen (protocol §6 client-driven fallback).
  public var fallbackReason: String?

  /// Whether the primary form has a field a person answers (then Enter on the last one submits it).
  public var asksSomething: Bool { primaryFields.contains { !$0.readonly && $0.isAskable } }

  /// Fields of the primary form, in render order.
  public var primaryFields: [Widget] {
    blocks.compactMap { block in
      if case .field(let form, let widget) = block, form == primaryFormID { return widget }
      return nil
    }
  }

  public init(_ screen: Screen) {
    let forms = screen.forms ?? []
    var reason: String?
    for form in forms {
      for widget in form.widgets {
        if case .unknown(let type) = widget.kind, reason == nil {
          reason = "the screen has a widget this client cannot show (\(type))"
        }
      }
    }
    // Render order: the layout when it is complete and understood, else the forms in order.
    var order: [(String, Widget)] = forms.flatMap { form in form.widgets.map { (form.id, $0) } }
    if let layout = screen.layout {
      if let unknown = layout.unknownTypes.first {
        reason = reason ?? "the screen has a layout this client cannot show (\(unknown))"
      }
      let resolved = layout.references.map { ref in (ref.formID, screen.widget(form: ref.formID, id: ref.widgetID)) }
      if let missing = resolved.first(where: { $0.1 == nil }) {
        reason = reason ?? "the layout names a widget the screen does not have (form \(missing.0))"
      } else if !resolved.isEmpty {
        order = resolved.map { ($0.0, $0.1!) }
        laidOut = true
      }
    }
    // Forms that need WebAuthn are not offered: a terminal cannot run the ceremony.
    let unavailable = Set(
      forms.filter {
        $0.widgets.contains {
          if case .passkey = $0.kind { return true }; return false
        }
      }.map(\.id))
    var actions: [Action] = []
    var seen = Set<String>()
    for (formID, widget) in order where !unavailable.contains(formID) {
      switch widget.kind {
      case .submit(let link) where !seen.contains(formID):
        seen.insert(formID)
        actions.append(Action(formID: formID, label: widget.label, link: link, cancels: false))
      case .close:
        actions.append(
          Action(formID: formID, label: widget.label.isEmpty ? "Cancel" : widget.label, link: true, cancels: true))
      default: break
      }
    }
    // The primary form is decided by content, never by position (a layout may well start with
    // "Not you?"): among the usable forms that are not secondary actions, the first in render
    // order that asks for something; else the one named like the screen; else the first that
    // carries text; else the first such form. Only a screen of secondary actions alone has one
    // of them as its primary.
    func usable(_ id: String) -> Bool {
      guard !unavailable.contains(id), let form = forms.first(where: { $0.id == id }) else { return false }
      return !form.inputs.isEmpty || actions.contains { $0.formID == id && !$0.cancels }
    }
    var renderOrder: [String] = []
    for (formID, _) in order where !renderOrder.contains(formID) { renderOrder.append(formID) }
    for form in forms where !renderOrder.contains(form.id) { renderOrder.append(form.id) }
    let candidates = renderOrder.filter { id in
      usable(id) && !Self.isSecondary(id) && !(forms.first { $0.id == id }.map(Self.submitsOnlyByLink) ?? false)
    }
    let asking = candidates.first { id in
      forms.first { $0.id == id }?.inputs.contains { !$0.readonly && $0.isAskable } == true
    }
    // Without a layout or render types (the *-minimal modes), a form of a lone button ("Remind me
    // later") says less than the one carrying the screen's texts.
    let texts = candidates.first { id in
      forms.first { $0.id == id }?.widgets.contains {
        if case .staticText = $0.kind { return true }; return false
      } == true
    }
    let primary =
      asking ?? candidates.first { $0 == screen.id } ?? texts ?? candidates.first
      ?? renderOrder.first { id in usable(id) && actions.contains { $0.formID == id && !$0.cancels } }
    // A primary form with fields but no submit of its own still needs a way to send it.
    if let primary, !actions.contains(where: { $0.formID == primary }),
      forms.first(where: { $0.id == primary })?.inputs.isEmpty == false
    {
      actions.insert(Action(formID: primary, label: "Continue", link: false, cancels: false), at: 0)
    }
    if let index = actions.firstIndex(where: { $0.formID == primary && !$0.cancels }), index > 0 {
      actions.insert(actions.remove(at: index), at: 0)
    }
    if !actions.contains(where: { !$0.cancels }) {
      reason =
        reason
        ?? (unavailable.isEmpty
          ? "the screen offers no action this client can take"
          : "this step needs a passkey, which a terminal cannot use")
    }
    var blocks: [Block] = []
    for (formID, widget) in order {
      switch widget.kind {
      case .staticText(let html): blocks.append(.text(widget.label, html: html))
      case .submit, .close, .unknown, .passkey: continue
      default: blocks.append(.field(formID: formID, widget: widget))
      }
    }
    self.blocks = blocks
    self.actions = actions
    self.primaryFormID = primary
    self.fallbackReason = reason
  }

  /// Forms that are secondary actions by their id (protocol §15.1, the OpenAPI form ids):
  /// starting over, the additional actions, other identity providers, and the passkey shortcut.
  public static func isSecondary(_ formID: String) -> Bool {
    formID == "reset" || formID == "passkey" || formID.hasPrefix("additionalActions/")
      || formID.hasPrefix("externalLoginProvider")
  }

  /// A form whose submits are all links ("Forgot your password?") is a secondary action too.
  static func submitsOnlyByLink(_ form: Form) -> Bool {
    let submits = form.submits
    return !submits.isEmpty && form.inputs.isEmpty
      && submits.allSatisfy {
        if case .submit(true) = $0.kind { return true }; return false
      }
  }
}
