// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "strivacity",
  products: [
    // The command: small, it answers the hot path itself and hands everything else to
    // strivacity-cli (Sources/Launcher).
    .executable(name: "strivacity", targets: ["strivacity"]),
    .executable(name: "strivacity-cli", targets: ["strivacity-cli"]),
    .executable(name: "strivacity-emulator", targets: ["strivacity-emulator"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // 4.x builds on FoundationEssentials: no full Foundation (ICU) in the CLI.
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
  ],
  targets: [
    // MARK: C edges
    // libcurl's headers only. The library itself is dlopen()ed by CCurlShim on first
    // network use, so keyring-only commands (`strivacity token` with a cached token)
    // do not pay for loading libcurl and its ~30 shared objects.
    .systemLibrary(
      name: "CCurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .yum(["libcurl-devel"])]),
    // Typed, non-variadic wrappers for curl_easy_setopt/getinfo, resolved through dlsym.
    .target(name: "CCurlShim", dependencies: ["CCurl"], linkerSettings: [.linkedLibrary("dl")]),
    // The libsecret and GLib calls the store makes, resolved through dlsym on first use (the
    // library is libsecret-1-0's; the build needs none of its headers).
    .target(name: "CSecretShim", linkerSettings: [.linkedLibrary("dl")]),
    // The commit and compiler of the build (Scripts/buildinfo), for --version --verbose.
    .target(name: "CBuildInfo"),

    // MARK: pure core (no I/O beyond what callers hand in)
    .target(name: "StrivacityCore"),
    // The config file: TOML, the profiles and their tables (APIs, sinks, machine, proxy, trust),
    // each table's parser beside its type, the settings a run resolves, `token`'s invocation.
    .target(name: "StrivacityConfig", dependencies: ["StrivacityCore"]),
    // The Journey-flow API as data: screens in, prompts and request bodies out (protocol §4–§9).
    .target(name: "JourneyCore", dependencies: ["StrivacityCore"]),
    // Every tool strivacity serves, a folder each (Git/, Cargo/, Docker/, Terraform/, AWS/,
    // Kubectl/, Google/): the names a helper answers to, its protocol as data (requests in,
    // answers and failures out, in one voice), its tool's config file edited as bytes, and
    // doctor's rows for it. The registry is ToolHelpers.all (ToolHelper.swift).
    .target(name: "ToolHelpers", dependencies: ["StrivacityCore", "StrivacityConfig"]),
    // OAuth/OIDC values: PKCE (RFC 7636), JWT signing and verification, JWKS.
    .target(
      name: "OAuthCore",
      dependencies: [
        "StrivacityCore",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]),

    // MARK: edges
    .target(name: "CurlTransport", dependencies: ["StrivacityCore", "StrivacityConfig", "CCurlShim"]),
    // add_key/keyctl by system call, for the access-token cache in the kernel's user keyring.
    .target(name: "CKeyctl"),
    // SO_PEERCRED, which Swift's Glibc module lacks.
    .target(name: "CPeerCred"),
    // `strivacity agent`'s wire format, its socket (both ends) and the client's requests: plain
    // POSIX, no Foundation, since the small binary is a client. The server's kernel side
    // (AgentServing) is here; its loop and answers are the broker's.
    .target(name: "Agent", dependencies: ["StrivacityCore", "StrivacityConfig", "SystemIO", "CPeerCred"]),
    // The access-token cache in the kernel's user keyring; where the kernel refuses keyrings, a
    // machine profile's tokens in private files (MachineTokenFiles).
    .target(name: "TokenCache", dependencies: ["StrivacityCore", "StrivacityConfig", "SystemIO", "CKeyctl"]),
    // Token sets in the Secret Service (libsecret's only user; what differs between its providers
    // is SecretServiceProvider's table) or in 0600 files, and apart from them the secrets kept for
    // a profile (SecretItemStore). What goes over the token stores, in which order: StoreStack.swift.
    .target(name: "SecretStore", dependencies: ["StrivacityCore", "CSecretShim", "SystemIO"]),
    // The environment, whole files, stdin, and writes to stdout, stderr and the terminal; every
    // kernel call of the broker and the command line (which import no Glibc): clocks, processes,
    // programs started, file status, locks, pipes, threads, signals.
    .target(name: "SystemIO", dependencies: ["StrivacityCore", "StrivacityConfig", "ToolHelpers"]),
    // Drawing screens as lines (pure) and talking to /dev/tty (hidden input, Ctrl-C, spinner).
    .target(name: "TerminalUI", dependencies: ["JourneyCore", "SystemIO"]),
    // Small HTTP/1.1 server on loopback sockets: the login redirect listener, the emulator, test servers.
    .target(name: "LoopbackHTTP", dependencies: ["StrivacityCore", "SystemIO"]),

    // MARK: the broker
    // Tokens at work after sign-in, without a terminal or an argument parser: the profile's store
    // stack, fresh tokens (one refresh however many ask), API tokens, machine tokens, the tenant
    // client, the agent's server and sinks. The sign-in itself is SignIn's, passed in.
    .target(
      name: "Broker",
      dependencies: [
        "StrivacityCore", "StrivacityConfig", "JourneyCore", "OAuthCore", "CurlTransport", "SecretStore", "SystemIO",
        "TokenCache",
        "Agent", "ToolHelpers",
      ]),

    // MARK: the sign-in
    // A person's sign-in as a library, without an argument parser: the journey on the terminal
    // or from given answers, the browser fallback and its loopback redirect listener (RFC 8252),
    // the tokens stored; `login`'s work (LoginRequest) and the sign-in again the broker is handed.
    .target(
      name: "SignIn",
      dependencies: [
        "Broker", "StrivacityCore", "StrivacityConfig", "JourneyCore", "OAuthCore", "TerminalUI", "LoopbackHTTP",
        "SecretStore", "SystemIO",
      ]),

    // MARK: command line
    // The small `strivacity`: the hot path from the access-token cache, else exec strivacity-cli.
    // It must stay small: no argument parser, no crypto, no libraries to load, and no JSON
    // decoding on the hot path but kubectl's KUBERNETES_EXEC_INFO (bench/token-cached measures it).
    .target(
      name: "Launcher",
      dependencies: [
        "StrivacityCore", "StrivacityConfig", "ToolHelpers", "TokenCache", "SystemIO", "Agent",
      ]),
    .executableTarget(name: "strivacity", dependencies: ["Launcher", "StrivacityCore", "SystemIO"]),
    .target(
      name: "StrivacityCLI",
      dependencies: [
        "Broker", "SignIn", "StrivacityCore", "StrivacityConfig", "JourneyCore", "OAuthCore", "TerminalUI",
        "CurlTransport", "SecretStore", "ToolHelpers", "SystemIO", "TokenCache", "Agent",
        "CBuildInfo",
        "CCurlShim", "CSecretShim",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .executableTarget(name: "strivacity-cli", dependencies: ["StrivacityCLI"]),
    // The man pages, printed from the command definitions for Scripts/generate-docs: a tool of
    // the build, not a product (nothing ships it).
    .executableTarget(
      name: "strivacity-docs",
      dependencies: [
        "StrivacityCLI", "Broker", "StrivacityCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),

    // MARK: the local tenant
    .target(
      name: "Emulator",
      dependencies: ["StrivacityCore", "JourneyCore", "OAuthCore", "LoopbackHTTP"],
      resources: [.copy("Journeys"), .copy("Spec")]),
    .executableTarget(
      name: "strivacity-emulator",
      dependencies: ["Emulator", "StrivacityCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

    // MARK: tests
    // Helpers shared by the test targets only: running the built binaries, temporary dirs.
    .target(
      name: "StrivacityTestSupport", path: "Tests/Support",
      exclude: ["browser-standin", "prompter-standin", "outside-as-browser"]),
    // The token-set admission is checked across every wire shape, the agent's answers among them.
    .testTarget(name: "StrivacityCoreTests", dependencies: ["StrivacityConfig", "StrivacityCore", "Agent"]),
    .testTarget(name: "AgentProtocolTests", dependencies: ["StrivacityConfig", "Agent", "StrivacityCore"]),
    .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
    .testTarget(
      name: "OAuthCoreTests",
      dependencies: [
        "StrivacityConfig",
        "OAuthCore", .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]),
    .testTarget(name: "ToolHelpersTests", dependencies: ["StrivacityConfig", "StrivacityCore", "ToolHelpers"]),
    // The broker in-process: a fake tenant, a store in memory, a clock that stands still.
    .testTarget(
      name: "BrokerTests",
      dependencies: ["StrivacityConfig", "Broker", "OAuthCore", "SecretStore", "StrivacityCore", "TokenCache"]),
    .testTarget(name: "JourneyCoreTests", dependencies: ["JourneyCore"]),
    .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "JourneyCore"], resources: [.copy("Golden")]),
    .testTarget(
      name: "EmulatorTests",
      dependencies: [
        "Emulator", "OAuthCore", "CurlTransport", "StrivacityTestSupport",
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]),
    .testTarget(name: "CurlTransportTests", dependencies: ["CurlTransport", "LoopbackHTTP", "StrivacityTestSupport"]),
    .testTarget(name: "SecretStoreTests", dependencies: ["SecretStore", "TokenCache", "StrivacityTestSupport"]),
    .testTarget(
      name: "StrivacityCLITests", dependencies: ["StrivacityCore", "SystemIO", "StrivacityTestSupport"],
      exclude: ["Golden"]),
    // Every input the fuzzers keep (Tests/Fuzz/TARGET/, seeds and crashes) replayed in-process.
    .testTarget(
      name: "FuzzRegressionTests",
      dependencies: [
        "StrivacityConfig", "ToolHelpers", "StrivacityCore", "JourneyCore", "TerminalUI", "LoopbackHTTP", "Agent",
        "StrivacityTestSupport",
      ]),
    // The built binary driven through a pseudo-terminal against the emulator and the real keyring.
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "StrivacityConfig",
        "Emulator", "OAuthCore", "CurlTransport", "LoopbackHTTP", "StrivacityCore", "SecretStore", "TokenCache",
        "StrivacityTestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
