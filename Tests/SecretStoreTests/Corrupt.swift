// A store's refusal of what it cannot read: `.corrupt`, without quoting what it read.
import StrivacityCore
import Testing

/// Expects `body` to fail with `StoreError.corrupt` whose description does not hold `secret`;
/// `accepted` says what it means when it does not fail.
func expectCorrupt(
  hiding secret: String, _ accepted: String, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record(Comment(rawValue: accepted), sourceLocation: sourceLocation)
  } catch let error as StoreError {
    guard case .corrupt = error else {
      Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
      return
    }
    #expect(!error.description.contains(secret), sourceLocation: sourceLocation)
  } catch {
    Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
  }
}
