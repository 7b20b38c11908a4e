// Tenant-supplied validator patterns (`validator.regex`), matched in guaranteed linear time.
// A backtracking engine (Swift's Regex) takes exponential time on patterns like `(a|a)*b`, and
// the tenant is untrusted, so patterns are compiled here to a Thompson NFA and run as a Pike VM
// (a set of program counters stepped once per input scalar): time is O(text × program), memory
// O(program), whatever the pattern. Only a whole-match yes/no is needed, so there are no
// captures, and greedy and lazy quantifiers give the same answer.
//
// Supported subset (ECMAScript spelling, no flags), over Unicode scalars: literals; `.` (any
// scalar but a line terminator \n \r U+2028 U+2029); classes `[...]` `[^...]` with ranges and
// escapes; `\d \D \w \W \s \S` (ASCII digits and word characters, ECMAScript white space);
// `\t \n \r \f \v \uXXXX \xHH` and escaped ASCII punctuation; `^` first and `$` last (ignored:
// the match is whole anyway); `( )` and `(?: )`; `|`; `* + ? {n} {n,} {n,m}` and their lazy
// forms. Anything else (backreferences, lookaround, named groups, flags, `\b`, a `{` that is
// not a quantifier, a stray `]` or `}`, `[]`, `&&` in a class...) is not admitted: init is nil.

public struct SafeRegex: Sendable {
  /// Longest pattern admitted, in Unicode scalars.
  public static let maxPatternLength = 1_000
  /// Largest compiled program (counted repetitions are expanded) admitted, in instructions.
  public static let maxProgramSize = 20_000
  /// Largest number admitted in a counted repetition `{n,m}`.
  public static let maxRepetition = 1_000
  /// Deepest group nesting admitted.
  static let maxNesting = 200

  private let program: [Instruction]
  private let sets: [ScalarSet]

  /// nil when the pattern is outside the supported subset or over the size bounds.
  public init?(_ pattern: String) {
    var scalars: [Unicode.Scalar] = []
    for s in pattern.unicodeScalars {
      guard scalars.count < Self.maxPatternLength else { return nil }
      scalars.append(s)
    }
    var parser = Parser(scalars)
    guard let tree = parser.parseWhole() else { return nil }
    guard let size = tree.programSize(limit: Self.maxProgramSize), size < Self.maxProgramSize else { return nil }
    var compiler = Compiler()
    compiler.reserve(size + 1)
    compiler.emit(tree)
    compiler.append(.match)
    program = compiler.program
    sets = compiler.sets
  }

  /// True when the whole of `text` matches (like Regex.wholeMatch).
  public func wholeMatch(_ text: String) -> Bool {
    var current = ThreadList(capacity: program.count)
    var next = ThreadList(capacity: program.count)
    var stack: [Int] = []
    stack.reserveCapacity(program.count)
    addClosure(0, to: &current, stack: &stack)
    for scalar in text.unicodeScalars {
      if current.isEmpty { return false }
      next.clear()
      for pc in current.members {
        if case .consume(let set) = program[pc], sets[set].contains(scalar) {
          addClosure(pc + 1, to: &next, stack: &stack)
        }
      }
      swap(&current, &next)
    }
    return current.contains(program.count - 1)
  }

  /// Adds `start` and every instruction reachable from it without consuming input; only
  /// consuming instructions and the final match are kept as threads.
  private func addClosure(_ start: Int, to list: inout ThreadList, stack: inout [Int]) {
    stack.append(start)
    while let pc = stack.popLast() {
      guard list.mark(pc) else { continue }
      switch program[pc] {
      case .consume, .match: list.keep(pc)
      case .jump(let target): stack.append(target)
      case .split(let first, let second):
        stack.append(second)
        stack.append(first)
      }
    }
  }
}

// MARK: - the program

extension SafeRegex {
  enum Instruction: Sendable {
    /// Consume one scalar in `sets[index]`, go on to the next instruction.
    case consume(Int)
    case jump(Int)
    case split(Int, Int)
    case match
  }

  /// A sparse set of program counters: O(1) insert, membership and clear.
  struct ThreadList {
    private var seen: [UInt32]
    private var generation: UInt32 = 1
    private(set) var members: [Int] = []

    init(capacity: Int) {
      seen = Array(repeating: 0, count: capacity)
      members.reserveCapacity(capacity)
    }

    var isEmpty: Bool { members.isEmpty }

    /// Marks `pc` visited in this step; false when it already was.
    mutating func mark(_ pc: Int) -> Bool {
      if seen[pc] == generation { return false }
      seen[pc] = generation
      return true
    }

    mutating func keep(_ pc: Int) { members.append(pc) }

    func contains(_ pc: Int) -> Bool { members.contains(pc) }

