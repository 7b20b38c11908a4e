// The man pages, generated from the command definitions (ArgumentParser's dump-help model) and
// completed with hand-written sections. `Scripts/generate-docs` writes them to man/; a test
// fails when the committed pages differ from what the binary generates.
import ArgumentParser
import Broker
import StrivacityCLI
import StrivacityCore
import ToolHelpers

struct GenerateMan: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "man", abstract: "Print a man page (for packaging).")

  @Argument(help: "strivacity, a tool helper's link (--list names them) or strivacity-emulator.")
  var page = "strivacity"

  @Flag(help: "Print the names of the pages, one a line.")
  var list = false

  func run() throws {
    if list {
      Console.writeStdout(ManPage.pages.map { $0 + "\n" }.joined())
      return
    }
    switch page {
    case "strivacity": Console.writeStdout(ManPage.roff(try ManPage.strivacity()))
    case "strivacity-emulator": Console.writeStdout(ManPage.roff(ManPage.emulator()))
    default:
      guard let helper = ToolHelpers.all.first(where: { $0.names.link == page }) else {
        throw ValidationError("no man page \(page)")
      }
      Console.writeStdout(ManPage.roff(ManPage.helper(helper)))
    }
  }
}

enum ManPage {
  /// Every page: the command's, each tool helper's link's (ToolHelpers.all), the emulator's.
  static var pages: [String] { ["strivacity"] + ToolHelpers.all.compactMap { $0.names.link } + ["strivacity-emulator"] }

  /// The page of a helper's link (ToolHelpers.all), by its tool.
  static func helper(_ helper: any ToolHelper.Type) -> String {
    switch helper.names.tool {
    case "git": gitCredential()
    case "docker": dockerCredential()
    default: terraformCredential()
    }
  }

  /// Release date shown in the pages; set with the version.
  static let date = "November 22, 2026"

