// Screens as the Journey-flow API sends them (protocol §7), decoded leniently: every top-level
// field is optional, unknown fields are ignored, and a widget or layout item that cannot be
// understood becomes `.unknown` (which makes the screen fall back to the hosted page) instead
// of failing the whole answer.
import StrivacityCore

public struct Screen: Sendable, Equatable {
  public var id: String?
  public var hostedURL: String?
  public var finalizeURL: String?
  public var forms: [Form]?
  public var layout: LayoutNode?
  public var messages: Messages?

  public init(
    id: String? = nil, hostedURL: String? = nil, finalizeURL: String? = nil, forms: [Form]? = nil,
    layout: LayoutNode? = nil, messages: Messages? = nil
  ) {
    self.id = id
    self.hostedURL = hostedURL
    self.finalizeURL = finalizeURL
    self.forms = forms
    self.layout = layout
    self.messages = messages
  }

  /// Decodes a journey answer. Throws only when it is not a JSON object at all.
  public init(json: JSONValue) throws(JourneyError) {
    guard let object = json.object else { throw .malformedAnswer("expected a JSON object, got \(json.typeName)") }
    id = object["screen"]?.string
    hostedURL = object["hostedUrl"]?.string
    finalizeURL = object["finalizeUrl"]?.string
    if let forms = object["forms"]?.array {
      self.forms = forms.map(Form.init(json:))
    }
    layout = object["layout"].flatMap { $0.isNull ? nil : LayoutNode(json: $0) }
    messages = object["messages"].flatMap { $0.isNull ? nil : Messages(json: $0) }
  }

  public func form(_ id: String) -> Form? { forms?.first { $0.id == id } }

  public func widget(form: String, id: String) -> Widget? { self.form(form)?.widgets.first { $0.id == id } }
}

public struct Form: Sendable, Equatable {
  public var id: String
  public var widgets: [Widget]

  public init(id: String, widgets: [Widget]) {
    self.id = id
    self.widgets = widgets
  }

  init(json: JSONValue) {
    id = json["id"]?.string ?? ""
    widgets = (json["widgets"]?.array ?? []).map(Widget.init(json:))
  }

  /// The form's submit actions (button or link).
  public var submits: [Widget] {
    widgets.filter {
      if case .submit = $0.kind { return true }; return false
    }
  }
  /// Widgets that take a value.
  public var inputs: [Widget] { widgets.filter(\.kind.takesValue) }
}

public enum WidgetKind: Sendable, Equatable {
  case staticText(html: Bool)
  case submit(link: Bool)
  case close
  case input
  case password
  case checkbox(hidden: Bool, htmlLabel: Bool)
  case select(radio: Bool)
  case multiSelect
  case passcode
  case phone
  case date
  /// passkeyLogin, passkeyEnroll, webauthnLogin, webauthnEnroll: WebAuthn, which a terminal cannot do.
  case passkey(String)
  /// A type this client does not know, or a known type missing a field it needs.
  case unknown(String)

  public var takesValue: Bool {
    switch self {
    case .input, .password, .checkbox, .select, .multiSelect, .passcode, .phone, .date, .passkey: return true
    case .staticText, .submit, .close, .unknown: return false
    }
  }

  /// Whether a terminal can present it.
  public var isRenderable: Bool {
    switch self {
    case .passkey, .unknown: return false
    default: return true
    }
  }
}

public struct Widget: Sendable, Equatable {
  public var id: String
  public var kind: WidgetKind
  public var label: String
  public var value: JSONValue?
  public var placeholder: String?
  public var readonly: Bool
  public var options: [OptionNode]
  public var validator: Validator

  public init(
    id: String, kind: WidgetKind, label: String = "", value: JSONValue? = nil, placeholder: String? = nil,
    readonly: Bool = false, options: [OptionNode] = [], validator: Validator = Validator()
  ) {
    self.id = id
    self.kind = kind
    self.label = label
    self.value = value
    self.placeholder = placeholder
    self.readonly = readonly
    self.options = options
    self.validator = validator
  }