    mutating func clear() {
      members.removeAll(keepingCapacity: true)
      if generation == UInt32.max {
        for i in seen.indices { seen[i] = 0 }
        generation = 1
      } else {
        generation += 1
      }
    }
  }

  struct Compiler {
    var program: [Instruction] = []
    var sets: [ScalarSet] = []
    private var setIndex: [ScalarSet: Int] = [:]

    mutating func reserve(_ n: Int) { program.reserveCapacity(n) }

    mutating func append(_ i: Instruction) { program.append(i) }

    mutating func emit(_ node: Node) {
      switch node {
      case .empty:
        break
      case .set(let set):
        let index: Int
        if let known = setIndex[set] {
          index = known
        } else {
          index = sets.count
          sets.append(set)
          setIndex[set] = index
        }
        append(.consume(index))
      case .concat(let parts):
        for part in parts { emit(part) }
      case .alternation(let branches):
        // split L1, next; L1: branch; jump end; next: split ... ; last branch; end:
        var jumps: [Int] = []
        for (n, branch) in branches.enumerated() {
          if n < branches.count - 1 {
            let split = program.count
            append(.split(split + 1, -1))
            emit(branch)
            jumps.append(program.count)
            append(.jump(-1))
            program[split] = .split(split + 1, program.count)
          } else {
            emit(branch)
          }
        }
        for j in jumps { program[j] = .jump(program.count) }
      case .repeated(let body, let min, let max):
        for _ in 0..<min { emit(body) }
        if let max {
          // (body (body (...)?)?)?: each optional copy may stop the rest.
          var exits: [Int] = []
          for _ in min..<max {
            exits.append(program.count)
            append(.split(program.count + 1, -1))
            emit(body)
          }
          for e in exits { program[e] = .split(e + 1, program.count) }
        } else {
          // L: split body, end; body; jump L; end:
          let loop = program.count
          append(.split(loop + 1, -1))
          emit(body)
          append(.jump(loop))
          program[loop] = .split(loop + 1, program.count)
        }
      }
    }
  }
}

// MARK: - the syntax tree

extension SafeRegex {
  indirect enum Node {
    case empty
    case set(ScalarSet)
    case concat([Node])
    case alternation([Node])
    /// `max` nil: unbounded.
    case repeated(Node, min: Int, max: Int?)

    /// Instructions `Compiler.emit` produces for this node; nil when over `limit`.
    func programSize(limit: Int) -> Int? {
      func add(_ a: Int, _ b: Int) -> Int? {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow || sum > limit ? nil : sum
      }
      func times(_ a: Int, _ n: Int) -> Int? {
        let (product, overflow) = a.multipliedReportingOverflow(by: n)
        return overflow || product > limit ? nil : product
      }
      switch self {
      case .empty: return 0
      case .set: return 1
      case .concat(let parts):
        var total = 0
        for part in parts {
          guard let size = part.programSize(limit: limit), let sum = add(total, size) else { return nil }
          total = sum
        }
        return total
      case .alternation(let branches):
        var total = 0
        for (n, branch) in branches.enumerated() {
          guard let size = branch.programSize(limit: limit), let sum = add(total, size) else { return nil }
          total = sum
          if n < branches.count - 1 {
            guard let sum = add(total, 2) else { return nil }
            total = sum
          }
        }
        return total
      case .repeated(let body, let min, let max):
        guard let size = body.programSize(limit: limit), let required = times(size, min) else { return nil }
        if let max {
          guard let optionalSize = add(size, 1), let optional = times(optionalSize, max - min) else { return nil }
          return add(required, optional)
        }
        guard let loop = add(size, 2) else { return nil }
        return add(required, loop)
      }
    }
  }

  /// Recursive descent over the pattern's scalars; every failure is a nil.
  struct Parser {
    let scalars: [Unicode.Scalar]
    var position = 0
    var depth = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { position >= scalars.count }
    var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    func peek(_ offset: Int) -> Unicode.Scalar? {
      let i = position + offset
      return i >= 0 && i < scalars.count ? scalars[i] : nil
    }

    mutating func parseWhole() -> Node? {
      var start = 0, end = scalars.count
      // `^` first and an unescaped `$` last are anchors a whole match implies.
      if scalars.first == "^" { start = 1 }
      if end > start, scalars[end - 1] == "$", !escapedAt(end - 1) { end -= 1 }
      var body = Parser(Array(scalars[start..<end]))
      guard let node = body.parseAlternation(), body.atEnd else { return nil }
      return node
    }

