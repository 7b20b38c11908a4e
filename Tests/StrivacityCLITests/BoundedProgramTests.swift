// doctor asks git and kubectl (runProgram with a bound): a program that hangs, floods its
// output or waits on stdin ends the question within the bound, and the report goes on.
import Foundation
import SystemIO
import Testing

@Suite struct BoundedProgramTests {
  func failure(_ arguments: [String], seconds: Int = 1, limit: Int = 1024) -> String? {
    do {
      _ = try runProgram(arguments, quiet: true, bound: (seconds: seconds, limit: limit))
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func aProgramThatHangsIsKilledAtTheBound() {
    let started = Date()
    #expect(failure(["sleep", "30"]) == "sleep did not answer in 1 s")
    #expect(Date().timeIntervalSince(started) < 10)
  }

  @Test func aFloodIsCutAtTheLimit() {
    #expect(failure(["head", "-c", "100000", "/dev/zero"]) == "head wrote more than 1 KiB")
  }

  @Test func stdinIsEmptyAndAnAnswerWithinTheBoundIsKept() throws {
    let started = Date()
    let cat = try runProgram(["cat"], quiet: true, bound: (seconds: 5, limit: 1024))
    #expect(cat.status == 0 && cat.output.isEmpty && Date().timeIntervalSince(started) < 5)
    let echo = try runProgram(["echo", "ok"], quiet: true, bound: (seconds: 5, limit: 1024))
    #expect(echo.status == 0 && echo.output == "ok\n")
  }
}
