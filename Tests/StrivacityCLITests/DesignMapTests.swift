// DESIGN.md's "Shape" lists every target of Package.swift by layer, bottom up; this keeps the
// two the same, and the order true: a target depends only on targets listed before it. Its
// "Where a change goes" names files and types: each must exist.
import Foundation
import StrivacityTestSupport
import Testing

@Suite struct DesignMapTests {
  /// Each target of Package.swift (test targets aside) with the targets it depends on.
  static func packageTargets() throws -> [String: Set<String>] {
    let text = try String(
      contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let kinds = [".systemLibrary(", ".target(", ".executableTarget(", ".testTarget("]
    // Cut the text at every target declaration: each piece is one declaration and its arguments.
    var starts: [(String.Index, String)] = []
    for kind in kinds {
      var from = text.startIndex
      while let found = text.range(of: kind, range: from..<text.endIndex) {
        starts.append((found.lowerBound, kind))
        from = found.upperBound
      }
    }
    starts.sort { $0.0 < $1.0 }
    var targets: [String: Set<String>] = [:]
    for (index, (start, kind)) in starts.enumerated() where kind != ".testTarget(" {
      let end = index + 1 < starts.count ? starts[index + 1].0 : text.endIndex
      let piece = text[start..<end]
      let names = piece.matches(of: /"([A-Za-z][A-Za-z0-9_-]*)"/).map { String($0.output.1) }
      guard let name = piece.firstMatch(of: /name: "([^"]+)"/).map({ String($0.output.1) }) else { continue }
      targets[name] = Set(names.dropFirst())
    }
    return targets
  }

  /// The targets DESIGN.md's map names, in its order: lines of its first code block that start
  /// with two spaces and a name.
  static func mappedTargets() throws -> [String] {
    let text = try String(
      contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("DESIGN.md"), encoding: .utf8)
    let shape = try #require(text.range(of: "## Shape"))
    let block = text[shape.upperBound...].split(separator: "```", omittingEmptySubsequences: false)[1]
    return block.split(separator: "\n").compactMap { line in
      line.firstMatch(of: /^  ([A-Za-z][A-Za-z0-9_-]*)\s/).map { String($0.output.1) }
    }
  }

  @Test func theDesignMapNamesEveryTarget() throws {
    let targets = try Self.packageTargets()
    let mapped = try Self.mappedTargets()
    #expect(targets.count > 10)
    #expect(Set(mapped) == Set(targets.keys), "DESIGN.md's Shape and Package.swift's targets differ")
    #expect(mapped.count == Set(mapped).count, "a target is named twice in DESIGN.md's Shape")
    for (position, name) in mapped.enumerated() {
      let later = Set(mapped[(position + 1)...])
      let uses = (targets[name] ?? []).intersection(later)
      #expect(uses.isEmpty, "\(name) depends on \(uses.sorted()), listed after it in DESIGN.md's Shape")
    }
  }
}