    /// Whether the scalar at `index` is escaped (preceded by an odd run of backslashes).
    /// Inside a class `$` is literal; a class cannot end the pattern unclosed, so no need to look.
    func escapedAt(_ index: Int) -> Bool {
      var count = 0
      var i = index - 1
      while i >= 0, scalars[i] == "\\" {
        count += 1
        i -= 1
      }
      return count % 2 == 1
    }

    mutating func parseAlternation() -> Node? {
      var branches: [Node] = []
      guard let first = parseConcat() else { return nil }
      branches.append(first)
      while peek == "|" {
        position += 1
        guard let next = parseConcat() else { return nil }
        branches.append(next)
      }
      return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    mutating func parseConcat() -> Node? {
      var parts: [Node] = []
      while let c = peek, c != "|", c != ")" {
        guard let atom = parseAtom(), let quantified = parseQuantifier(atom) else { return nil }
        if case .empty = quantified { continue }  // `()`, `(?:)*`: nothing to emit, however often
        parts.append(quantified)
      }
      switch parts.count {
      case 0: return .empty
      case 1: return parts[0]
      default: return .concat(parts)
      }
    }

    mutating func parseAtom() -> Node? {
      guard let c = peek else { return nil }
      position += 1
      switch c {
      case "(":
        if peek == "?" {
          guard peek(1) == ":" else { return nil }  // lookaround, named groups, flags
          position += 2
        }
        depth += 1
        guard depth <= SafeRegex.maxNesting, let inner = parseAlternation(), peek == ")" else { return nil }
        position += 1
        depth -= 1
        return inner
      case ".":
        return .set(.dot)
      case "[":
        return parseClass().map { .set($0) }
      case "\\":
        guard let escape = parseEscape() else { return nil }
        return .set(escape)
      case "*", "+", "?", "{", "}", "]", ")", "|", "^", "$":
        return nil  // nothing to repeat, stray brackets, anchors in the middle
      default:
        return .set(ScalarSet(c))
      }
    }

    mutating func parseQuantifier(_ atom: Node) -> Node? {
      guard let c = peek else { return atom }
      let min: Int, max: Int?
      switch c {
      case "*": (min, max) = (0, nil); position += 1
      case "+": (min, max) = (1, nil); position += 1
      case "?": (min, max) = (0, 1); position += 1
      case "{":
        position += 1
        guard let n = parseNumber() else { return nil }
        if peek == "}" {
          (min, max) = (n, n)
        } else {
          guard peek == "," else { return nil }
          position += 1
          if peek == "}" {
            (min, max) = (n, nil)
          } else {
            guard let m = parseNumber(), n <= m else { return nil }
            (min, max) = (n, m)
          }
          guard peek == "}" else { return nil }
        }
        position += 1
      default:
        return atom
      }
      if peek == "?" { position += 1 }  // lazy: the same answer for a whole match
      // Possessive or doubled quantifiers.
      if let next = peek, next == "*" || next == "+" || next == "?" || next == "{" { return nil }
      if case .empty = atom { return .empty }  // so every repeated body emits at least one instruction
      return .repeated(atom, min: min, max: max)
    }

    /// Decimal digits, at most `maxRepetition`.
    mutating func parseNumber() -> Int? {
      var value = 0
      var digits = 0
      while let c = peek, let d = SafeRegex.digitValue(c) {
        value = value * 10 + d
        digits += 1
        position += 1
        if value > SafeRegex.maxRepetition { return nil }
      }
      return digits > 0 ? value : nil
    }

    /// After the `\`.
    mutating func parseEscape() -> ScalarSet? {
      guard let c = peek else { return nil }
      position += 1
      switch c {
      case "d": return .digit
      case "D": return ScalarSet.digit.inverted
      case "w": return .word
      case "W": return ScalarSet.word.inverted
      case "s": return .space
      case "S": return ScalarSet.space.inverted
      default:
        return parseEscapedScalar(c).map { ScalarSet($0) }
      }
    }

    /// A single-scalar escape whose letter `c` has been consumed.
    mutating func parseEscapedScalar(_ c: Unicode.Scalar) -> Unicode.Scalar? {
      switch c {
      case "t": return "\t"
      case "n": return "\n"
      case "r": return "\r"
      case "f": return "\u{0C}"
      case "v": return "\u{0B}"
      case "x": return parseHex(2).flatMap(Unicode.Scalar.init)
      case "u":
        guard let unit = parseHex(4) else { return nil }
        if (0xD800...0xDBFF).contains(unit) {
          // A UTF-16 surrogate pair spelled as two escapes is one scalar.
          guard peek == "\\", peek(1) == "u" else { return nil }
          position += 2
          guard let low = parseHex(4), (0xDC00...0xDFFF).contains(low) else { return nil }
          return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(unit)
      default:
        // Escaped ASCII punctuation is itself (`\.`, `\\`, `\/`, `\-`, `\$`...). Letters, digits
        // (backreferences, `\b`, `\p`, `\k`...) and anything else are not admitted.
        guard c.isASCII, let v = UInt8(exactly: c.value), (0x21...0x7E).contains(v),
          !(c.properties.isAlphabetic || SafeRegex.digitValue(c) != nil),
          !["<", ">", "`", "'"].contains(c)  // word or buffer anchors in some dialects
        else { return nil }
        return c
      }
    }

    mutating func parseHex(_ count: Int) -> UInt32? {
      var value: UInt32 = 0
      for _ in 0..<count {
        guard let c = peek, let d = SafeRegex.hexValue(c) else { return nil }
        value = value << 4 | d
        position += 1
      }
      return value
    }

    /// After the `[`.
    mutating func parseClass() -> ScalarSet? {
      var negated = false
      if peek == "^" {
        negated = true
        position += 1
      }
      guard peek != "]" else { return nil }  // `[]` and `[^]` differ between dialects
      var ranges: [ClosedRange<UInt32>] = []
      while true {
        guard let c = peek else { return nil }  // unclosed
        if c == "]" {
          position += 1
          break
        }
        // `[` nests and `&&` intersects in some dialects; literal in others.
        if c == "[" || (c == "&" && peek(1) == "&") { return nil }
        guard let low = parseClassAtom() else { return nil }
        if peek == "-", let after = peek(1), after != "]" {
          position += 1
          guard case .scalar(let l) = low, let high = parseClassAtom(), case .scalar(let h) = high, l.value <= h.value
          else { return nil }
          ranges.append(l.value...h.value)
        } else {
          switch low {
          case .scalar(let s): ranges.append(s.value...s.value)
          case .set(let set): ranges.append(contentsOf: set.ranges)
          }
        }
      }
      let set = ScalarSet(ranges: ranges)
      return negated ? set.inverted : set
    }

    enum ClassAtom {
      case scalar(Unicode.Scalar)
      case set(ScalarSet)
    }

    mutating func parseClassAtom() -> ClassAtom? {
      guard let c = peek else { return nil }
      position += 1
      guard c == "\\" else { return .scalar(c) }
      guard let e = peek else { return nil }
      switch e {
      case "d", "D", "w", "W", "s", "S": return parseEscape().map { .set($0) }
      default:
        position += 1
        return parseEscapedScalar(e).map { .scalar($0) }
      }
    }
  }
}

// MARK: - sets of scalars

extension SafeRegex {
  /// Sorted, disjoint, non-adjacent ranges of scalar values.
  struct ScalarSet: Hashable, Sendable {
    let ranges: [ClosedRange<UInt32>]

