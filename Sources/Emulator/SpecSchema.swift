// Strivacity's own OpenAPI description of the Journey-flow API (Spec/native-journey-openapi.json,
// generated from the server) and a validator for the part of JSON Schema it uses, so that the
// emulator checks every body it is sent against the request schema of its form id, and every
// screen it serves against `Screen` (docs/emulator.md "Conformance to the API description").
//
// The description is generated from Java, which leaves three things to interpretation; each is
// read the way a Jackson-based server behaves:
// - `oneOf` lists (GenericWidget, GenericLayout) have no discriminator and alternatives without
//   required keys, so several always match. The `type` field is the discriminator: `input` →
//   InputWidget, `multiSelect` → MultiSelectWidget, `grid` → GridLayout. Widget types only the
//   SDKs know (`passcode`, passkey and WebAuthn widgets, `close`) are objects with a string `id`.
// - No property is `nullable`, yet servers send `null` for unset optional values (the SDK fixtures
//   are full of them). A `null` is accepted where the property is optional, never where required.
// - A bare `{"type": "object"}` inside a property (Java's `Object`, as in `attributes`) is any value.
import Foundation
import StrivacityCore

public struct JourneySpec: Sendable {
  public let document: JSONValue
  /// Request schemas by path template under /flow/api/v1/form/ (nil: the endpoint takes no body).
  let forms: [(template: [String], schema: JSONValue?)]

  /// The description shipped with the emulator.
  public static let bundled: JourneySpec = {
    guard
      let url = EmulatorResources.file("native-journey-openapi.json", in: "Spec"),
      let data = FileManager.default.contents(atPath: url.path), let spec = JourneySpec(data: Array(data))
    else { fatalError("the emulator's copy of the API description is missing or unreadable") }
    return spec
  }()

  /// Form ids the SDKs post that the description does not list (WebAuthn ceremonies, protocol §8.3).
  public static let sdkFormIDs: Set<String> = ["passkey", "passkeyEnroll", "mfaWebAuthnAssertion", "mfaEnrollWebAuthn"]
  /// Widget types the SDKs render that the description does not list (protocol §7.3).
  static let sdkWidgetTypes: Set<String> = [
    "passcode", "passkeyLogin", "passkeyEnroll", "webauthnLogin", "webauthnEnroll", "close",
  ]
  static let maxDepth = 64

