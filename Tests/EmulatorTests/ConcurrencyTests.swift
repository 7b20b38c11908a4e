// The emulator under concurrent clients, and the executable's life cycle.
import CurlTransport
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@testable import Emulator

@Suite struct ConcurrencyTests {
  @Test func aSlowRequestDoesNotBlockOthers() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let fault: JSONValue = ["endpoint": "jwks", "kind": "delay", "delay": 3]
    _ = try CurlHTTPClient().send(
      HTTPRequest(method: "POST", url: emulator.issuer + "_emulator/faults", body: fault.serialized()))
    let slowDone = Mutex(false)
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      _ = try? CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + ".well-known/jwks.json"))
      slowDone.withLock { $0 = true }
      group.leave()
    }
    usleep(200_000)
    let started = Date()
    #expect(
      try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + ".well-known/openid-configuration")).status == 200)
    #expect(Date().timeIntervalSince(started) < 2)
    #expect(slowDone.withLock { !$0 }, "the slow request was still in flight")
    group.wait()
  }

  @Test func twoHundredConcurrentFlows() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let failures = Mutex<[String]>([])
    let started = Date()
    DispatchQueue.concurrentPerform(iterations: 200) { i in
      do {
        let driver = Driver(emulator, sdk: i.isMultiple(of: 2) ? "web" : "android-minimal")
        try driver.start()
        try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
        _ = try driver.exchange(try driver.finish("password", ["password": "Demo-pass-1"]))
      } catch {
        failures.withLock { $0.append("\(i): \(error)") }
      }
    }
    #expect(failures.withLock { $0 } == [])
    #expect(Date().timeIntervalSince(started) < 120, "bounded")
    let stats = JSONValue.parse(try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + "_emulator/stats")).body)
    #expect(stats?["grants"]?["authorization_code"]?.int == 200)
  }

  @Test func theExecutablePrintsItsURLAndStopsOnSIGTERM() throws {
    var fds: [Int32] = [0, 0]
    pipe(&fds)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let binary = TestEnvironment.binary("strivacity-emulator")
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(binary), strdup("--journey"), strdup("mfa"), nil]
    var pid: pid_t = 0
    #expect(posix_spawn(&pid, binary, &actions, &attributes, argv, environ) == 0)
    close(fds[1])
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(fds[0], &byte, 1) == 1, byte != 10 { line.append(byte) }
    let url = String(decoding: line, as: UTF8.self)
    #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/"))
    // It accepts connections as soon as the line is out.
    let discovery = try CurlHTTPClient().send(HTTPRequest(url: url + ".well-known/openid-configuration"))
    #expect(JSONValue.parse(discovery.body)?["issuer"]?.string == url)
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    #expect(status == 0, "clean exit on SIGTERM")
    close(fds[0])
    argv.forEach { free($0) }
  }
}
