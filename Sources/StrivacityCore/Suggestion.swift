// "Did you mean …?": the name among those that exist that a mistyped one most likely meant, as
// git and gh suggest a command. Pure; the callers say it.

public enum Suggestion {
  /// The name of `names` nearest to `typed` by edit distance (insertions, deletions,
  /// substitutions, and transpositions of neighbours), when it is near enough to be a typing
  /// mistake: at most 2 edits, and at most a third of the longer name. nil when none is, or when
  /// two are equally near.
  public static func nearest(to typed: String, among names: [String]) -> String? {
    let typed = Array(typed.lowercased().unicodeScalars)
    guard !typed.isEmpty, typed.count <= 64 else { return nil }
    var best: (name: String, distance: Int)?
    var tied = false
    for name in names {
      let candidate = Array(name.lowercased().unicodeScalars)
      guard candidate.count <= 64 else { continue }
      let distance = editDistance(typed, candidate)
      let limit = min(2, max(typed.count, candidate.count) / 3)
      guard distance > 0, distance <= limit else { continue }
      if let current = best, distance == current.distance {
        tied = true
      } else if best == nil || distance < best!.distance {
        best = (name, distance)
        tied = false
      }
    }
    return tied ? nil : best?.name
  }

  /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a span).
  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], previous2[j - 2] + 1)
        }
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
  }
}
