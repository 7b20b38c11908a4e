// Filling a journey screen: answers come from --field/--field-env first, then from the person
// at the terminal. Every answer is checked against the widget's validator before it is sent;
// after a 400 only the fields the server named are asked again.
import Broker
import JourneyCore
import StrivacityCore
import TerminalUI

final class Prompter {
  let terminal: TTY?
  let style: Style
  /// Answers given on the command line, by widget id (never echoed).
  private var provided: [String: String]
  /// Widgets whose provided answer the server rejected: asked on the terminal from then on.
  private var rejected: Set<String> = []
  /// Widget ids answered with --field (on the command line, where other processes can read it).
  private let fromArguments: Set<String>
  private var warnedAboutArguments = false
  /// Action form ids requested with --action, used once each when a screen offers them.
  private var requestedActions: [String]

  init(terminal: TTY?, style: Style, provided: [String: String], fromArguments: Set<String>, actions: [String]) {
    self.terminal = terminal
    self.style = style
    self.provided = provided
    self.fromArguments = fromArguments
    self.requestedActions = actions
  }

  var interactive: Bool { terminal != nil }

  /// Typed at any prompt as `:N`: take the screen's action N now, without the remaining fields.
  private struct Jump: Error { var action: ScreenPlan.Action }
  private var currentActions: [ScreenPlan.Action] = []

  /// Fills the screen's fields into `machine` and returns the action to take.
  func fill(_ machine: inout JourneyMachine, plan: ScreenPlan, ask: [String]) throws -> ScreenPlan.Action {
    let messages = machine.screen?.messages
    currentActions = plan.actions
    if let terminal {
      terminal.write("\n" + ScreenRenderer.header(plan, messages: messages, style: style).map { $0 + "\n" }.joined())
      if let hint = ScreenRenderer.shortcuts(plan, style: style) { terminal.write(hint + "\n") }
    } else if let global = messages?.global {
      // Nobody can correct the answers: the last submission was refused.
      throw JourneyError.rejected(global)
    }
    let action: ScreenPlan.Action
    let requested = takeRequestedAction(plan)  // one --action per screen, used up here
    if let requested, requested.formID != plan.primaryFormID {
      // --action for another form of this screen: the main form's fields are not wanted.
      action = requested
    } else {
      do {
        try fillFields(of: plan.primaryFormID, in: &machine, plan: plan, ask: Set(ask), showTexts: true)
        action = try requested ?? chooseAction(plan)
      } catch let jump as Jump {
        action = jump.action
      }
    }
    if action.cancels { throw JourneyError.cancelled }
    if action.formID != plan.primaryFormID {
      try fillFields(of: action.formID, in: &machine, plan: plan, ask: nil)
    }
    return action
  }

  /// Asks (or takes from --field) the fields of `formID`; with `showTexts`, the texts placed
  /// between and after fields appear where the layout puts them.
  private func fillFields(
    of formID: String?, in machine: inout JourneyMachine, plan: ScreenPlan, ask: Set<String>?, showTexts: Bool = false
  ) throws {
    guard let formID, let screen = machine.screen else { return }
    var missing: [String] = []
    for (index, block) in plan.blocks.enumerated() {
      if showTexts, let terminal, ScreenRenderer.isTrailingText(index, in: plan) {
        terminal.write(ScreenRenderer.text(block, style: style) + "\n")
      }
      guard case .field(let form, let widget) = block, form == formID else { continue }
      if widget.readonly {
        terminal?.write(ScreenRenderer.readonly(widget) + "\n")
        continue
      }
      guard widget.isAskable, ask?.contains(widget.id) ?? true else { continue }
      let message = screen.messages?.text(form: formID, widget: widget.id)
      if message != nil && provided[widget.id] != nil { rejected.insert(widget.id) }
      if let given = provided[widget.id], !rejected.contains(widget.id) {
        switch parse(given, widget, automated: true) {
        case .success(let value?):
          if isSecret(widget) && fromArguments.contains(widget.id) && !warnedAboutArguments {
            warnedAboutArguments = true
            Console.warning(
              "--field \(widget.id) put a secret on the command line, where other processes can read it; use "
                + "--field-env \(widget.id)=VARIABLE"
            )
          }
          if WidgetValidation.problem(widget, value) == nil {
            machine.setAnswer(value, form: formID, widget: widget.id)
            continue
          }
        case .success(nil), .failure: break
        }
        rejected.insert(widget.id)
      }
      if let terminal {
        // Asked again after a message: offer the previous answer as the default (never for secrets).
        var shown = widget
        if let previous = machine.answers[formID]?[widget.id], !isSecret(widget) { shown.value = previous }
        machine.setAnswer(try askOnTerminal(shown, message: message, on: terminal), form: formID, widget: widget.id)
      } else if let message {
        throw JourneyError.rejected("\(widget.label.isEmpty ? widget.id : HTMLText.plain(widget.label)): \(message)")
      } else if provided[widget.id] != nil {
        throw JourneyError.rejected(
          "--field \(widget.id): "
            + "\(WidgetValidation.problem(widget, parseOrNil(provided[widget.id]!, widget)) ?? "not a valid answer")"
        )
      } else if WidgetValidation.problem(widget, widget.value) != nil {
        missing.append(widget.id)  // nothing given, and the server's default (if any) will not do
      }
    }
    if !missing.isEmpty { throw JourneyError.missingFields(missing) }
  }

  private func parseOrNil(_ text: String, _ widget: Widget) -> JSONValue? {
    if case .success(let value) = parse(text, widget, automated: true) { return value }
    return nil
  }

