// The broker's keyring life cycle against each Secret Service the README names, gnome-keyring
// and KeePassXC, each on a private bus of its own (Scripts/with-keyring KEYRING_PROVIDER=…).
// KeePassXC answers CreateItem(replace) for an existing item with an access dialog, and with its
// default settings asks a person before every new process reads an item; its dialogs are drawn
// offscreen here, so nobody ever answers them: what is tested is that nothing waits on one in
// silence, or longer than its bound.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct KeyringProviderTests {
  /// The bound the tests hold each step to. The issue's 2 s is what a quiet machine shows (the
  /// closing note gives the times measured); a loaded CI machine gets room, and the failure these
  /// tests are about — a wait on a dialog, 25 s of silence, 120 s of hang — stays far outside it.
  static let quick: Double = 8

  /// Runs one command, and how long it took.
  static func timed(_ h: Harness, _ arguments: [String], environment more: [String: String] = [:]) throws -> (
    ProcessResult, Double
  ) {
    let started = Date()
    let result = try run(
      [TestEnvironment.binary("strivacity")] + arguments, environment: h.environment.merging(more) { _, new in new })
    return (result, Date().timeIntervalSince(started))
  }

  /// A profile signed in on a gnome-keyring of the harness's own (these tests lock it, kill its
  /// daemon, leave its dialogs open), with the token cache off: every call goes to the keyring.
  static func signedInOnAKeyringOfItsOwn() throws -> Harness {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring(.gnomeKeyring)
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    try h.signIn()
    return h
  }

  static func signIn(_ h: Harness) throws -> (ProcessResult, Double) {
    try timed(
      h,
      [
        "login", "--tenant", h.emulator.issuer, "--client-id", "strivacity-cli", "--profile", h.profile,
        "--field", "identifier=demo@example.com", "--field-env", "password=PW",
      ],
      environment: ["PW": "Demo-pass-1"])
  }

  /// Sign-in, token, refresh (a new set stored each time, in place), status, a second sign-in
  /// over the profile, sign-out: each in under 2 s, one item throughout.
  @Test(arguments: KeyringProvider.allCases)
  func theWholeLifeCycle(_ provider: KeyringProvider) throws {
    // Access tokens that live 0 s: every `token` refreshes and stores a new set.
    let h = try Harness(journey: "password") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = 0 }
    }
    try h.useOwnKeyring(provider)
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"  // every call reads the keyring

    let (login, loginTook) = try Self.signIn(h)
    #expect(login.status == 0 && loginTook < Self.quick, "login: \(login.stderr) (\(loginTook) s)")
    let first = try #require(try h.storedSecret()?["tokens"])

    let (token, tokenTook) = try Self.timed(h, ["token", "--profile", h.profile])
    #expect(token.status == 0 && tokenTook < Self.quick, "token (a refresh): \(token.stderr) (\(tokenTook) s)")
    let refreshed = try #require(try h.storedSecret()?["tokens"])
    #expect(refreshed["access_token"] != first["access_token"], "the refresh stored a new set")
    #expect(token.stdout == (refreshed["access_token"]?.string ?? "-") + "\n")
    #expect(refreshed["refresh_token"]?.string?.isEmpty == false, "the refresh token is kept")

    for round in 1...20 {
      let (again, took) = try Self.timed(h, ["token", "--profile", h.profile])
      #expect(again.status == 0 && took < Self.quick, "refresh \(round): \(again.stderr) (\(took) s)")
    }
    #expect(try h.keyringItemCount() == 1, "refreshes update the one item in place")
    #expect(try h.stats()["requests"]?["token"]?.int ?? 0 >= 22, "a sign-in and 21 refreshes")

    let (status, statusTook) = try Self.timed(h, ["status", "--profile", h.profile])
    #expect(
      status.status == 0 && statusTook < Self.quick && status.stdout.contains("signed in      yes"),
      "status: \(status.stdout) \(status.stderr)")

    let (relogin, reloginTook) = try Self.signIn(h)
    #expect(relogin.status == 0 && reloginTook < Self.quick, "second login: \(relogin.stderr) (\(reloginTook) s)")
    #expect(try h.keyringItemCount() == 1, "a second sign-in replaces the set in place")
    #expect(try h.storedSecret()?["tokens"]?["access_token"] != refreshed["access_token"])

    let (logout, logoutTook) = try Self.timed(h, ["logout", "--profile", h.profile])
    #expect(logout.status == 0 && logoutTook < Self.quick, "logout: \(logout.stderr) (\(logoutTook) s)")
    #expect(try h.keyringItemCount() == 0)
    let after = try h.strivacity(["token", "--profile", h.profile])
    #expect(after.status == 3, "\(after.stderr)")
    func ms(_ seconds: Double) -> String { "\(Int(seconds * 1000)) ms" }
    print(
      "keyring life cycle on \(provider.rawValue): login \(ms(loginTook)), token with refresh \(ms(tokenTook)), "
        + "status \(ms(statusTook)), second login \(ms(reloginTook)), logout \(ms(logoutTook))"
    )
  }

  /// A locked collection (KeePassXC's lock button, gnome-keyring's Lock) is said within a second
  /// or two as locked, exit 7, apart from "no token" (3) and "no keyring" (6); on a terminal the
  /// unlock is requested and what is waited for is said; unlocked again, nothing was lost.
  @Test(arguments: KeyringProvider.allCases)
  func aLockedCollectionIsSaidAtOnce(_ provider: KeyringProvider) throws {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring(provider)
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    try h.signIn()
    let before = try h.storedSecret()
    try h.lockKeyring()

    let name = provider == .keepassxc ? "the KeePassXC database 'strivacity-test'" : "the keyring 'Login'"
    // KeePassXC unlocks in its own window; gnome-keyring, with no desktop here for its dialog,
    // needs its password from the shell (aLockedKeyringWithoutADesktopNamesBothWaysOut).
    let message =
      provider == .keepassxc
      ? "strivacity: error: \(name) is locked: unlock it, or run with --store file (README: Keyrings)\n"
      : "strivacity: error: \(name) is locked, and no desktop is here to unlock it: run with --store file, or "
        + "unlock it with its password: \(StoreError.unlockRecipe) (README: Servers and containers)\n"
    for command in ["token", "status"] {
      let (result, took) = try Self.timed(h, [command, "--profile", h.profile])
      #expect(result.status == 7, "\(command): \(result.stderr)")
      #expect(took < Self.quick, "\(command) took \(took) s")
      #expect(result.stderr == message)
      #expect(result.stdout.isEmpty)
    }

    // On a terminal: the unlock is asked for, and said at once with its bound.
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile],
      environment: h.environment.merging(["STRIVACITY_KEYRING_PROMPT_TIMEOUT": "2"]) { _, new in new })
    switch provider {
    case .keepassxc:
      // Its unlock dialog is up (offscreen); nobody answers it.
      try tty.expect("\(name) is locked: unlock it in KeePassXC's window (waiting up to 2 s)", timeout: Self.quick)
      try tty.expect("nobody answered KeePassXC's request to unlock \(name) within 2 s", timeout: 5)
      #expect(try tty.wait() == 8)
    case .gnomeKeyring:
      // No desktop: gnome-keyring's prompter cannot start, and the prompt ends dismissed at once,
      // before it is worth a word; nobody declined anything.
      try tty.expect(
        "error: \(name) is locked, and no desktop is here to unlock it: run with --store file", timeout: Self.quick)
      #expect(try tty.wait() == 7)
    }

    try h.unlockKeyring()
    #expect(try h.storedSecret() == before, "nothing was lost")
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
  }

  /// KeePassXC with access confirmation on (its default): a new process reading the item gets a
  /// dialog. It is said within 2 s, on a terminal and off one, and the wait ends at its bound
  /// with exit 8; the stored set is untouched.
  @Test func keepassxcAccessDialogsAreSaidAndBounded() throws {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring(.keepassxc, confirmAccess: true)
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let (login, loginTook) = try Self.signIn(h)
    #expect(
      login.status == 0 && loginTook < Self.quick, "a new item is the creating process's to write: \(login.stderr)")

    let label = "\"strivacity: \(h.profile) (\(h.emulator.issuer))\""
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile],
      environment: h.environment.merging(["STRIVACITY_KEYRING_PROMPT_TIMEOUT": "3"]) { _, new in new })
    try tty.expect(
      "KeePassXC is asking you to allow access to \(label) — see its window (waiting up to 3 s)", timeout: Self.quick)
    try tty.expect("nobody answered KeePassXC's request to allow access to \(label) within 3 s", timeout: 5)
    #expect(try tty.wait() == 8)

    let (script, took) = try Self.timed(
      h, ["token", "--profile", h.profile], environment: ["STRIVACITY_KEYRING_PROMPT_TIMEOUT": "2"])
    #expect(script.status == 8, "\(script.stderr)")
    #expect(took < 2 + Self.quick, "the prompt's bound, not the operation's (\(took) s)")
    #expect(script.stdout.isEmpty)
    let lines = script.stderr.split(separator: "\n")
    #expect(lines.count == 2, "\(script.stderr)")
    #expect(
      lines.first?.hasPrefix("strivacity: KeePassXC is asking you to allow access to \(label)") == true,
      "said without a terminal too")
    #expect(lines.last?.hasPrefix("strivacity: error: nobody answered KeePassXC's request") == true)
    #expect(lines.last?.contains("STRIVACITY_KEYRING_PROMPT_TIMEOUT") == true)
  }

  /// gnome-keyring's unlock dialog on a desktop, and nobody answers it (the person is away):
  /// the desktop's prompter is a stand-in that shows the dialog and never answers. strivacity
  /// says what it waits for, stops at its bound with exit 8, and leaves the dialog alone: no
  /// Prompt.Dismiss, which gnome-keyring 42.1 answers by aborting (assertion `!self->current`),
  /// taking the user's whole keyring daemon down. So the prompter is never told to stop while
  /// the dialog is the person's; the daemon still serves after strivacity's exit, and after the
  /// person comes back and presses Cancel; unlocked, nothing was lost.
  @Test func anUnansweredUnlockDialogIsLeftToThePerson() throws {
    let h = try Self.signedInOnAKeyringOfItsOwn()
    let before = try h.storedSecret()
    let prompter = try h.startPrompterStandin("silent")
    let daemon = try h.ownKeyringDaemon()
    try h.lockKeyring()

    // DISPLAY: a desktop, as strivacity judges it (it never connects to it; the stand-in is its prompter).
    let started = Date()
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile],
      environment: h.environment.merging(["STRIVACITY_KEYRING_PROMPT_TIMEOUT": "2", "DISPLAY": ":99"]) { _, new in new }
    )
    try tty.expect(
      "the keyring 'Login' is locked: unlock it in the desktop's keyring dialog (waiting up to 2 s)",
      timeout: Self.quick)
    try tty.expect(
      "nobody answered gnome-keyring's request to unlock the keyring 'Login' within 2 s: answer it in the "
        + "desktop's keyring dialog",
      timeout: 5)
    #expect(try tty.wait() == 8)
    let took = Date().timeIntervalSince(started)
    #expect(took >= 2 && took < 2 + Self.quick, "strivacity returned at its bound (\(took) s)")
    #expect(prompter.events == ["ready", "begin", "perform password"], "the dialog was shown and never taken back")
    usleep(300_000)  // an abort would come at once
    #expect(h.keyringDaemonServes(daemon), "the keyring daemon survived strivacity's time-out")

    prompter.answerNo()
    try prompter.waitFor("answered no")
    try prompter.waitFor("stop")  // the daemon closes its own dialog
    #expect(h.keyringDaemonServes(daemon), "and the person's Cancel afterwards")

    try h.unlockKeyring()
    #expect(try h.storedSecret() == before, "nothing was lost")
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
    print(
      "unanswered gnome-keyring unlock dialog: exit 8 after \(Int(took * 1000)) ms (bound 2 s), daemon \(daemon) "
        + "still serving"
    )
  }

  /// The same with gnome-keyring's own prompter, gcr-prompter, on a display (Xvfb), as the
  /// issue saw it: past the bound strivacity exits 8, the "Unlock Login Keyring" dialog stays
  /// up and the daemon runs; the person then types the password into that dialog (xdotool,
  /// the password on its stdin), the keyring unlocks, and the next call works, nothing lost.
  @Test func theRealPrompterKeepsItsDialogAndTheDaemonLives() throws {
    for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/libexec/gcr-prompter"] {
      try #require(
        FileManager.default.isExecutableFile(atPath: tool),
        "\(tool) (Debian: xvfb, xdotool, gcr; make deps installs them)")
    }
    let h = try Self.signedInOnAKeyringOfItsOwn()
    let before = try h.storedSecret()

    // A display of its own (Xvfb picks a free number and writes it to stdout); stopped by PID.
    let xvfb = try PTYSession(
      ["/usr/bin/Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "800x600x24"],
      environment: ["PATH": "/usr/bin:/bin"])
    defer {
      kill(xvfb.pid, SIGTERM)
      _ = try? xvfb.wait(timeout: 5)
    }
    var number = ""
    let started = waitUntil(timeout: 10) {
      number = xvfb.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      return !number.isEmpty
    }
    try #require(started, "Xvfb did not start: \(xvfb.transcript)")
    let display = ":" + number
    // The bus starts gcr-prompter with its activation environment: the desktop's display.
    try h.busCall(
      "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.UpdateActivationEnvironment",
      ["{'DISPLAY': '\(display)'}"])
    defer {
      let prompter = h.busCall(
        quietly: "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
        ["org.gnome.keyring.SystemPrompter"])
      if let pid = pid_t(prompter.split(separator: " ").last?.filter(\.isNumber) ?? "") { kill(pid, SIGTERM) }
    }
    let daemon = try h.ownKeyringDaemon()
    try h.lockKeyring()

    let began = Date()
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile],
      environment: h.environment.merging(["STRIVACITY_KEYRING_PROMPT_TIMEOUT": "2", "DISPLAY": display]) { _, new in new
      })
    try tty.expect(
      "nobody answered gnome-keyring's request to unlock the keyring 'Login' within 2 s", timeout: Self.quick + 2)
    #expect(try tty.wait() == 8)
    let took = Date().timeIntervalSince(began)
    #expect(took < 2 + Self.quick, "\(took) s")
    usleep(300_000)
    #expect(h.keyringDaemonServes(daemon), "the keyring daemon survived strivacity's time-out")

    let x = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
    let windows = try run(
      ["/usr/bin/xdotool", "search", "--onlyvisible", "--name", "Unlock Login Keyring"], environment: x)
    let window = try #require(
      windows.stdout.split(separator: "\n").first.map(String.init), "the dialog is still up: \(windows.stderr)")
    for step in [["windowfocus", "--sync", window], ["type", "--delay", "20", "--file", "-"], ["key", "Return"]] {
      let typed = try run(
        ["/usr/bin/xdotool"] + step, environment: x, stdin: step[0] == "type" ? Harness.keyringPassword : nil)
      #expect(typed.status == 0, "xdotool \(step[0]): \(typed.stderr)")
    }
    try #require(
      waitUntil(timeout: 10, every: 0.05) { h.keyringSaysUnlocked() }, "the dialog did not unlock the keyring")
    #expect(h.keyringDaemonServes(daemon))
    let (token, tokenTook) = try Self.timed(h, ["token", "--profile", h.profile])
    #expect(token.status == 0 && tokenTook < Self.quick, "\(token.stderr)")
    #expect(try h.storedSecret() == before, "nothing was lost")
  }

  /// Escape at gnome-keyring's unlock dialog (the stand-in prompter answers Cancel at once):
  /// exit 7, saying the unlock was declined, not merely that the keyring is locked.
  @Test func aDeclinedUnlockIsSaidAsDeclined() throws {
    let h = try Self.signedInOnAKeyringOfItsOwn()
    let prompter = try h.startPrompterStandin("cancel")
    let daemon = try h.ownKeyringDaemon()
    try h.lockKeyring()

    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile],
      environment: h.environment.merging(["DISPLAY": ":99"]) { _, new in new })
    try tty.expect(
      "strivacity: error: the unlock of the keyring 'Login' was declined in the desktop's keyring dialog: run "
        + "again and unlock it, or run with --store file (README: Keyrings)",
      timeout: Self.quick)
    #expect(try tty.wait() == 7)
    #expect(
      prompter.events.prefix(3) == ["ready", "begin", "perform password"], "the dialog was shown: \(prompter.events)")
    #expect(h.keyringDaemonServes(daemon))
  }

  /// A locked gnome-keyring with no desktop and no terminal (SSH, a container, a script): exit 7
  /// at once, one line naming both ways out that README "Servers and containers" gives, the file
  /// store and the keyring's --unlock; the recipe, run as printed with the keyring's password in
  /// a shell of the same session, unlocks the keyring the session bus already has (--replace
  /// takes over from the running daemon), and the next call works with nothing lost.
  @Test func aLockedKeyringWithoutADesktopNamesBothWaysOut() throws {
    let h = try Self.signedInOnAKeyringOfItsOwn()
    let before = try h.storedSecret()
    let daemon = try h.ownKeyringDaemon()
    try h.lockKeyring()

    let (locked, took) = try Self.timed(h, ["token", "--profile", h.profile])
    #expect(locked.status == 7, "\(locked.stderr)")
    #expect(took < Self.quick, "\(took) s")
    let lines = locked.stderr.split(separator: "\n").map(String.init)
    #expect(lines.count == 1, "\(locked.stderr)")
    let line = lines.first ?? ""
    #expect(
      line.hasPrefix("strivacity: error: the keyring 'Login' is locked, and no desktop is here to unlock it"), "\(line)"
    )
    #expect(line.contains("--store file"))
    #expect(line.contains(StoreError.unlockRecipe))
    #expect(line.hasSuffix("(README: Servers and containers)"))
    let readme = try String(
      contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme.contains(StoreError.unlockRecipe), "the README quotes the same line")

    // The shell of that session: the daemon's runtime directory (its control socket) and data home.
    let environ = try String(contentsOfFile: "/proc/\(daemon)/environ", encoding: .utf8).split(separator: "\0")
    var session = h.environment
    for entry in environ where entry.hasPrefix("XDG_RUNTIME_DIR=") || entry.hasPrefix("XDG_DATA_HOME=") {
      let parts = entry.split(separator: "=", maxSplits: 1)
      session[String(parts[0])] = String(parts[1])
    }
    session["PASSWORD"] = Harness.keyringPassword
    let recipe = try run(["/bin/bash", "-c", StoreError.unlockRecipe], environment: session, timeout: 15)
    #expect(recipe.status == 0, "\(recipe.stderr)")
    // The new daemon is looked for from the second look on (a pause after the recipe first).
    var replacement: pid_t = daemon
    var looked = false
    let replaced = waitUntil(timeout: 10, every: 0.05) {
      if looked { replacement = (try? h.ownKeyringDaemon()) ?? daemon }
      looked = true
      return replacement != daemon && h.keyringDaemonServes(replacement) && h.keyringSaysUnlocked()
    }
    try #require(replaced, "the recipe did not unlock the keyring: \(recipe.stdout) \(recipe.stderr)")
    defer { kill(replacement, SIGTERM) }  // daemonized: nobody else stops it
    let (token, tokenTook) = try Self.timed(h, ["token", "--profile", h.profile])
    #expect(token.status == 0 && tokenTook < Self.quick, "\(token.stderr)")
    #expect(try h.storedSecret() == before, "nothing was lost")
  }

  /// Runs `command` on a private session bus of its own after `setUp` (shell) has started a
  /// Secret Service there and it owns org.freedesktop.secrets; `setUp` leaves the PIDs it
  /// started in $PIDS (a file), stopped by PID afterwards, and what it reports goes to stderr.
  static func onOwnBus(_ h: Harness, setUp: String, _ command: [String], environment more: [String: String], tty: Bool)
    throws -> (result: ProcessResult?, session: PTYSession?)
  {
    let script = """
      PIDS=$(mktemp)
      stop() { while read -r pid; do kill "$pid" 2>/dev/null; done <"$PIDS"; rm -f "$PIDS"; }
      trap stop EXIT
      \(setUp)
      for n in $(seq 200); do
        gdbus call --session --timeout 2 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
          --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true && break
        sleep 0.05
      done
      "$@"
      status=$?
      # Each started process: alive (running, sleeping or waiting on a disk: a loaded machine may
      # catch a daemon at work), or its state (Z, or gone).
      while read -r pid; do
        state=$(sed -n 's/^[0-9]* (.*) \\([A-Za-z]\\) .*/\\1/p' "/proc/$pid/stat" 2>/dev/null)
        case $state in
          R|S|D) echo "process $(cat /proc/$pid/comm 2>/dev/null) alive" >&2 ;;
          *) echo "process $(cat /proc/$pid/comm 2>/dev/null) state ${state:-gone}" >&2 ;;
        esac
      done <"$PIDS"
      exit $status
      """
    var environment = h.environment.merging(more) { _, new in new }
    environment["DBUS_SESSION_BUS_ADDRESS"] = nil
    let arguments = ["/usr/bin/dbus-run-session", "--", "/bin/bash", "-c", script, "own-bus"] + command
    if tty { return (nil, try PTYSession(arguments, environment: environment)) }
    return (try run(arguments, environment: environment, timeout: 30), nil)
  }

  /// KWallet before its first wallet: kwalletd5 with its Secret Service API on (kwalletrc
  /// [org.freedesktop.secrets] apiEnabled=true), headless (Qt offscreen) on a private bus, no
  /// wallet. `login` with no terminal: exit 6 at once with KWallet's advice, never seahorse's.
  /// On a terminal: strivacity asks the Secret Service for a default collection
  /// (CreateCollection, alias "default"); KWallet takes the request (it makes "kdewallet" its
  /// default wallet) and opens its new-wallet dialog, drawn offscreen, that nobody answers: said
  /// at once, exit 8 at the bound, the dialog left to KWallet, which still runs.
  @Test func kwalletWithoutAWalletIsAskedForOne() throws {
    try #require(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/kwalletd5"),
      "kwalletd5 (Debian: libkf5wallet-bin; make deps installs it)")
    let h = try Harness(journey: "password")
    let config = h.home.file("kwallet-config")
    _ = try h.home.write(
      "kwallet-config/kwalletrc", "[Wallet]\nFirst Use=false\n\n[org.freedesktop.secrets]\napiEnabled=true\n")
    let setUp = """
      XDG_CONFIG_HOME="$KWALLET_CONFIG" QT_QPA_PLATFORM=offscreen kwalletd5 >/dev/null 2>&1 &
      echo $! >>"$PIDS"
      """
    let login = Array(
      h.loginArguments(sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=PW"]))
    let environment = ["KWALLET_CONFIG": config, "PW": "Demo-pass-1"]

    let started = Date()
    let script = try #require(try Self.onOwnBus(h, setUp: setUp, login, environment: environment, tty: false).result)
    let took = Date().timeIntervalSince(started)
    #expect(script.status == 6, "\(script.stderr)")
    let message =
      script.stderr.split(separator: "\n").first { $0.hasPrefix("strivacity: error:") }.map(String.init) ?? ""
    #expect(
      message
        == "strivacity: error: KWallet has no wallet yet: run `strivacity login` on a terminal and create one when "
        + "KWallet asks, or run with --store file (README: Keyrings)",
      "\(script.stderr)")
    #expect(!script.stderr.contains("seahorse"))
    #expect(script.stderr.contains("process kwalletd5 alive"), "\(script.stderr)")
    #expect(took < Self.quick + 5, "\(took) s, kwalletd5's start included")

    let tty = try #require(
      try Self.onOwnBus(
        h, setUp: setUp, login,
        environment: environment.merging(["STRIVACITY_KEYRING_PROMPT_TIMEOUT": "2"]) { _, new in new }, tty: true
      )
      .session)
    try tty.expect(
      "strivacity: KWallet has no wallet yet: create one in KWallet's window (waiting up to 2 s)",
      timeout: Self.quick + 5)
    try tty.expect(
      "strivacity: error: nobody answered KWallet's request to create a wallet within 2 s: answer it in KWallet's "
        + "window, or allow longer with STRIVACITY_KEYRING_PROMPT_TIMEOUT",
      timeout: 5)
    try tty.expect("process kwalletd5 alive", timeout: 20)
    #expect(try tty.wait() == 8)
    let kwalletrc = try String(contentsOfFile: config + "/kwalletrc", encoding: .utf8)
    #expect(
      kwalletrc.contains("Default Wallet=kdewallet"), "KWallet took the request for its default wallet: \(kwalletrc)")
  }

  /// gnome-keyring with no default keyring (started without --unlock on a fresh account) on a
  /// desktop (the stand-in prompter, answering Cancel): `login` on a terminal asks for a new
  /// keyring, the desktop's dialog asks for its password, and the Cancel ends in exit 8
  /// ("asked to create a keyring and said no"), the daemon still running.
  @Test func gnomeKeyringWithoutAKeyringIsAskedForOne() throws {
    let h = try Harness(journey: "password")
    let log = h.home.file("prompter.log")
    let setUp = """
      gnome-keyring-daemon --daemonize --components=secrets >/dev/null 2>&1
      for n in $(seq 200); do
        pid=$(gdbus call --session --timeout 2 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
          --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null |
          tr -dc '0-9 ' | awk '{print $2}')
        [ -n "$pid" ] && break
        sleep 0.05
      done
      echo "$pid" >>"$PIDS"
      "$STANDIN" "$STANDIN_LOG" cancel &
      echo $! >>"$PIDS"
      for n in $(seq 100); do grep -q ready "$STANDIN_LOG" 2>/dev/null && break; sleep 0.05; done
      """
    let environment = [
      "DISPLAY": ":99",
      "STANDIN": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/prompter-standin").path,
      "STANDIN_LOG": log, "XDG_DATA_HOME": h.home.file("data"), "PW": "Demo-pass-1",
    ]
    let login = Array(
      h.loginArguments(sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=PW"]))
    let tty = try #require(try Self.onOwnBus(h, setUp: setUp, login, environment: environment, tty: true).session)
    try tty.expect(
      "strivacity: error: gnome-keyring was asked to create a keyring and said no: allow it when gnome-keyring "
        + "asks, or run with --store file (README: Keyrings)",
      timeout: Self.quick + 5)
    try tty.expect("process gnome-keyring-d alive", timeout: 20)
    #expect(try tty.wait() == 8)
    let events = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(
      events.hasPrefix("ready\nbegin\nperform password\n"),
      "the desktop asked for the new keyring's password: \(events)")
  }
}