  static func strivacity() throws -> String {
    let model = try dumpHelp()
    var out = header(
      name: "STRIVACITY", title: "strivacity",
      description: "sign in to Strivacity from the terminal and hand out fresh tokens")
    out += """
      .Sh SYNOPSIS
      .Nm
      .Ar command
      .Op Ar common-options
      .Op Ar options
      .Nm
      .Op Fl -help | Fl -version
      .Sh DESCRIPTION
      .Nm
      signs a person in to a Strivacity tenant inside the terminal, running the tenant's
      sign-in journey screen by screen, and then brokers the tokens: fresh access tokens for
      shell scripts, curl and kubectl, a credential helper for git, and clean sign-out.
      Tokens are kept in the Secret Service keyring (or, when chosen, a 0600 file).
      .Pp
      Profiles live in the configuration file
      .Pq see Sx FILES ;
      flags given to
      .Cm login
      are saved to the profile, so later commands need none.
      .Nm
      alone lists the commands (exit 2);
      .Nm
      .Ar command
      .Fl -help
      describes one.
      .Sh COMMON OPTIONS
      Every command takes these (in
      .Cm curl ,
      before curl's own arguments and written in full):
      .Bl -tag -width 6n

      """
    let commands = (model["subcommands"]?.array ?? []).filter {
      $0["shouldDisplay"] != false && $0["commandName"]?.string != "help"
    }
    out += optionItems(commands.first?["arguments"]?.array ?? [], common: true) + ".El\n.Sh COMMANDS\n"
    for command in commands { out += commandSection(command) }
    out += configurationSection + promptsSection + machineSection + agentSection
    out += """
      .Sh EXIT STATUS
      .Bl -tag -width 6n
      .It 0
      success
      .It 1
      unexpected internal failure
      .It 2
      usage or configuration error
      .It 3
      sign-in required: run
      .Nm
      .Cm login
      .It 4
      network or transient server trouble; stored tokens are untouched
      .It 5
      server or protocol error
      .It 6
      credential store unavailable (no session bus or Secret Service, a stalled keyring, an unsafe token file)
      .It 7
      the keyring is locked (KeePassXC's database, gnome-keyring's login keyring), or its unlock was
      declined: unlock it, or use
      .Fl -store Ar file
      .It 8
      the keyring asked you (KeePassXC's access or delete confirmation, a new wallet or keyring at
      .Cm login )
      and the answer was no, or no answer to one of its dialogs came within
      .Ev STRIVACITY_KEYRING_PROMPT_TIMEOUT
      (the dialog is left open)
      .It 130
      interrupted
      .El
      .Sh ENVIRONMENT
      .Bl -tag -width 6n
      .It Ev STRIVACITY_PROFILE
      profile to use (default: default_profile from the configuration, else
      .Dq default )
      .It Ev STRIVACITY_TENANT , Ev STRIVACITY_CLIENT_ID
      tenant URL and OAuth client id, overriding the profile's
      .It Ev STRIVACITY_CONFIG
      path of the configuration file
      .It Ev STRIVACITY_TIMEOUT
      seconds each request to the tenant may take (default 30)
      .It Ev STRIVACITY_KEYRING_TIMEOUT
      seconds each keyring operation may take (default 5, 0.1 to 600; a dialog of the keyring's
      has its own bound): past it the command fails with exit 6, stored tokens untouched, and a
      terminal is told
      .Dq waiting for the keyring…
      after a second
      .It Ev STRIVACITY_KEYRING_PROMPT_TIMEOUT
      seconds a dialog of the keyring's (KeePassXC's
      .Dq allow access ,
      an unlock on a terminal, a new wallet at
      .Cm login )
      may wait for an answer (default 120 on a terminal, 15 for git's
      requests and without a terminal; 0.1 to 3600); it is announced on stderr within a moment, and
      past the bound the
      command fails with exit 8, leaving the dialog open
      .It Ev STRIVACITY_TOKEN_CACHE
      .Cm off :
      do not keep the current access token of Secret Service profiles in the kernel's per-user
      keyring (by default it is kept there, at most 15 minutes, so that
      .Cm token
      answers without D-Bus; never the refresh token)
      .It Ev CURL_CA_BUNDLE , Ev SSL_CERT_FILE , Ev SSL_CERT_DIR
      the CA bundle (or directory) certificates are checked against, in that order, when the
      profile and the config name no
      .Ic ca_bundle ;
      handed to the curl that
      .Cm curl
      runs too
      .It Ev https_proxy , Ev HTTPS_PROXY , Ev all_proxy , Ev ALL_PROXY
      the proxy requests go through, in that order, when the profile and the config name no
      .Ic proxy
      (upper-case
      .Ev HTTP_PROXY
      is not read, as curl does not); loopback is never proxied; handed to the curl that
      .Cm curl
      runs too
      .It Ev no_proxy , Ev NO_PROXY
      hosts reached directly: a host and its subdomains, an IPv4 range, or
      .Li *
      .It Ev STRIVACITY_PROXY_PASSWORD
      the password of
      .Ic proxy_user
      at the proxy, when the proxy's URL holds none (else the one
      .Cm setup proxy
      kept); never printed
      .It Ev STRIVACITY_CLIENT_SECRET
      a machine profile's client secret when its table names no
      .Ic client_secret_env
      or
      .Ic client_secret_file ;
      taken out of the environment as soon as
      .Nm
      starts, so no program it runs inherits it
      .It Ev STRIVACITY_AGENT
      .Li 1 :
      ask
      .Nm
      .Cm agent
      for tokens (as
      .Ic agent No = true
      in the configuration does);
      .Li 0 :
      do not, for this call
      .It Ev BROWSER
      browser for steps that need one (default:
      .Xr xdg-open 1 )
      .It Ev NO_COLOR
      disables colour (colour is only ever used on a terminal)
      .It Ev XDG_CONFIG_HOME , Ev XDG_STATE_HOME , Ev XDG_RUNTIME_DIR
      locate the files below
      .El
      .Sh FILES
      .Bl -tag -width 6n
      .It Pa $XDG_CONFIG_HOME/strivacity/config.toml
      profiles: tenant, client_id, scopes, redirect_uri, sdk_mode, store, git_hosts,
      git_username, hosts, kube_clusters, ca_bundle, proxy, proxy_user, proxy_auth,
      proxy_ca_bundle; their apis and sinks tables (default
      .Pa ~/.config/strivacity/config.toml ) ;
      never holds a secret
      .It Pa $XDG_STATE_HOME/strivacity/tokens/ Ns Ar profile Ns Pa .json
      token sets of profiles with store = "file", mode 0600 in a 0700 directory
      .It Pa $XDG_RUNTIME_DIR/strivacity/machine-tokens/ Ns Ar profile Ns Pa .token
      a machine profile's access tokens where the kernel refuses keyrings (a container's seccomp
      profile), mode 0600 in a 0700 directory (without a private
      .Ev XDG_RUNTIME_DIR :
      .Pa $XDG_STATE_HOME/strivacity/machine-tokens/ )
      .It Pa $XDG_RUNTIME_DIR/strivacity/ Ns Ar profile Ns Pa .lock
      one refresh at a time per profile (without
      .Ev XDG_RUNTIME_DIR :
      .Pa $XDG_STATE_HOME/strivacity/locks/ ,
      never a shared directory such as /tmp)
      .El
      .Sh EXAMPLES
      Sign in, then use the token:
      .Bd -literal -offset indent
      strivacity login --tenant https://example.strivacity.com --client-id 2fe0c3
      curl -H @<(strivacity token --format header) https://api.example.com/
      strivacity token --format curl | curl -K - https://api.example.com/
      eval "$(strivacity token --format env)"
      .Ed
      .Pp
      Let git use it for a host:
      .Bd -literal -offset indent
      strivacity setup git --host git.example.com
      git clone https://git.example.com/org/repo.git
      .Ed
      .Pp
      A kubeconfig user that runs
      .Nm
      (what
      .Cm setup kubectl
      writes, adding the context's API server to the profile's
      .Ic kube_clusters ) :
      .Bd -literal -offset indent
      users:
      - name: strivacity
        user:
          exec:
            apiVersion: client.authentication.k8s.io/v1
            command: /usr/bin/strivacity
            args: [token, --profile, work, --format, exec-credential, --login]
            interactiveMode: IfAvailable
            provideClusterInfo: true
      .Ed
      .Pp
      The credential is answered in the apiVersion kubectl asks for
      .Pq Ev KUBERNETES_EXEC_INFO :
      v1, or v1beta1 for older kubeconfigs. Without a usable token, the sign-in runs on kubectl's
      terminal when kubectl says the session is interactive; otherwise the call fails at once,
      naming
      .Ql strivacity login .
      kubectl names the cluster's API server in
      .Ev KUBERNETES_EXEC_INFO
      .Pq provideClusterInfo: true ;
      the token is answered only when it is one of the profile's
      .Ic kube_clusters ,
      and refused (exit 2) for any other, and for any server when the profile lists none. A
      kubeconfig user with provideClusterInfo false (written by an earlier
      .Cm setup kubectl )
      gets the token while
      .Ic kube_clusters
      is empty, and is refused once it is not: run
      .Ql strivacity setup kubectl --context NAME
      again. Run by hand, without
      .Ev KUBERNETES_EXEC_INFO ,
      the command answers as
      .Cm token
      does.
      .Pp
      Google Cloud's workload identity federation, with the token of the profile's API
      .Li gcp
      (whose audience the identity pool provider accepts): gcloud and Google's client libraries
      run the command the configuration names
      .Pq Cm token Fl -format No google-executable
      and exchange the token for Google's:
      .Bd -literal -offset indent
      strivacity setup gcloud --profile ci --api gcp --output gcp.json \\e
          --audience "$WORKLOAD_IDENTITY_PROVIDER"
      export GOOGLE_APPLICATION_CREDENTIALS=gcp.json
      export GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1
      gcloud storage ls
      .Ed
      .Pp
      Without a usable token the response is Google's error shape on standard output,
      .Li {"version":1,"success":false,"code":"sign_in_required","message":...} ,
      one line on standard error and the exit status; it never signs in.
      AWS's and Azure's SDKs read a web identity token file, which
      .Cm exec
      keeps fresh:
      .Bd -literal -offset indent
      AWS_ROLE_ARN=arn:aws:iam::123456789012:role/ci strivacity exec \\e
          --api aws --file-env AWS_WEB_IDENTITY_TOKEN_FILE -- aws s3 ls
      AZURE_CLIENT_ID=... AZURE_TENANT_ID=... strivacity exec \\e
          --api azure --file-env AZURE_FEDERATED_TOKEN_FILE -- ./deploy.py
      .Ed
      .Pp
      On a machine without a desktop (SSH, containers), keep tokens in a file, or start an
      unlocked gnome-keyring on a session bus first:
      .Bd -literal -offset indent
      strivacity login --store file --tenant https://example.strivacity.com --client-id 2fe0c3
      dbus-run-session -- bash
      printf '%s' "$PASSWORD" | gnome-keyring-daemon --daemonize --unlock --components=secrets
      .Ed
      .Pp
      Where a gnome-keyring already runs on the session bus with its login keyring locked (or
      without one), replace it with one that has it unlocked (or created):
      .Bd -literal -offset indent
      printf '%s' "$PASSWORD" | gnome-keyring-daemon --replace --daemonize --unlock --components=secrets
      .Ed
      .Pp
      Refreshes are due when the access token expires within 60 seconds, but never more
      than half its lifetime before expiry, so short-lived tokens are not refreshed on every
      call. An explicit
      .Fl -min-ttl
      (or a profile's
      .Ic min_ttl )
      is a promise, not capped: the token is refreshed whenever fewer seconds are left, and
      when even a fresh one lives less, it is printed and a warning says so.
      .Fl -refresh
      refreshes now, whatever the expiry. Many callers at once make one refresh.
      .Pp
      Smoke-test a tenant's journey from CI:
      .Bd -literal -offset indent
      SMOKE_PASSWORD=... strivacity login --field identifier=smoke@example.com \\e
          --field-env password=SMOKE_PASSWORD
      .Ed
      .Sh SECURITY
      Tokens and passwords never appear in command lines, logs,
      .Fl -verbose
      output, error messages or core files; prompts go to
      .Pa /dev/tty
      and only data to standard output.
      Tokens are only sent to the tenant's own host and the hosts a profile names, and handed
      to kubectl only for the API servers of its
      .Ic kube_clusters .
      ID tokens are checked before anything is stored: RS256 signature against the tenant's
      keys, issuer, audience, expiry and nonce.
      Plain http is refused except to loopback addresses, and TLS verification cannot be
      turned off.
      The browser redirect is received by a one-shot listener bound to 127.0.0.1 that answers
      only the expected path and state.
      The file store is used only when chosen and refuses files others can read.
      .Sh SEE ALSO
      \(ToolHelpers.all.compactMap { $0.names.link }.map { ".Xr \($0) 1 ," }.joined(separator: "\n"))
      .Xr curl 1 ,
      .Xr git-credential 1 ,
      .Xr secret-tool 1

      """
    return out
  }