    init(ranges: [ClosedRange<UInt32>]) {
      let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
      var merged: [ClosedRange<UInt32>] = []
      for r in sorted {
        if let last = merged.last, r.lowerBound <= last.upperBound || r.lowerBound - last.upperBound == 1 {
          merged[merged.count - 1] = last.lowerBound...Swift.max(last.upperBound, r.upperBound)
        } else {
          merged.append(r)
        }
      }
      self.ranges = merged
    }

    init(_ scalar: Unicode.Scalar) { ranges = [scalar.value...scalar.value] }

    static let maxScalar: UInt32 = 0x10FFFF

    var inverted: ScalarSet {
      var out: [ClosedRange<UInt32>] = []
      var next: UInt32 = 0
      for r in ranges {
        if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
        if r.upperBound >= Self.maxScalar { return ScalarSet(ranges: out) }
        next = r.upperBound + 1
      }
      out.append(next...Self.maxScalar)
      return ScalarSet(ranges: out)
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
      let v = scalar.value
      var low = 0, high = ranges.count
      while low < high {
        let mid = low + (high - low) / 2
        if ranges[mid].upperBound < v {
          low = mid + 1
        } else {
          high = mid
        }
      }
      return low < ranges.count && ranges[low].contains(v)
    }

    static let digit = ScalarSet(ranges: [0x30...0x39])
    static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// ECMAScript WhiteSpace and LineTerminator.
    static let space = ScalarSet(ranges: [
      0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
      0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ])
    /// Everything but the ECMAScript line terminators.
    static let dot = ScalarSet(ranges: [0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]).inverted
  }
}

extension SafeRegex {
  static func digitValue(_ c: Unicode.Scalar) -> Int? {
    (0x30...0x39).contains(c.value) ? Int(c.value - 0x30) : nil
  }

  static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
    switch c.value {
    case 0x30...0x39: return c.value - 0x30
    case 0x41...0x46: return c.value - 0x41 + 10
    case 0x61...0x66: return c.value - 0x61 + 10
    default: return nil
    }
  }
}