extension DesignMapTests {
  /// DESIGN.md's "Where a change goes" names files and types: each file must exist under
  /// Sources (or Tests, Scripts), and each type it names in backticks must be declared in Sources,
  /// with the member it names (`Type.member`, `Type(label:)`) declared too. The map cannot drift
  /// from the code unnoticed.
  @Test func whereAChangeGoesNamesWhatExists() throws {
    let root = TestEnvironment.repositoryRoot
    let text = try String(contentsOf: root.appendingPathComponent("DESIGN.md"), encoding: .utf8)
    let start = try #require(text.range(of: "## Where a change goes"))
    let rest = text[start.upperBound...]
    let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    // Every file of the tree that holds code, by path from the root.
    var files = ["Package.swift", "Makefile"]
    var sources = ""
    for top in ["Sources", "Tests", "Scripts"] {
      let base = root.appendingPathComponent(top)
      let walker = FileManager.default.enumerator(atPath: base.path)
      while let path = walker?.nextObject() as? String {
        files.append(top + "/" + path)
        if top == "Sources", path.hasSuffix(".swift") {
          sources += try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8) + "\n"
        }
      }
    }
    var checked = 0
    for match in section.matches(of: /([A-Za-z][A-Za-z0-9_-]*\/)*[A-Za-z][A-Za-z0-9_+-]*\.swift/) {
      let named = String(match.output.0)
      checked += 1
      let there = files.contains { $0 == named || $0.hasSuffix("/" + named) }
      #expect(there, "DESIGN.md names \(named), which is not there")
    }
    let declarations = /(struct|enum|class|protocol|typealias|actor|extension) ([A-Z][A-Za-z0-9_]*)/
    let declared = Set(sources.matches(of: declarations).map { String($0.output.2) })
    // Words in backticks that are not Swift: HTTP's header names (`Retry-After`, `Authorization`),
    // variables (`KUBERNETES_…`).
    let notSwift: Set<String> = ["Authorization"]
    let named = /`([A-Z][A-Za-z0-9_]*)(?![A-Za-z0-9_-])(?:\.([a-z][A-Za-z0-9_]*)|\(([a-z][A-Za-z0-9_]*):)?/
    for match in section.matches(of: named) {
      let type = String(match.output.1)
      guard type.contains(where: \.isLowercase), type.count > 2, !notSwift.contains(type) else { continue }
      checked += 1
      #expect(declared.contains(type), "DESIGN.md names the type \(type), which Sources do not declare")
      if let member = match.output.2.map(String.init) {
        let pattern = try Regex("(func|var|let|case) \(member)\\b")
        #expect(sources.contains(pattern), "DESIGN.md names \(type).\(member), which Sources do not declare")
      }
      if let label = match.output.3.map(String.init) {
        let initializer = try Regex("init[?!]?\\(\(label)[ :]")
        #expect(sources.contains(initializer), "DESIGN.md names \(type)(\(label):), which Sources do not declare")
      }
    }
    #expect(checked > 50, "the section was not read (\(checked) names)")
  }
}

extension DesignMapTests {
  /// Where DESIGN.md pairs a type with a file — "`Type` (Dir/File.swift" or "Dir/File.swift
  /// `Type`" — the type is declared (or extended) in that file: moving a type without the map
  /// fails here.
  @Test func theTypesDesignPlacesLiveInTheirFiles() throws {
    let root = TestEnvironment.repositoryRoot
    let text = try String(contentsOf: root.appendingPathComponent("DESIGN.md"), encoding: .utf8)
    var files: [String] = []
    let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources").path)
    while let path = walker?.nextObject() as? String {
      if path.hasSuffix(".swift") { files.append(path) }
    }
    let path = #"((?:[A-Za-z][A-Za-z0-9_-]*/)*[A-Za-z][A-Za-z0-9_+-]*\.swift)"#
    let typeThenFile = try Regex("`([A-Z][A-Za-z0-9_]*)` \\(" + path)
    let fileThenType = try Regex(path + ":? `([A-Z][A-Za-z0-9_]*)[`.(]")
    var pairs: [(type: String, file: String)] = []
    for match in text.matches(of: typeThenFile) {
      if let type = match.output[1].substring, let file = match.output[2].substring {
        pairs.append((String(type), String(file)))
      }
    }
    for match in text.matches(of: fileThenType) {
      if let file = match.output[1].substring, let type = match.output[2].substring {
        pairs.append((String(type), String(file)))
      }
    }
    #expect(pairs.count > 8, "the pairs were not read (\(pairs.count))")
    for (type, file) in pairs {
      let candidates = files.filter { $0 == file || $0.hasSuffix("/" + file) }
      #expect(!candidates.isEmpty, "DESIGN.md names \(file), which is not under Sources")
      let declaration = try Regex("(struct|enum|class|protocol|typealias|actor|extension) \(type)\\b")
      let declared = try candidates.contains { candidate in
        try String(contentsOf: root.appendingPathComponent("Sources/" + candidate), encoding: .utf8)
          .contains(declaration)
      }
      #expect(declared, "DESIGN.md places \(type) in \(file), which does not declare it")
    }
  }
}