  static func dockerCredential() -> String {
    header(
      name: "DOCKER-CREDENTIAL-STRIVACITY", title: "docker-credential-strivacity",
      description: "Docker credential helper for Strivacity tokens")
        + """
        .Sh SYNOPSIS
        .Nm
        .Cm get | store | erase | list
        .Sh DESCRIPTION
        .Nm
        is
        .Xr strivacity 1
        under another name: docker, podman and skopeo run it for a registry whose
        .Ql credHelpers
        entry is
        .Ql strivacity ,
        and it behaves as
        .Ql strivacity docker-credential .
        .Cm get
        reads the registry's address on stdin; for a registry under the url of one of a
        profile's APIs (the first such profile in the configuration file) it answers
        .Ql {"ServerURL","Username","Secret"}
        with a fresh token of that API and the API's username (default oauth2accesstoken).
        For any other registry it answers
        .Ql credentials not found in native keychain
        and exits 1, so the client goes on without credentials.
        It never signs in: without a usable token it fails, naming the
        .Ql strivacity login
        to run.
        .Cm store
        refuses (the tokens are strivacity's);
        .Cm erase
        expires the API's cached access token, so the next
        .Cm get
        refreshes it;
        .Cm list
        prints every API's address with its user name.
        Every failure is its message on stdout and exit status 1, as the protocol wants.
        Set a registry up with
        .Ql strivacity setup docker --registry HOST .
        .Sh SEE ALSO
        .Xr strivacity 1 ,
        .Xr docker-login 1

        """
  }

