// DESIGN.md's "Shape" lists every target of Package.swift by layer, bottom up; this keeps the
// two the same, and the order true: a target depends only on targets listed before it.
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