  /// Decodes a widget leniently: what cannot be understood becomes `.unknown`.
  public init(json: JSONValue) {
    let type = json["type"]?.string ?? ""
    id = json["id"]?.string ?? ""
    label = json["label"]?.string ?? ""
    value = json["value"].flatMap { $0.isNull ? nil : $0 }
    if value == nil, let values = json["values"], !values.isNull { value = values }  // JS typing (§17.18)
    placeholder = json["placeholder"]?.string
    readonly = json["readonly"]?.bool ?? false
    options = (json["options"]?.array ?? []).compactMap(OptionNode.init(json:))
    validator = Validator(json: json["validator"] ?? .null)
    let render = json["render"].flatMap { $0.isNull ? nil : $0 }
    switch type {
    case "static":
      // *-minimal modes drop `render`: then markup in the text itself says it is HTML.
      let html = render.map { $0["type"]?.string == "html" } ?? HTMLText.looksLikeHTML(json["value"]?.string ?? "")
      kind = json["value"]?.string == nil ? .unknown(type) : .staticText(html: html)
      if case .staticText = kind { label = json["value"]!.string! }
    case "submit": kind = .submit(link: render?["type"]?.string == "link")
    case "close": kind = .close
    case "input": kind = .input
    case "password": kind = .password
    case "checkbox":
      let htmlLabel = render.map { $0["labelType"]?.string == "html" } ?? HTMLText.looksLikeHTML(label)
      kind = .checkbox(hidden: render?["type"]?.string == "checkboxHidden", htmlLabel: htmlLabel)
    case "select": kind = options.isEmpty ? .unknown(type) : .select(radio: render?["type"]?.string == "radio")
    case "multiSelect": kind = options.isEmpty ? .unknown(type) : .multiSelect
    case "passcode": kind = .passcode
    case "phone": kind = .phone
    case "date": kind = .date
    case "passkeyLogin", "passkeyEnroll", "webauthnLogin", "webauthnEnroll": kind = .passkey(type)
    default: kind = .unknown(type)
    }
    if id.isEmpty { kind = .unknown(type.isEmpty ? "(no type)" : type) }
  }

  /// Option values of select and multiSelect, groups flattened.
  public var optionValues: [String] { options.flatMap(\.items).map(\.value) }
}

public enum OptionNode: Sendable, Equatable {
  case item(label: String, value: String)
  case group(label: String, items: [OptionNode])

  init?(json: JSONValue) {
    if json["type"]?.string == "group" || json["options"]?.array != nil {
      self = .group(
        label: json["label"]?.string ?? "", items: (json["options"]?.array ?? []).compactMap(OptionNode.init(json:)))
    } else if let value = json["value"]?.string {
      self = .item(label: json["label"]?.string ?? value, value: value)
    } else {
      return nil
    }
  }

  /// The selectable items under this node.
  public var items: [(label: String, value: String)] {
    switch self {
    case .item(let label, let value): return [(label, value)]
    case .group(_, let items): return items.flatMap(\.items)
    }
  }
}

/// The rules of a widget's `validator` (protocol §7.3, §9).
public struct Validator: Sendable, Equatable {
  public var required = false
  public var minLength: Int?
  public var maxLength: Int?
  public var regex: String?
  public var length: Int?
  public var notBefore: String?
  public var notAfter: String?
  public var minSelectable: Int?
  public var maxSelectable: Int?
  public var mustContain: [String] = []
  public var maxRepeatedCharacters: Int?
  public var maxNumericCharacterSequences: Int?
  public var restrictedCharacters: String?

  public init() {}

  init(json: JSONValue) {
    required = json["required"]?.bool ?? false
    minLength = json["minLength"]?.int
    maxLength = json["maxLength"]?.int
    regex = (json["regex"] ?? json["regexp"])?.string  // both spellings exist (§17.17)
    length = json["length"]?.int
    notBefore = json["notBefore"]?.string
    notAfter = json["notAfter"]?.string
    minSelectable = json["minSelectable"]?.int
    maxSelectable = json["maxSelectable"]?.int
    mustContain = json["mustContain"]?.array?.compactMap(\.string) ?? []
    maxRepeatedCharacters = json["maxRepeatedCharacters"]?.int
    maxNumericCharacterSequences = json["maxNumericCharacterSequences"]?.int
    restrictedCharacters = json["restrictedCharacters"]?.string
  }
}