  static func terraformCredential() -> String {
    header(
      name: "TERRAFORM-CREDENTIALS-STRIVACITY", title: "terraform-credentials-strivacity",
      description: "Terraform and OpenTofu credentials helper for Strivacity tokens")
        + """
        .Sh SYNOPSIS
        .Nm
        .Cm get | store | forget
        .Ar host
        .Sh DESCRIPTION
        .Nm
        is
        .Xr strivacity 1
        under another name: Terraform and OpenTofu run it, from
        .Pa ~/.terraform.d/plugins ,
        when their CLI configuration has a
        .Ql credentials_helper \\(dqstrivacity\\(dq
        block, and it behaves as
        .Ql strivacity terraform-credential .
        .Cm get
        prints
        .Ql {"token":"…"}
        with a fresh token of the API whose url covers all of
        .Li https:// Ns Ar host Ns Li /
        (of the first such profile in the configuration file), and
        .Ql {}
        for any other host, exit 0, so Terraform goes on without credentials.
        It never signs in: without a usable token it fails (exit 3), naming the
        .Ql strivacity login
        to run.
        .Cm store
        reads what Terraform sends and refuses it (exit 2: the tokens are strivacity's, so
        .Ql terraform login
        is not needed);
        .Cm forget
        expires the API's cached access token, so the next
        .Cm get
        refreshes it.
        A host with user info, a path, or anything but a host name and port, and any other verb,
        are refused (exit 2).
        Every failure is one line on standard error and nothing on standard output, with the
        exit status of
        .Xr strivacity 1 .
        Set it up with
        .Ql strivacity setup terraform HOST .
        .Sh SEE ALSO
        .Xr strivacity 1 ,
        .Xr terraform 1 ,
        .Xr tofu 1

        """
  }

