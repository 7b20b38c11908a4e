// How a journey screen looks in a terminal, as pure functions of data (golden-file tested).
//
// Rules: the server's labels and texts are shown as sent (HTML reduced to text, links as URLs);
// choices are numbered, with group labels as headings; defaults are shown in brackets; messages
// sit next to what they concern. Colour only when the caller says so (a TTY without NO_COLOR).
import JourneyCore
import StrivacityCore

public struct Style: Sendable {
  public var colour: Bool
  public init(colour: Bool) { self.colour = colour }

  func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
  public func bold(_ text: String) -> String { paint(text, "1") }
  public func dim(_ text: String) -> String { paint(text, "2") }
  public func error(_ text: String) -> String { paint(text, "31") }
  public func accent(_ text: String) -> String { paint(text, "36") }
}

public enum ScreenRenderer {
  /// Every text of a screen is the tenant's: it reaches lines only through here (or through
  /// `TerminalSafe.text` for multi-line texts), so no escape sequence of the tenant's survives,
  /// not even colour; strivacity's own styling is added around it afterwards.
  static func safe(_ text: String) -> String { TerminalSafe.text(text, multiline: false) }

  /// The screen's texts that come before its first field, in render order (the first one bold),
  /// and the global message. Texts a layout places after a field are shown where they stand
  /// (`text`); without a layout every text comes first.
  public static func header(_ plan: ScreenPlan, messages: Messages?, style: Style) -> [String] {
    var lines: [String] = []
    for (index, block) in plan.blocks.enumerated() {
      guard case .text = block, !isTrailingText(index, in: plan) else { continue }
      lines.append(text(block, first: lines.isEmpty, style: style))
    }
    if let global = messages?.global { lines.append(style.error("! " + TerminalSafe.text(global))) }
    return lines
  }

  /// One text block as a line (HTML reduced to text, made inert); "" for a field.
  public static func text(_ block: ScreenPlan.Block, first: Bool = false, style: Style) -> String {
    guard case .text(let text, let html) = block else { return "" }
    let shown = TerminalSafe.text(html ? HTMLText.plain(text) : text)
    return first ? style.bold(shown) : shown
  }

  /// Whether `block` is a text a layout places after the screen's first field.
  public static func isTrailingText(_ index: Int, in plan: ScreenPlan) -> Bool {
    guard plan.laidOut, case .text = plan.blocks[index] else { return false }
    return plan.blocks[..<index].contains {
      if case .field = $0 { return true }; return false
    }
  }

  /// The question for one field, e.g. `Email address [you@example.com]: `.
  public static func prompt(_ widget: Widget, defaultText: String?, style: Style) -> String {
    var label = widget.label.isEmpty ? widget.id : widget.label
    if case .checkbox(_, let html) = widget.kind, html { label = HTMLText.plain(label) }
    label = safe(label)
    let defaultText = defaultText.map(safe)
    switch widget.kind {
    case .checkbox:
      let yes = (defaultText == "yes")
      return "\(label) \(style.dim(yes ? "[Y/n]" : "[y/N]")): "
    case .date:
      return "\(label) \(style.dim("(YYYY-MM-DD)"))\(defaultText.map { " [\($0)]" } ?? ""): "
    case .select, .multiSelect:
      return "\(defaultText.map { "Choice [\($0)]" } ?? "Choice"): "
    case .passcode:
      // Unless the label says it already ("Invitation code (any 6 digits)").
      let length =
        label.lowercased().contains("digit")
        ? "" : widget.validator.length.map { " \(style.dim("(\($0) digits)"))" } ?? ""
      return "\(label)\(length): "
    default:
      let hint = defaultText.map { " [\($0)]" } ?? widget.placeholder.map { " " + style.dim("(\(safe($0)))") } ?? ""
      return "\(label)\(hint): "
    }
  }