public indirect enum LayoutNode: Sendable, Equatable {
  case container(horizontal: Bool, items: [LayoutNode])
  case widget(formID: String, widgetID: String)
  case unknown(String)

  init(json: JSONValue) {
    switch json["type"]?.string {
    case "vertical", "horizontal":
      self = .container(
        horizontal: json["type"]?.string == "horizontal",
        items: (json["items"]?.array ?? []).map(LayoutNode.init(json:)))
    case "grid":
      // The OpenAPI description gives a grid no fields of its own; accept its items the ways a
      // server could send them: `items` (cells in reading order), or `rows`/`columns`, each a
      // list of cells or of lists of cells. A terminal reads a grid row by row.
      var cells: [JSONValue] = []
      for key in ["items", "rows", "columns"] {
        for entry in json[key]?.array ?? [] { cells += entry.array ?? [entry] }
      }
      self = .container(horizontal: false, items: cells.map(LayoutNode.init(json:)))
    case "widget":
      if let form = json["formId"]?.string, let widget = json["widgetId"]?.string {
        self = .widget(formID: form, widgetID: widget)
      } else {
        self = .unknown("widget without formId/widgetId")
      }
    case let other:
      self = .unknown(other ?? "(no type)")
    }
  }

  /// Widget references in render order.
  public var references: [(formID: String, widgetID: String)] {
    switch self {
    case .container(_, let items): return items.flatMap(\.references)
    case .widget(let form, let widget): return [(form, widget)]
    case .unknown: return []
    }
  }

  var unknownTypes: [String] {
    switch self {
    case .container(_, let items): return items.flatMap(\.unknownTypes)
    case .widget: return []
    case .unknown(let type): return [type]
    }
  }
}

/// Messages: a global one, per-widget ones, or both (JS allows both; mobile keeps global only).
public struct Messages: Sendable, Equatable {
  public var global: String?
  public var widgets: [String: [String: String]] = [:]

  public init(global: String? = nil, widgets: [String: [String: String]] = [:]) {
    self.global = global
    self.widgets = widgets
  }

  init?(json: JSONValue) {
    guard let object = json.object else { return nil }
    for (key, value) in object {
      if key == "global" {
        global = value["text"]?.string
      } else if let perWidget = value.object {
        for (widget, message) in perWidget {
          if let text = message["text"]?.string { widgets[key, default: [:]][widget] = text }
        }
      }
    }
  }

  public var isEmpty: Bool { global == nil && widgets.isEmpty }

  public func text(form: String, widget: String) -> String? { widgets[form]?[widget] }
}

public enum JourneyError: Error, Equatable, CustomStringConvertible {
  case malformedAnswer(String)
  case sessionExpired
  case unexpectedStatus(Int, String?)
  case cancelled
  case missingFields([String])
  case rejected(String)

  public var description: String {
    switch self {
    case .malformedAnswer(let detail): return "the tenant sent an answer this client cannot read: \(detail)"
    case .sessionExpired: return "the sign-in session expired"
    case .unexpectedStatus(let status, let detail):
      return "the tenant answered HTTP \(status)\(detail.map { ": \($0)" } ?? "")"
    case .cancelled: return "sign-in cancelled"
    case .missingFields(let ids):
      return
        "no terminal to ask for \(ids.joined(separator: ", ")); answer them with --field ID=VALUE or --field-env "
        + "ID=VARIABLE"
    case .rejected(let message):
      // It quotes the tenant's message: cut and made inert as every quotation is.
      return "the tenant rejected the sign-in: \(TenantWords.quoted(message) ?? "(no words)")"
    }
  }
}