  /// The local tenant's page (its own binary has no page generator; DocsTests checks that every
  /// option its --help lists is here).
  static func emulator() -> String {
    header(
      name: "STRIVACITY-EMULATOR", title: "strivacity-emulator",
      description: "a local Strivacity tenant to try strivacity against")
        + """
        .Sh SYNOPSIS
        .Nm
        .Op Fl -journey Ar file-or-name
        .Op Fl -port Ar port
        .Op Ar options
        .Nm
        .Fl -list-journeys | Fl -check
        .Sh DESCRIPTION
        .Nm
        serves a Strivacity tenant on 127.0.0.1: the OpenID Connect and OAuth endpoints and the
        Journey-flow API for native clients, driven by a journey (a JSON file, or the name of a
        built-in one), so that
        .Xr strivacity 1
        can be tried, and journeys written, without a tenant of one's own.
        It prints the tenant's URL as the first line on standard output once it accepts
        connections, and on standard error what there is to try: users and passwords, every
        passcode a journey asks for, the clients (a confidential one's secret), the APIs and
        the tokens' lifetimes, ending with the
        .Ql strivacity login
        line to run.
        It serves until SIGINT or SIGTERM.
        Without a desktop (no D-Bus session bus), that
        .Ql strivacity login
        offers the file store; Enter takes it.
        .Sh OPTIONS
        .Bl -tag -width Ds
        .It Fl -journey Ar file-or-name
        A journey file, or a built-in journey's name (default password).
        .It Fl -port Ar port
        The port on 127.0.0.1 (0, the default, picks a free one).
        .It Fl -key Ar pem-file
        An RSA private key (PEM) to sign ID tokens with; by default a fresh one.
        .It Fl -hostile Ar kind Ns Op , Ns Ar kind ...
        Play a malicious tenant, answering with hostile content of these kinds.
        .It Fl -public-url Ar url
        The URL clients reach it at, behind a TLS front: its issuer and endpoints are named
        from it.
        .It Fl -tls-cert Ar pem-file
        Serve https with this certificate (with
        .Fl -tls-key ;
        needs
        .Xr socat 1 ) .
        .It Fl -tls-key Ar pem-file
        The certificate's private key.
        .It Fl -access-ttl Ar seconds
        Every access token lives this long (1 to 315360000), over each client's own.
        .It Fl -refresh-ttl Ar seconds
        Every refresh token lives this long, likewise.
        .It Fl -check
        Check the journey file, report its problems with their JSON paths, and exit.
        .It Fl -list-journeys
        List the built-in journeys and exit.
        .It Fl -version
        Show the version.
        .El
        .Sh EXIT STATUS
        0 stopped cleanly, or the journey is valid; 1 an invalid journey file; 2 a usage error;
        3 it cannot listen.
        .Sh EXAMPLES
        .Dl strivacity-emulator --journey machine --port 8400 --access-ttl 10
        .Dl strivacity login --profile emulator --tenant http://127.0.0.1:8400/ --client-id strivacity-cli
        .Sh SEE ALSO
        .Xr strivacity 1

        """
  }

  static func gitCredential() -> String {
    header(
      name: "GIT-CREDENTIAL-STRIVACITY", title: "git-credential-strivacity",
      description: "git credential helper for Strivacity tokens")
        + """
        .Sh SYNOPSIS
        .Nm
        .Cm get | store | erase
        .Sh DESCRIPTION
        .Nm
        is
        .Xr strivacity 1
        under another name: git runs it as the helper of
        .Ql credential.helper=strivacity ,
        and it behaves as
        .Ql strivacity credential .
        For a host (or URL prefix) listed in a profile's git_hosts,
        .Cm get
        answers a username (git_username, default oauth2) and a fresh access token as the
        password, or, when git offers capability[]=authtype, a Bearer credential.
        For other hosts it prints nothing, so git asks its next helper.
        .Cm store
        does nothing;
        .Cm erase
        of the current token makes the next
        .Cm get
        refresh it.
        Set a host up with
        .Ql strivacity setup git --host HOST .
        .Sh SEE ALSO
        .Xr strivacity 1 ,
        .Xr gitcredentials 7

        """
  }

  private static func header(name: String, title: String, description: String) -> String {
    """
    .\\" Generated by strivacity-docs; edit Sources/strivacity-docs/ManPage.swift instead.
    .Dd \(date)
    .Dt \(name) 1
    .Os strivacity \(strivacityVersion)
    .Sh NAME
    .Nm \(title)
    .Nd \(description)

    """
  }

  private static func dumpHelp() throws -> JSONValue {
    do {
      _ = try Strivacity.parseAsRoot(["--experimental-dump-help"])
    } catch {
      if let json = JSONValue.parse(Strivacity.fullMessage(for: error)), let command = json["command"] {
        return command
      }
    }
    throw CLIFailure("cannot read the command definitions", status: .failure)
  }

  /// Options every command shares (GlobalOptions): listed once, under COMMON OPTIONS.
  static let commonOptions: Set<String> = ["profile", "store", "config", "verbose"]

  private static func optionNames(_ argument: JSONValue) -> [String] {
    (argument["names"]?.array ?? []).compactMap { n -> String? in
      guard let text = n["name"]?.string else { return nil }
      return n["kind"]?.string == "short" ? "Fl \(text)" : "Fl -\(text)"
    }
  }

  private static func isCommon(_ argument: JSONValue) -> Bool {
    (argument["names"]?.array ?? []).contains {
      $0["kind"]?.string == "long" && commonOptions.contains($0["name"]?.string ?? "")
    }
  }