  /// The action to take once the primary form's fields are answered, when none was asked for
  /// with --action: on a screen that asked for something, its primary action (other actions
  /// are `:N` at any prompt); only a screen that asks nothing offers the menu, Enter taking the
  /// primary action.
  private func chooseAction(_ plan: ScreenPlan) throws -> ScreenPlan.Action {
    let usable = plan.actions.filter { !$0.cancels }
    guard let terminal, plan.actions.count > 1, !plan.asksSomething else {
      guard let first = usable.first else { throw JourneyError.malformedAnswer("the screen offers no action") }
      return first
    }
    terminal.write("What next?\n" + ScreenRenderer.actions(plan, style: style).map { $0 + "\n" }.joined())
    while true {
      let line = try read(terminal, prompt: "Choice [1]: ", hidden: false)
      if line.isEmpty { return plan.actions[0] }
      if let n = Int(line), plan.actions.indices.contains(n - 1) { return plan.actions[n - 1] }
      terminal.write(
        ScreenRenderer.fieldMessage("Choose a number from 1 to \(plan.actions.count)", style: style) + "\n")
    }
  }

  /// The first action asked for with --action that this screen offers (used up).
  private func takeRequestedAction(_ plan: ScreenPlan) -> ScreenPlan.Action? {
    guard let index = requestedActions.firstIndex(where: { id in plan.actions.contains { $0.formID == id } }) else {
      return nil
    }
    let id = requestedActions.remove(at: index)
    return plan.actions.first { $0.formID == id }
  }

  private func askOnTerminal(_ widget: Widget, message: String?, on terminal: TTY) throws -> JSONValue {
    if let message { terminal.write(ScreenRenderer.fieldMessage(message, style: style) + "\n") }
    switch widget.kind {
    case .select, .multiSelect:
      let chosen = Set(widget.value?.array?.compactMap(\.string) ?? [])
      terminal.write(ScreenRenderer.choices(widget, chosen: chosen, style: style).map { $0 + "\n" }.joined())
    default: break
    }
    while true {
      let line = try read(
        terminal, prompt: ScreenRenderer.prompt(widget, defaultText: ScreenRenderer.defaultText(widget), style: style),
        hidden: hidesInput(widget))
      switch parse(line, widget, automated: false) {
      case .failure(let problem):
        terminal.write(ScreenRenderer.fieldMessage(problem.text, style: style) + "\n")
      case .success(let value):
        if let problem = WidgetValidation.problem(widget, value) {
          terminal.write(ScreenRenderer.fieldMessage(problem, style: style) + "\n")
          continue
        }
        return value ?? .string("")
      }
    }
  }

  /// Passwords and one-time codes: never kept as a default, warned about on the command line.
  private func isSecret(_ widget: Widget) -> Bool {
    switch widget.kind {
    case .password, .passcode: return true
    default: return false
    }
  }

  /// Only passwords are read with echo off. One-time codes are not: they are spent within
  /// minutes, and a person can check six digits for a typo before pressing Enter (as gh, the
  /// AWS CLI and most terminal MFA prompts do). README, "Sign in".
  private func hidesInput(_ widget: Widget) -> Bool {
    if case .password = widget.kind { return true }
    return false
  }

  private func read(_ terminal: TTY, prompt: String, hidden: Bool) throws -> String {
    let line: String
    do {
      line = try terminal.readLine(prompt: prompt, hidden: hidden)
    } catch {
      throw JourneyError.cancelled  // Ctrl-D
    }
    // `:N` takes action N at every prompt, hidden ones too: what was meant as an action is never
    // sent as a password. An answer that really starts with ":" is typed with "::".
    if line.hasPrefix("::") { return String(line.dropFirst()) }
    if line.hasPrefix(":"), let n = Int(line.dropFirst()), currentActions.indices.contains(n - 1) {
      throw Jump(action: currentActions[n - 1])
    }
    return line
  }

  struct Problem: Error { var text: String }

  /// Turns typed (or --field) text into the widget's JSON value; nil means "left empty".
  func parse(_ text: String, _ widget: Widget, automated: Bool) -> Result<JSONValue?, Problem> {
    let trimmed = text.trimming(" \t")
    switch widget.kind {
    case .checkbox:
      switch trimmed.lowercased() {
      case "": return .success(widget.value ?? false)
      case "y", "yes", "true", "1", "on": return .success(true)
      case "n", "no", "false", "0", "off": return .success(false)
      default: return .failure(Problem(text: "Answer y or n"))
      }
    case .select:
      if trimmed.isEmpty { return .success(widget.value) }
      return choice(trimmed, widget).map { .string($0) }
    case .multiSelect:
      if trimmed.isEmpty { return .success(widget.value ?? []) }
      if trimmed == "-" { return .success([]) }
      var values: [JSONValue] = []
      for part in trimmed.split(separator: ",") {
        switch choice(part.trimming(" "), widget) {
        case .success(let value): values.append(.string(value))
        case .failure(let problem): return .failure(problem)
        }
      }
      return .success(.array(values))
    case .passcode:
      return .success(trimmed.isEmpty ? nil : .string(trimmed.filter { $0 != " " }))
    case .password:
      return .success(text.isEmpty ? nil : .string(text))  // passwords are taken exactly as typed
    default:
      if trimmed.isEmpty { return .success(widget.value) }
      return .success(.string(trimmed))
    }
  }

  /// A select answer: its number in the list, or an option's value or label.
  private func choice(_ text: String, _ widget: Widget) -> Result<String, Problem> {
    let items = widget.options.flatMap(\.items)
    if let n = Int(text), items.indices.contains(n - 1) { return .success(items[n - 1].value) }
    if let item = items.first(where: { $0.value == text || $0.label.lowercased() == text.lowercased() }) {
      return .success(item.value)
    }
    return .failure(Problem(text: "Choose a number from 1 to \(items.count)"))
  }
}