  /// Numbered options with group headings; `chosen` marks current multiSelect choices.
  public static func choices(_ widget: Widget, chosen: Set<String> = [], style: Style) -> [String] {
    var lines: [String] = []
    if !widget.label.isEmpty { lines.append(safe(widget.label)) }
    var number = 0
    for node in widget.options {
      switch node {
      case .item(let label, let value):
        number += 1
        lines.append(
          option(number, label, marked: chosen.contains(value), multi: widget.kind == .multiSelect, indent: "  "))
      case .group(let label, _):
        lines.append("  " + style.bold(safe(label)))
        for item in node.items {
          number += 1
          lines.append(
            option(
              number, item.label, marked: chosen.contains(item.value), multi: widget.kind == .multiSelect,
              indent: "    "))
        }
      }
    }
    if widget.kind == .multiSelect {
      let rules = widget.validator
      var hint = "numbers separated by commas"
      switch (rules.minSelectable, rules.maxSelectable) {
      case (let min?, let max?): hint += ", \(min) to \(max)"
      case (let min?, nil): hint += ", at least \(min)"
      case (nil, let max?): hint += ", at most \(max)"
      default: break
      }
      lines.append(style.dim("  (\(hint))"))
    }
    return lines
  }

  private static func option(_ number: Int, _ label: String, marked: Bool, multi: Bool, indent: String) -> String {
    let box = multi ? (marked ? "[x] " : "[ ] ") : ""
    return "\(indent)\(number)) \(box)\(safe(label))"
  }

  /// The actions on offer when there is more than one.
  public static func actions(_ plan: ScreenPlan, style: Style) -> [String] {
    plan.actions.enumerated().map { index, action in
      "  \(index + 1)) " + (action.link ? safe(action.label) : style.accent(safe(action.label)))
    }
  }

  /// When a screen has actions besides its main one, how to reach them from any prompt.
  public static func shortcuts(_ plan: ScreenPlan, style: Style) -> String? {
    guard plan.actions.count > 1 else { return nil }
    let others = plan.actions.enumerated().dropFirst().map { ":\($0.offset + 1) \(safe($0.element.label))" }
    return style.dim("(at any prompt: " + others.joined(separator: ", ") + ")")
  }

  /// A message under a field.
  public static func fieldMessage(_ text: String, style: Style) -> String { style.error("  ! " + safe(text)) }

  /// A readonly field, shown but not asked.
  public static func readonly(_ widget: Widget) -> String {
    safe("\(widget.label.isEmpty ? widget.id : widget.label): \(widget.value.map { $0.string ?? $0.text } ?? "")")
  }

  /// Everything a person sees of a screen before answering, as a transcript: texts, each field
  /// with its prompt (and choices), and the actions. Used by golden tests and `--verbose`.
  public static func transcript(_ screen: Screen, style: Style = Style(colour: false)) -> String {
    let plan = ScreenPlan(screen)
    if let reason = plan.fallbackReason { return "(continues in the browser: \(reason))\n" }
    var lines = header(plan, messages: screen.messages, style: style)
    for (index, block) in plan.blocks.enumerated() {
      if isTrailingText(index, in: plan) { lines.append(text(block, style: style)) }
      guard case .field(let formID, let widget) = block else { continue }
      if widget.readonly {
        lines.append(readonly(widget))
        continue
      }
      guard widget.isAskable else { continue }
      switch widget.kind {
      case .select, .multiSelect:
        lines += choices(widget, chosen: Set(widget.value?.array?.compactMap(\.string) ?? []), style: style)
      default: break
      }
      lines.append(
        prompt(widget, defaultText: defaultText(widget), style: style) + (widget.kind == .password ? "(hidden)" : ""))
      if let message = screen.messages?.text(form: formID, widget: widget.id) {
        lines.append(fieldMessage(message, style: style))
      }
    }
    if plan.actions.count > 1 && !plan.asksSomething {
      lines.append("What next?")
      lines += actions(plan, style: style)
    } else if let primary = plan.actions.first {
      // The last answer submits the primary action; the others are `:N` at any prompt.
      lines.append("[\(safe(primary.label))]")
      if let hint = shortcuts(plan, style: style) { lines.append(hint) }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The default shown for a field, from the server's value.
  public static func defaultText(_ widget: Widget) -> String? {
    switch widget.kind {
    case .checkbox: return widget.value?.bool == true ? "yes" : "no"
    case .select:
      guard let value = widget.value?.string, let index = widget.optionValues.firstIndex(of: value) else { return nil }
      return String(index + 1)
    case .multiSelect:
      let chosen = widget.value?.array?.compactMap(\.string) ?? []
      let numbers = chosen.compactMap { widget.optionValues.firstIndex(of: $0).map { String($0 + 1) } }
      return numbers.isEmpty ? nil : numbers.joined(separator: ",")
    case .password, .passcode: return nil
    default:
      guard let text = widget.value?.string, !text.isEmpty else { return nil }
      return text
    }
  }
}