  /// `.It` entries for `arguments`: the common options only, or all but them.
  private static func optionItems(_ arguments: [JSONValue], common: Bool) -> String {
    var items = ""
    for argument in arguments where argument["shouldDisplay"] != false && isCommon(argument) == common {
      let names = optionNames(argument)
      if names.contains("Fl -help") || names.contains("Fl -version") { continue }
      let value = argument["valueName"]?.string.map { " Ar \($0)" } ?? ""
      items +=
        names.isEmpty
        ? ".It Ar \(argument["valueName"]?.string ?? "argument")\n"
        : ".It " + names.joined(separator: " , ") + (argument["kind"]?.string == "option" ? value : "") + "\n"
      items += escape(argument["abstract"]?.string ?? "") + "\n"
    }
    return items
  }

  /// A command's section; a group's (setup) has its own and then one per command in it
  /// (`setup git`), the hidden ones left out.
  private static func commandSection(_ command: JSONValue, group: String? = nil) -> String {
    let name = (group.map { $0 + " " } ?? "") + (command["commandName"]?.string ?? "")
    let arguments = command["arguments"]?.array ?? []
    let members = (command["subcommands"]?.array ?? []).filter {
      $0["shouldDisplay"] != false && $0["commandName"]?.string != "help"
    }
    // The synopsis names every option of the command; the common ones as one.
    var synopsis = ".Nm\n.Cm \(name)\n" + (members.isEmpty ? ".Op Ar common-options\n" : ".Ar tool\n")
    for argument in arguments where argument["shouldDisplay"] != false && !isCommon(argument) {
      let names = optionNames(argument)
      if names.contains("Fl -help") || names.contains("Fl -version") { continue }
      let valueName = argument["valueName"]?.string ?? "argument"
      let repeating = argument["isRepeating"] == true ? " ..." : ""
      if names.isEmpty {
        let optional = argument["isOptional"] == true
        synopsis += (optional ? ".Op Ar " : ".Ar ") + valueName + repeating + "\n"
      } else {
        let long = names.first { $0.hasPrefix("Fl -") } ?? names[0]
        synopsis += ".Op \(long)" + (argument["kind"]?.string == "option" ? " Ar \(valueName)" : "") + "\n"
      }
    }
    var out = ".Ss \(name)\n" + synopsis + ".Pp\n" + escape(command["abstract"]?.string ?? "") + "\n"
    if let discussion = command["discussion"]?.string, !discussion.isEmpty {
      // Prose only: indented example lines are left to EXAMPLES.
      let skipped: Set<String> = ["EXAMPLES:", "EXAMPLE:", "AUTOMATION:"]
      let lines: [String] = discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let prose: [String] = lines.filter { line in !line.hasPrefix("  ") && !skipped.contains(line) }
      let text: String = escape(prose.joined(separator: "\n")).replacing("\n\n", with: "\n.Pp\n")
      out += ".Pp\n" + text + "\n"
    }
    let items = optionItems(arguments, common: false)
    if !items.isEmpty { out += ".Bl -tag -width 6n\n" + items + ".El\n" }
    return out + members.map { commandSection($0, group: name) }.joined()
  }