  public init?(data: [UInt8]) {
    guard let document = JSONValue.parse(data), let paths = document["paths"]?.object else { return nil }
    self.document = document
    let prefix = "/flow/api/v1/form/"
    forms = paths.keys.sorted().compactMap { path in
      guard path.hasPrefix(prefix) else { return nil }
      let schema = paths[path]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]
      return (path.dropFirst(prefix.count).split(separator: "/").map(String.init), schema)
    }
  }

  /// Whether the description lists an endpoint for `formID` (`{id}` segments match any one segment).
  public func lists(formID: String) -> Bool { template(formID) != nil }

  private func template(_ formID: String) -> (template: [String], schema: JSONValue?)? {
    let parts = formID.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    return forms.first { entry in
      entry.template.count == parts.count
        && zip(entry.template, parts).allSatisfy { pattern, part in
          pattern.hasPrefix("{") ? !part.isEmpty : pattern == part
        }
    }
  }

  /// What is wrong with `body` as a submission of `formID`, one line per problem.
  public func problems(formID: String, body: JSONValue) -> [String] {
    guard body.object != nil else { return ["$: the body must be a JSON object, not \(body.typeName)"] }
    guard let entry = template(formID) else {
      return Self.sdkFormIDs.contains(formID) ? [] : ["the API has no form \"\(formID)\""]
    }
    guard let schema = entry.schema else { return [] }
    var problems: [String] = []
    validate(body, schema, "$", nested: false, depth: 0, &problems)
    return problems
  }

  /// What is wrong with `screen` as a `Screen` answer.
  public func problems(screen: JSONValue) -> [String] {
    var problems: [String] = []
    validate(screen, ["$ref": "#/components/schemas/Screen"], "$", nested: false, depth: 0, &problems)
    return problems
  }

  /// The name of a request schema, for messages (`PasswordAuthenticationRequest`).
  public func requestSchemaName(formID: String) -> String? {
    template(formID)?.schema?["$ref"]?.string.map { String($0.split(separator: "/").last ?? "") }
  }

  // MARK: the validator

  private func resolve(_ schema: JSONValue) -> JSONValue {
    guard let ref = schema["$ref"]?.string else { return schema }
    return document["components"]?["schemas"]?[String(ref.split(separator: "/").last ?? "")] ?? .object([:])
  }

  private func validate(
    _ value: JSONValue, _ raw: JSONValue, _ path: String, nested: Bool, depth: Int, _ problems: inout [String]
  ) {
    guard depth < Self.maxDepth else {
      problems.append("\(path): nested more than \(Self.maxDepth) levels deep")
      return
    }
    let schema = resolve(raw)
    // Java's `Object`: anything goes.
    if nested, schema.object?.keys.sorted() == ["type"], schema["type"]?.string == "object" { return }
    if let alternatives = schema["oneOf"]?.array {
      oneOf(value, alternatives, path, depth: depth, &problems)
      return
    }
    if let type = schema["type"]?.string, !Self.matches(value, type: type) {
      problems.append("\(path): expected \(Self.article(type)), got \(value.typeName)")
      return
    }
    if let allowed = schema["enum"]?.array, !allowed.contains(value) {
      problems.append("\(path): \(value.text) is not one of \(allowed.map(\.text).joined(separator: ", "))")
    }
    switch value {
    case .string(let text):
      let length = text.unicodeScalars.count
      if let min = schema["minLength"]?.int, length < min { problems.append("\(path): shorter than \(min) characters") }
      if let max = schema["maxLength"]?.int, length > max { problems.append("\(path): longer than \(max) characters") }
      if let pattern = schema["pattern"]?.string, let regex = try? Regex(pattern),
        (try? regex.firstMatch(in: text)) == nil
      {
        problems.append("\(path): does not match the pattern \(pattern)")
      }
    case .number(let number):
      if schema["format"]?.string == "int32", number < -2_147_483_648 || number > 2_147_483_647 {
        problems.append("\(path): outside the 32-bit integer range")
      }
    case .array(let items):
      if let itemSchema = schema["items"] {
        for (index, item) in items.enumerated() {
          validate(item, itemSchema, "\(path)[\(index)]", nested: true, depth: depth + 1, &problems)
        }
      }
    case .object(let object):
      let properties = schema["properties"]?.object ?? [:]
      let required = Set((schema["required"]?.array ?? []).compactMap(\.string))
      for key in required.sorted() where object[key] == nil || object[key]!.isNull {
        problems.append("\(path).\(key): required")
      }
      for (key, member) in object.sorted(by: { $0.key < $1.key }) {
        if member.isNull { continue }  // optional: as if absent; required: reported above
        if let propertySchema = properties[key] {
          validate(member, propertySchema, "\(path).\(key)", nested: true, depth: depth + 1, &problems)
        } else if let extra = schema["additionalProperties"] {
          if extra == .bool(false) {
            problems.append("\(path).\(key): not allowed")
          } else if extra.object != nil {
            validate(member, extra, "\(path).\(key)", nested: true, depth: depth + 1, &problems)
          }
        }
      }
    default: break
    }
  }

  /// A `oneOf` of widgets or layouts, discriminated by their `type` field.
  private func oneOf(
    _ value: JSONValue, _ alternatives: [JSONValue], _ path: String, depth: Int, _ problems: inout [String]
  ) {
    guard value.object != nil else {
      problems.append("\(path): expected an object, got \(value.typeName)")
      return
    }
    guard let type = value["type"]?.string else {
      problems.append("\(path).type: required (it says which kind this is)")
      return
    }
    var names: [String] = []
    for alternative in alternatives {
      guard let name = alternative["$ref"]?.string?.split(separator: "/").last.map(String.init) else { continue }
      names.append(name)
      if Self.discriminator(name) == type {
        validate(value, alternative, path, nested: false, depth: depth, &problems)
        if ["horizontal", "vertical", "grid"].contains(type), depth + 1 < Self.maxDepth {
          nestedLayouts(value, path, depth: depth, &problems)
        }
        return
      }
    }
    if names.contains("FormWidget"), Self.sdkWidgetTypes.contains(type) {
      if value["id"]?.string == nil { problems.append("\(path).id: required") }
      return
    }
    problems.append(
      "\(path).type: \"\(type)\" is none of \(names.compactMap(Self.discriminator).joined(separator: ", "))")
  }

  /// Vertical and grid layouts hold items as horizontal ones do (the description types only
  /// horizontal's); grids may hold them as `rows` or `columns` of cells.
  private func nestedLayouts(_ value: JSONValue, _ path: String, depth: Int, _ problems: inout [String]) {
    let layout: JSONValue = ["$ref": "#/components/schemas/GenericLayout"]
    for key in ["items", "rows", "columns"] where value["type"]?.string != "horizontal" || key != "items" {
      guard let groups = value[key]?.array else { continue }
      for (index, group) in groups.enumerated() {
        for (cellIndex, cell) in (group.array ?? [group]).enumerated() {
          let cellPath = group.array == nil ? "\(path).\(key)[\(index)]" : "\(path).\(key)[\(index)][\(cellIndex)]"
          validate(cell, layout, cellPath, nested: false, depth: depth + 1, &problems)
        }
      }
    }
  }

  static func discriminator(_ schemaName: String) -> String? {
    for suffix in ["Widget", "Layout"] where schemaName.hasSuffix(suffix) && schemaName != "Generic" + suffix {
      let stem = schemaName.dropLast(suffix.count)
      return stem.prefix(1).lowercased() + stem.dropFirst()
    }
    return nil
  }

  static func matches(_ value: JSONValue, type: String) -> Bool {
    switch (type, value) {
    case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("number", .number):
      return true
    case ("integer", .number(let n)): return n == n.rounded() && n.isFinite
    default: return false
    }
  }

  static func article(_ type: String) -> String {
    type == "array" || type == "object" || type == "integer" ? "an \(type)" : "a \(type)"
  }
}
