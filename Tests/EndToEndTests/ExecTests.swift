// `strivacity exec` (issue 30): a command that re-reads its token file sees a valid token every
// second while tokens rotate under it; the file is gone when the command ends, and a file left
// by an exec killed with SIGKILL is removed by the next; signals and exit statuses as a shell
// passes them; kubectl (the real one) reads the file as a kubeconfig's tokenFile; bad input.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct ExecTests {
  /// A machine profile (no keyring needed) whose client's tokens live `ttl` seconds, and a
  /// private runtime directory. Its secret is in the environment, or with `secretInFile` in a
  /// 0600 file (`client_secret_file`): a kept-fresh file with a secret in the environment is
  /// always the full command line's (ExecInspectionTests), with one in a file the small binary
  /// runs COMMAND when the token is cached.
  func machine(ttl: Int = 300, secretInFile: Bool = false) throws -> (Harness, [String: String]) {
    let h = try Harness(journey: "machine") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = ttl }
    }
    var environment = [
      "XDG_RUNTIME_DIR": h.home.file("run"), "STRIVACITY_BIN": TestEnvironment.binary("strivacity"), "P": h.profile,
    ]
    if secretInFile {
      let path = try h.home.write("secret", MachineProfileTests.basicSecret, mode: 0o600)
      try h.writeMachineProfile(client: "ci-basic", "client_secret_file = \"\(path)\"")
    } else {
      try h.writeMachineProfile(client: "ci-basic")
      environment["STRIVACITY_CLIENT_SECRET"] = MachineProfileTests.basicSecret
    }
    try FileManager.default.createDirectory(atPath: h.home.file("run"), withIntermediateDirectories: true)
    chmod(h.home.file("run"), 0o700)
    return (h, h.environment.merging(environment) { _, new in new })
  }

  func sh(_ script: String, _ environment: [String: String], timeout: TimeInterval = 60) throws -> ProcessResult {
    try run(["/bin/sh", "-c", script], environment: environment, timeout: timeout)
  }

  /// A 4-s token and a 12-s command reading the file every second: every read is a valid token
  /// (its exp after the moment of reading), tokens rotate, and the file is gone afterwards. With
  /// the token cached (`warm`) the small binary runs the command and renews through the full
  /// command line's `token`; else the full command line runs it.
  @Test(arguments: [false, true]) func aCommandReadingTheFileSeesAValidTokenEverySecond(warm: Bool) throws {
    let (h, environment) = try machine(ttl: 4, secretInFile: warm)
    let result = try sh(
      (warm ? "\"$STRIVACITY_BIN\" token --profile \"$P\" >/dev/null\n" : "")
        + """
        exec "$STRIVACITY_BIN" exec --profile "$P" --file-env TOKEN_FILE -- sh -c '
          echo "file $TOKEN_FILE"; ls -l "$TOKEN_FILE" | cut -c1-10; echo "parent $(readlink /proc/$PPID/exe)"
          for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
            t=$(cat "$TOKEN_FILE"); echo "read $(date +%s) $t"; sleep 1
          done'
        """, environment)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let path = try #require(lines.first { $0.hasPrefix("file ") }?.dropFirst(5)).description
    #expect(lines.contains("-rw-------"), "\(lines)")
    #expect(path.hasPrefix(h.home.file("run/strivacity/exec/")))
    let parent = try #require(lines.first { $0.hasPrefix("parent ") })
    #expect(parent.hasSuffix(warm ? "/strivacity" : "/strivacity-cli"), "\(parent)")
    #expect(!FileManager.default.fileExists(atPath: path), "the token file outlives the command")
    var tokens: Set<String> = []
    var reads = 0
    for line in lines where line.hasPrefix("read ") {
      let parts = line.split(separator: " ")
      let now = try #require(Int64(parts[1]))
      let token = parts.count > 2 ? String(parts[2]) : ""
      let exp = MachineProfileTests.claims(token)["exp"]?.int.map(Int64.init)
      #expect(exp.map { $0 > now } == true, "an expired or empty token at \(now): \(line.prefix(40))")
      tokens.insert(token)
      reads += 1
    }
    #expect(reads == 12)
    #expect(tokens.count >= 4, "tokens did not rotate: \(tokens.count)")
    #expect(!result.stderr.contains(tokens.first ?? "-"))
  }

  /// The tenant gone mid-run: the file keeps the last token while it is valid (a line says the
  /// renewal failed), then is empty, never holding an expired one; with --fail-on-expiry the
  /// command is stopped then and exec exits with the renewal's status (4: the network).
  @Test(arguments: [false, true]) func aTenantThatGoesAwayLeavesNoStaleToken(failOnExpiry: Bool) throws {
    let (h, environment) = try machine(ttl: 4)
    // The tenant stops once the command runs (it says so with a file), however slow the start.
    let started = h.home.file("run/started")
    DispatchQueue.global().async {
      waitUntil(timeout: 30, every: 0.05) { FileManager.default.fileExists(atPath: started) }
      h.emulator.stop()
    }
    let result = try sh(
      """
      "$STRIVACITY_BIN" exec --profile "$P" --file-env F \(failOnExpiry ? "--fail-on-expiry" : "") -- sh -c '
        touch "$XDG_RUNTIME_DIR/started"
        for i in 1 2 3 4 5 6 7 8; do t=$(cat "$F"); echo "read $(date +%s) $t"; sleep 1; done; echo done'
      echo "status=$?"
      """, environment)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    var empty = 0
    for line in lines where line.hasPrefix("read ") {
      let parts = line.split(separator: " ")
      guard parts.count > 2, let now = Int64(parts[1]) else {
        empty += 1
        continue
      }
      let exp = MachineProfileTests.claims(String(parts[2]))["exp"]?.int.map(Int64.init)
      #expect(exp.map { $0 > now } == true, "a stale token at \(now): \(line.prefix(40))")
    }
    #expect(result.stderr.contains("could not renew the token"), "\(result.stderr)")
    #expect(result.stderr.contains("expired unrenewed"), "\(result.stderr)")
    if failOnExpiry {
      #expect(lines.contains("status=4") && !lines.contains("done"), "\(lines)")
    } else {
      #expect(lines.contains("status=0") && lines.contains("done"), "\(lines)")
      #expect(empty >= 2, "the file was never emptied: \(lines)")
    }
  }

  /// A signed-in profile (renewed with its refresh token) and one of its APIs (renewed with it
  /// too): the file rotates and every read is valid; the API's file holds the API's token.
  @Test(arguments: [nil, "orders"]) func aSignedInProfileAndAnAPIKeepTheirFilesFresh(api: String?) throws {
    let h = try Harness(journey: "password") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = 4 }
    }
    try h.writeProfile("\n" + APITokenTests.ordersAPI.replacingOccurrences(of: "PROFILE", with: h.profile))
    try h.signIn()
    let runtime = h.home.file("run")
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    chmod(runtime, 0o700)
    let environment = h.environment.merging([
      "XDG_RUNTIME_DIR": runtime, "STRIVACITY_BIN": TestEnvironment.binary("strivacity"), "P": h.profile,
      "API": api.map { "--api \($0)" } ?? "",
    ]) { _, new in new }
    let result = try sh(
      """
      "$STRIVACITY_BIN" exec --profile "$P" $API --file-env F -- sh -c '
        for i in 1 2 3 4 5 6 7; do echo "read $(date +%s) $(cat "$F")"; sleep 1; done'
      """, environment)
    #expect(result.status == 0, "\(result.stderr)")
    var tokens: Set<String> = []
    for line in result.stdout.split(separator: "\n") where line.hasPrefix("read ") {
      let parts = line.split(separator: " ")
      let now = try #require(Int64(parts[1]))
      let token = parts.count > 2 ? String(parts[2]) : ""
      // The sign-in's access tokens are opaque here (never empty, rotating); an API's are JWTs.
      #expect(!token.isEmpty, "an empty file at \(now)")
      let claims = MachineProfileTests.claims(token)
      if api != nil {
        #expect(claims["exp"]?.int.map { Int64($0) > now } == true, "at \(now): \(line.prefix(40))")
        #expect("\(claims["aud"] ?? .null)".contains("https://api.example.com/orders"), "\(claims)")
      }
      tokens.insert(token)
    }
    #expect(tokens.count >= 3, "tokens did not rotate: \(tokens.count)")
  }

  @Test func theTokenCanGoInAVariableAndNeverInArguments() throws {
    let (h, environment) = try machine()
    defer { withExtendedLifetime(h) {} }
    let result = try sh(
      #"""
      "$STRIVACITY_BIN" exec --profile "$P" --env API_TOKEN -- sh -c 'printf "%s\n" "$API_TOKEN"
        tr "\0" " " < /proc/$$/cmdline; echo; echo "default=${STRIVACITY_ACCESS_TOKEN:-none}"'
      "$STRIVACITY_BIN" exec --profile "$P" -- sh -c 'echo "default=${STRIVACITY_ACCESS_TOKEN:+set}"
        echo "secret=${STRIVACITY_CLIENT_SECRET:-none} $(readlink /proc/$PPID/exe)"'
      """#, environment)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let token = try #require(lines.first)
    #expect(MachineProfileTests.claims(token)["client_id"]?.string == "ci-basic")
    #expect(!lines[1].contains(token))
    #expect(lines.contains("default=none") && lines.contains("default=set"), "\(lines)")
    // The second ran in the small binary (the token cached by the first): the machine's secret,
    // which it keeps for renewals, is not the command's there either.
    #expect(lines.contains { $0.hasPrefix("secret=none ") && $0.hasSuffix("/strivacity") }, "\(lines)")
  }

  /// Signals a process sends go to the command; its status is exec's (128+N for signal N).
  @Test func signalsAndExitStatusesAreTheCommands() throws {
    let (h, environment) = try machine()
    defer { withExtendedLifetime(h) {} }
    let result = try sh(
      """
      "$STRIVACITY_BIN" exec --profile "$P" -- sh -c 'exit 7'; echo "exit=$?"
      "$STRIVACITY_BIN" exec --profile "$P" -- sh -c 'kill -KILL $$'; echo "killed=$?"
      for s in TERM INT HUP QUIT; do
        "$STRIVACITY_BIN" exec --profile "$P" --file-env F -- sh -c \
          "trap 'echo got-$s; exit 40' $s; echo \\$F > '$XDG_RUNTIME_DIR/path'; while :; do sleep 0.05; done" &
        pid=$!
        while [ ! -s "$XDG_RUNTIME_DIR/path" ]; do sleep 0.05; done
        sleep 0.2; kill -$s $pid; wait $pid; echo "$s=$?"
        [ -e "$(cat "$XDG_RUNTIME_DIR/path")" ] && echo "$s-file-left"; rm -f "$XDG_RUNTIME_DIR/path"
      done
      """, environment)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Set(result.stdout.split(separator: "\n").map(String.init))
    #expect(lines.isSuperset(of: ["exit=7", "killed=137"]), "\(lines)")
    for signal in ["TERM", "INT", "HUP", "QUIT"] {
      #expect(lines.contains("got-\(signal)") && lines.contains("\(signal)=40"), "\(signal): \(lines)")
      #expect(!lines.contains("\(signal)-file-left"))
    }
  }

  /// SIGKILL leaves the file (nothing can remove it then); the next exec removes it.
  @Test func aKilledExecsFileIsRemovedByTheNext() throws {
    let (h, environment) = try machine()
    defer { withExtendedLifetime(h) {} }
    let result = try sh(
      """
      "$STRIVACITY_BIN" exec --profile "$P" --file-env F -- sh -c 'echo "$$ $F" > "$XDG_RUNTIME_DIR/path.part"
        mv "$XDG_RUNTIME_DIR/path.part" "$XDG_RUNTIME_DIR/path"; exec sleep 30' &
      pid=$!
      while [ ! -s "$XDG_RUNTIME_DIR/path" ]; do sleep 0.05; done
      kill -KILL $pid; wait $pid 2>/dev/null
      read child stale < "$XDG_RUNTIME_DIR/path"
      kill -KILL "$child"
      [ -e "$stale" ] && echo "left-after-kill"
      "$STRIVACITY_BIN" exec --profile "$P" --file-env F -- true
      [ -e "$stale" ] && echo "still-there" || echo "removed"
      """, environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("left-after-kill") && result.stdout.contains("removed"), "\(result.stdout)")
  }

  /// kubectl (the real one) reads the file as a kubeconfig user's tokenFile, each run the token
  /// then current.
  @Test func kubectlReadsTheFileAsItsTokenFile() throws {
    let (h, environment) = try machine(ttl: 4)
    let cluster = try KubectlTests.Cluster(h, expected: nil)
    var env = cluster.environment.merging(environment) { old, _ in old }
    env["PATH"] = cluster.environment["PATH"]
    env["KUBECONFIG"] = cluster.kubeconfig
    let result = try sh(
      """
      "$STRIVACITY_BIN" exec --profile "$P" --file-env TOKEN_FILE -- sh -c '
        kubectl config set users.u.tokenFile "$TOKEN_FILE" >/dev/null
        kubectl config set-context x --cluster=c --user=u >/dev/null
        for i in 1 2 3 4 5 6; do kubectl --context x get --raw /version >/dev/null || echo failed; sleep 1; done'
      """, env, timeout: 120)
    #expect(result.status == 0 && !result.stdout.contains("failed"), "\(result.stdout) \(result.stderr)")
    let tokens = cluster.seen.filter { $0.hasSuffix(" /version") }.map { String($0.prefix { $0 != " " }) }
    #expect(tokens.count == 6 && !tokens.contains("-"), "\(cluster.seen)")
    #expect(Set(tokens).count >= 2, "kubectl saw one token in 6 s of 4-s tokens")
  }

  /// A runtime directory others could change (XDG_RUNTIME_DIR writable by group or by all, its
  /// strivacity a symbolic link to another directory, or strivacity mode 777): refused naming
  /// the directory at fault (exit 2), no token file anywhere, COMMAND not run, whichever binary
  /// runs it (the small one with the token cached).
  @Test(arguments: [false, true]) func aRuntimeDirectoryOthersCouldChangeIsRefused(warm: Bool) throws {
    let (h, environment) = try machine()
    if warm {
      let token = try run(
        [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: environment)
      #expect(token.status == 0, "\(token.stderr)")
    }
    let elsewhere = h.home.file("elsewhere")
    mkdir(elsewhere, 0o700)
    let marker = h.home.file("ran")
    // XDG_RUNTIME_DIR's mode, what its strivacity is, and the directory the refusal names.
    let cases: [(name: String, mode: mode_t, strivacity: String?, fault: String)] = [
      ("open", 0o777, nil, ""), ("group", 0o770, nil, ""),
      ("link", 0o700, "link", "/strivacity"), ("wide", 0o700, "777", "/strivacity"),
    ]
    for item in cases {
      let runtime = h.home.file("run-" + item.name)
      mkdir(runtime, 0o700)
      chmod(runtime, item.mode)
      if item.strivacity == "link" {
        symlink(elsewhere, runtime + "/strivacity")
      } else if item.strivacity == "777" {
        mkdir(runtime + "/strivacity", 0o700)
        chmod(runtime + "/strivacity", 0o777)
      }
      let result = try run(
        [
          TestEnvironment.binary("strivacity"), "exec", "--profile", h.profile, "--file-env", "F", "--",
          "/bin/sh", "-c", "touch '\(marker)'",
        ], environment: environment.merging(["XDG_RUNTIME_DIR": runtime]) { _, new in new })
      let fault = runtime + item.fault
      #expect(result.status == 2, "\(item.name): \(result.stderr)")
      #expect(result.stderr.contains("\(fault) cannot hold a token file: "), "\(item.name): \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(item.name): \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: marker), "\(item.name): COMMAND ran")
    }
    let tokenFiles = FileManager.default.enumerator(atPath: h.home.path)?.compactMap { $0 as? String }
      .filter { $0.hasSuffix(".token") }
    #expect(tokenFiles == [], "\(tokenFiles ?? [])")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: elsewhere)) == [], "made inside the link's target")
  }

  /// `machine()` without XDG_RUNTIME_DIR, and the small binary; `warm`: the token cached first,
  /// so the small binary runs COMMAND itself (else the full command line does).
  func withoutRuntimeDirectory(warm: Bool) throws -> (Harness, [String: String], String) {
    var (h, environment) = try machine(secretInFile: warm)
    environment["XDG_RUNTIME_DIR"] = nil
    let binary = TestEnvironment.binary("strivacity")
    if warm {
      let token = try run([binary, "token", "--profile", h.profile], environment: environment)
      #expect(token.status == 0, "\(token.stderr)")
    }
    return (h, environment, binary)
  }

  /// A CI runner or a container without XDG_RUNTIME_DIR: --file-env alone is refused naming
  /// --dir; with --dir (relative here: made absolute) the file is in that directory and gone
  /// afterwards, whichever binary runs COMMAND (the small one with the token cached).
  @Test(arguments: [false, true]) func withoutARuntimeDirectoryDirHoldsTheFile(warm: Bool) throws {
    let (h, environment, binary) = try withoutRuntimeDirectory(warm: warm)
    let refused = try run(
      [binary, "exec", "--profile", h.profile, "--file-env", "F", "--", "true"], environment: environment)
    #expect(refused.status == 2 && refused.stderr.contains("with --dir DIR"), "\(refused.stderr)")
    mkdir(h.home.file("ci-tokens"), 0o700)
    let result = try run(
      [
        binary, "exec", "--profile", h.profile, "--dir", "ci-tokens", "--file-env", "F", "--", "/bin/sh", "-c",
        "echo \"$F\"; readlink /proc/$PPID/exe; cat \"$F\"",
      ], environment: environment, currentDirectory: h.home.path)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3 && lines[0].hasPrefix(h.home.file("ci-tokens") + "/"), "\(lines)")
    #expect(lines.count == 3 && lines[1].hasSuffix(warm ? "/strivacity" : "/strivacity-cli"), "\(lines)")
    #expect(lines.count == 3 && lines[2].split(separator: ".").count == 3, "a JWT: \(lines)")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: h.home.file("ci-tokens"))) == [])
  }

  /// --dir's parents count too: through one that others may write (and not sticky), one another
  /// user owns, or another user's symbolic link, someone else could put a directory of theirs in
  /// DIR's place. (One's own link on the way is followed, and what it leads to checked.)
  /// Refused in one line, exit 2, COMMAND not run, whichever binary runs it (the small one with
  /// the token cached); a DIR under a sticky parent (as /tmp) and a plain good one still do.
  @Test(arguments: [false, true]) func aDirWhoseParentsOthersCouldChangeIsRefused(warm: Bool) throws {
    let (h, environment, binary) = try withoutRuntimeDirectory(warm: warm)
    let marker = h.home.file("ran")
    func exec(_ dir: String) throws -> ProcessResult {
      try run(
        [
          binary, "exec", "--profile", h.profile, "--dir", dir, "--file-env", "F", "--", "/bin/sh", "-c",
          "touch '\(marker)'",
        ], environment: environment)
    }
    func place(_ name: String, mode: mode_t, owner: uid_t? = nil) -> String {
      let parent = h.home.file(name)
      mkdir(parent, 0o700)
      mkdir(parent + "/tokens", 0o700)
      chmod(parent, mode)
      if let owner { chown(parent, owner, owner) }
      return parent
    }
    let open = place("open", mode: 0o777)
    let theirs = place("theirs", mode: 0o755, owner: 65534)
    let real = place("real", mode: 0o700)
    // Another user's link on the way is refused; one's own is followed (below).
    symlink(real, h.home.file("their-link"))
    lchown(h.home.file("their-link"), 65534, 65534)
    symlink(real, h.home.file("own-link"))
    for (dir, fault) in [
      (open + "/tokens", open + ": its mode is 777"), (theirs + "/tokens", theirs + ": it is owned by uid 65534"),
      (h.home.file("their-link") + "/tokens", h.home.file("their-link") + ": it is a symbolic link of uid 65534's"),
    ] {
      let result = try exec(dir)
      #expect(result.status == 2, "\(dir): \(result.stderr)")
      #expect(result.stderr.contains("--dir \(dir) cannot hold a token file: \(fault)"), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: marker), "\(dir): COMMAND ran")
      #expect((try? FileManager.default.contentsOfDirectory(atPath: dir)) == [], "\(dir): a file was made")
    }
    let sticky = place("sticky", mode: 0o1777)
    for dir in [sticky + "/tokens", real + "/tokens", h.home.file("own-link") + "/tokens"] {
      let result = try exec(dir)
      #expect(result.status == 0, "\(dir): \(result.stderr)")
      #expect(FileManager.default.fileExists(atPath: marker), "\(dir): COMMAND did not run")
      unlink(marker)
    }
  }

  @Test func badInput() throws {
    let (h, environment) = try machine()
    func exec(_ arguments: [String], _ more: [String: String] = [:]) throws -> ProcessResult {
      try run(
        [TestEnvironment.binary("strivacity"), "exec", "--profile", h.profile] + arguments,
        environment: environment.merging(more) { _, new in new })
    }
    let noDashes = try exec(["true"])
    #expect(noDashes.status == 2, "\(noDashes.stderr)")
    let nothing = try exec(["--"])
    #expect(nothing.status == 2 && nothing.stderr.contains("after --"), "\(nothing.stderr)")
    let missing = try exec(["--", "no-such-command-xyz"])
    #expect(missing.status == 127 && missing.stderr.contains("no-such-command-xyz: command not found"))
    let notRunnable = try exec(["--", h.home.path])
    #expect(notRunnable.status == 126, "\(notRunnable.stderr)")
    let badName = try exec(["--env", "1X", "--", "true"])
    #expect(badName.status == 2)
    let dirAlone = try exec(["--dir", h.home.path, "--", "true"])
    #expect(dirAlone.status == 2 && dirAlone.stderr.contains("--dir is for --file-env"), "\(dirAlone.stderr)")
    // No runtime directory, or one that cannot hold the file: an error, and nothing in /tmp.
    var without = environment
    without.removeValue(forKey: "XDG_RUNTIME_DIR")
    let unset = try run(
      [TestEnvironment.binary("strivacity"), "exec", "--profile", h.profile, "--file-env", "F", "--", "true"],
      environment: without)
    #expect(unset.status == 2 && unset.stderr.contains("XDG_RUNTIME_DIR"), "\(unset.stderr)")
    let notADirectory = try h.home.write("run-file", "")
    let unusable = try exec(["--file-env", "F", "--", "true"], ["XDG_RUNTIME_DIR": notADirectory])
    #expect(unusable.status == 2 && unusable.stderr.contains(notADirectory), "\(unusable.stderr)")
  }
}