  static let configurationSection = #"""
    .Sh CONFIGURATION
    The configuration file
    .Pq see Sx FILES
    is TOML: an optional top-level key and one table per profile.
    .Cm login
    writes the profile's settings; unknown keys are warned about and ignored.
    .Bl -tag -width 6n
    .It Ic agent No (boolean)
    ask
    .Nm
    .Cm agent
    for tokens when it runs
    .Pq see Sx THE AGENT ;
    default false
    .It Ic default_profile No (string)
    the profile used when neither
    .Fl -profile
    nor
    .Ev STRIVACITY_PROFILE
    names one; default
    .Dq default
    .It Ic [profiles. Ns Ar name Ns Ic ]
    a profile: letters, digits,
    .Sq \&. ,
    .Sq _
    and
    .Sq -
    (at most 64)
    .It Ic tenant No (string, required)
    the tenant's URL: https, or http on a loopback address
    .It Ic client_id No (string, required)
    the OAuth client id
    .It Ic scopes No (array of strings)
    scopes to request; default
    .Li [\(dqopenid\(dq, \(dqprofile\(dq, \(dqoffline_access\(dq]
    .It Ic redirect_uri No (string)
    the loopback redirect URI; default
    .Li http://127.0.0.1: Ns Ar port Ns Li /callback
    with a free port
    .It Ic sdk_mode No (string)
    the Journey API mode: web, web-minimal, ios, ios-minimal, android or android-minimal; default web
    .It Ic store No (string)
    secret-service (default) or file (a 0600 token file)
    .It Ic git_hosts No (array of strings)
    hosts, host:port or https:// URL prefixes git may get this profile's token for (no user
    info, query or fragment; a prefix covers whole path segments, compared after dot segments are
    resolved; a path with %2e, %2f, %5c or a backslash gets nothing); default none
    .It Ic git_username No (string)
    the username answered to git; default oauth2
    .It Ic hosts No (array of strings)
    further hosts
    .Cm curl
    may send the token to; default none
    .It Ic min_ttl No (integer)
    seconds every token handed out for the profile must have left (git, curl, kubectl,
    .Cm token
    without
    .Fl -min-ttl ) ;
    default: 60, at most half the token's lifetime
    .It Ic kube_clusters No (array of strings)
    the Kubernetes API servers kubectl gets the token for
    .Pq Li https://host[:port][/path] ,
    as the cluster's server in the kubeconfig; compared by scheme, host (any case), port (443 when
    none is written) and path (dot segments resolved, trailing slashes aside). No user info, query,
    fragment or encoded dot, slash or backslash; plain http only on a loopback address.
    .Cm setup kubectl
    adds its context's; default none
    .El
    .Pp
    An API of the profile is a table
    .Li [profiles. Ns Ar name Ns Li .apis. Ns Ar api Ns Li ]
    with
    .Ic url
    (string: the host or https:// URL prefix its URLs are under; required),
    .Ic audience
    (string),
    .Ic resource
    (array of absolute URIs, RFC 8707) and
    .Ic scopes
    (array of strings).
    Names starting with
    .Li adhoc. , machine. , proxy.
    or
    .Li secret.
    (in any case) are refused: those name spaces hold ad hoc targets' tokens and the secrets
    strivacity keeps, which no API is served.
    .Cm token Fl -api Ar api
    prints a token for it;
    .Cm curl ,
    git's
    .Cm get
    and
    .Cm token Fl -for Ar url
    choose the API by URL (the longest prefix).
    When the tenant refuses the API's audience, resources or scopes
    .Pq Li invalid_target , invalid_scope , invalid_grant ,
    a person at a terminal is asked to sign in again, the journey asks for them, and the token is
    asked for once more; without a terminal (stderr not one, or no
    .Pa /dev/tty ) ,
    on a no, or on a second refusal, the command exits 3 with one line naming the API, the
    parameter, the tenant's error and the
    .Cm login
    that asks for it
    .Pq Fl -add-scope , Fl -resource , Fl -audience .
    .Pp
    .Cm curl
    answers an API's
    .Li WWW-Authenticate
    challenge (RFC 6750, RFC 9470) once:
    .Li invalid_token
    gets a new token,
    .Li insufficient_scope
    the API's token with the scopes it names,
    .Li insufficient_user_authentication
    a sign-in on the terminal with its
    .Li acr_values
    and
    .Li max_age ;
    then the request is sent again and only the second answer is written. A
    .Li resource_metadata
    document (RFC 9728) is used only when it names the profile's issuer, and its
    .Li scopes_supported
    bound what a challenge may ask for; for an API whose table names neither audience nor
    resource, its resource names the API in the request for the new token. A body read from
    standard input, a
    .Fl D
    of curl's, several URLs or no terminal (for a sign-in) mean no second request: curl's answer
    stands and one line names the command that gets the right token. A malformed or oversized
    challenge is not answered.
    .Cm setup api Ar url
    writes an API's table from its metadata.

    """#

  static let machineSection = #"""
    .Sh MACHINE PROFILES
    A profile with
    .Ic grant No = Qq client_credentials
    gets its tokens with the client's own credentials (RFC 6749 \(sc4.4), for CI jobs and
    services: no person, no sign-in, no refresh token. The secret comes from the variable named by
    .Ic client_secret_env
    (default
    .Ev STRIVACITY_CLIENT_SECRET ) ,
    a file named by
    .Ic client_secret_file
    (owned by the user, mode 0600 or stricter, at most 4 KiB;
    .Li $CREDENTIALS_DIRECTORY/NAME
    for systemd's credentials), or the keyring, where
    .Cm login Fl -client-secret-stdin
    keeps it after one successful token request.
    .Ic token_endpoint_auth
    is
    .Li client_secret_basic ,
    .Li client_secret_post
    (default: the first of the two that the tenant's discovery lists) or
    .Li private_key_jwt
    with
    .Ic private_key_file
    (RSA or EC P-256, PEM; a 60-second assertion per request, RFC 7523), whose header names the key
    by its
    .Li kid :
    .Ic private_key_id
    when set, else the key's RFC 7638 thumbprint.
    .Cm status Fl -jwk
    (or
    .Fl -jwks )
    prints the public key as a JWK with that
    .Li kid ,
    to register at the tenant. Tokens, for the profile
    and each of its APIs, are kept in the kernel's per-user keyring (nothing on disk unless
    .Ic store No = Qq file ) ;
    many calls and many processes make one request per token lifetime. The tenant refusing the
    credentials
    .Pq Li invalid_client
    is exit 9, without a retry.
    .Cm status
    says how the profile authenticates, where its secret or key comes from and the key's
    .Li kid ,
    never the secret;
    .Cm logout
    forgets a stored secret;
    .Cm userinfo
    refuses: there is no user.

    """#

  static let agentSection = #"""
    .Sh THE AGENT
    .Nm
    .Cm agent
    is an opt-in process per login session that keeps the keyring open and the current tokens in
    memory. With
    .Ic agent No = true
    at the top of the configuration (or
    .Ev STRIVACITY_AGENT Ns =1 ) ,
    .Cm token ,
    git's
    .Cm get ,
    .Cm curl
    and
    .Cm userinfo
    ask it first: an answer from memory instead of a D-Bus connection per call, one keyring
    approval per session (KeePassXC asks once per client connection), one refresh per expiry.
    When it does not run or does not answer, every command does the work itself. Start it with
    .Ql systemctl --user enable --now strivacity-agent.socket ,
    or
    .Ql strivacity agent start
    where there is no systemd.
    Its socket is
    .Pa $XDG_RUNTIME_DIR/strivacity/agent.sock
    (directory 0700, socket 0600); it answers only processes of its own user. The keyring stays
    the store of record: the agent writes through to it, and every other
    .Nm
    that signs in, refreshes or signs out tells it, so a sign-out anywhere is honoured on the next
    call.
    .Pp
    The agent also keeps token files fresh, for programs that cannot ask for a token but can
    re-read a file (a systemd service, a kubeconfig's
    .Li tokenFile ,
    .Ev AWS_WEB_IDENTITY_TOKEN_FILE ) .
    Each is a table
    .Li [profiles. Ns Ar name Ns Li .sinks. Ns Ar sink Ns Li ]
    with
    .Ic path
    (string: an absolute path without
    .Li \&.
    or
    .Li \&..
    segments; required),
    .Ic api
    (string: one of the profile's APIs; default the profile's own token),
    .Ic format
    (string:
    .Qq raw ,
    the token alone without a line break;
    .Qq json ,
    access_token, token_type and expires_at;
    .Qq header ,
    an Authorization line) and
    .Ic mode
    (string:
    .Qq 0600 ,
    the default, or
    .Qq 0640 ;
    never readable by others).
    The file is replaced atomically (a temporary file in its directory, renamed) half-way through
    each token's life, for signed-in profiles (the refresh token), machine profiles and APIs alike.
    Its directory must be this user's or root's and writable by nobody else; a symlink or another
    user's file in its place is refused with a line on standard error, and that file is skipped
    while the others are kept. When a renewal fails the file keeps the token it holds until it
    expires (a line on standard error; retried, backing off), then it is emptied: it never holds
    an expired token. It is emptied too when the agent ends or the sink leaves the
    configuration, which the agent reads again when the file changes. An agent that keeps token
    files does not stop when idle.
    .Cm status
    and
    .Cm doctor
    show each file: when it was last written and whether it holds a token.

    """#

  static let promptsSection = #"""
    .Sh PROMPTS
    .Cm login
    asks only what each screen asks, on
    .Pa /dev/tty .
    Passwords are read with echo off; one-time passcodes are shown as typed.
    Yes/no questions read
    .Li [y/N]
    or
    .Li [Y/n]
    (Enter takes the capital); choices are numbers, several separated by commas; dates are
    written YYYY-MM-DD; a value in brackets is what Enter keeps.
    A line under a screen's title lists its other actions; any prompt takes
    .Li : Ns Ar N
    to take action
    .Ar N
    instead (an answer that starts with a colon is typed with two).
    Ctrl-C or Ctrl-D cancels the sign-in (exit 130), with the terminal restored and stored tokens
    untouched.

    """#

  /// The page as roff wants it: no empty lines (mdoc warns about them; .Pp separates paragraphs).
  static func roff(_ page: String) -> String {
    var lines = page.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
    // A paragraph break next to a section or list macro is redundant.
    lines = lines.enumerated().filter { index, line in
      guard line == ".Pp" else { return true }
      let next = index + 1 < lines.count ? lines[index + 1] : ""
      return !(next.hasPrefix(".Sh") || next.hasPrefix(".Ss") || next.hasPrefix(".Bl") || next == ".Pp")
    }.map(\.element)
    return lines.joined(separator: "\n") + "\n"
  }

  /// Text for roff: no line may start with a control character, backslashes escaped, and no
  /// line break inside a word with a hyphen (`setup-git`, `--min-ttl`): `\%` before it.
  private static func escape(_ text: String) -> String {
    text.replacing("\\", with: "\\e").split(separator: "\n", omittingEmptySubsequences: false).map { line in
      let words = line.drop { $0 == " " }.split(separator: " ", omittingEmptySubsequences: false).map { word in
        word.contains("-") ? "\\%" + word : word
      }
      let trimmed = words.joined(separator: " ")
      return (trimmed.hasPrefix(".") || trimmed.hasPrefix("'") ? "\\&" : "") + trimmed
    }.joined(separator: "\n")
  }
}
