import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

/// `strivacity token` as both binaries read it: the small one's reading of argv takes the plain
/// forms only, and everything it takes means what the full command line's parser makes of it.
@Suite struct TokenInvocationTests {
  @Test func plainFormsAreRead() {
    #expect(TokenInvocation(plainArguments: []) == TokenInvocation())
    #expect(
      TokenInvocation(plainArguments: ["--profile", "work", "--format=header", "--min-ttl", "300", "--login"])
        == TokenInvocation(profile: "work", format: .header, minTTL: 300, login: true))
    #expect(TokenInvocation(plainArguments: ["--profile=a=b"])?.profile == "a=b")
    #expect(
      TokenInvocation(plainArguments: ["--min-ttl=\(Freshness.maxSeconds)"])?.minTTL == Freshness.maxSeconds)
    #expect(TokenInvocation(plainArguments: ["--api", "orders"]) == TokenInvocation(api: "orders"))
    #expect(
      TokenInvocation(plainArguments: ["--for=https://a.example/x"]) == TokenInvocation(forURL: "https://a.example/x"))
  }

  /// An ad hoc API: the same target, and so the same slot, whatever the order and repeats of its
  /// options; another target, another slot.
  @Test func adHocTargetsAreReadIntoOneSlot() throws {
    let one = try #require(
      TokenInvocation(plainArguments: [
        "--audience", "aud", "--scope", "b", "--resource=x:2", "--scope=a", "--resource", "x:1",
      ]))
    let other = try #require(
      TokenInvocation(plainArguments: [
        "--resource", "x:1", "--scope", "a", "--audience=aud", "--resource", "x:2", "--scope", "b", "--scope", "a",
      ]))
    #expect(one.adHoc == other.adHoc)
    #expect(one.adHoc?.resources == ["x:1", "x:2"] && one.adHoc?.scopes.map(\.value) == ["a", "b"])
    let slot = try #require(one.adHoc?.slot.name)
    #expect(slot.hasPrefix("adhoc.") && slot.count == 38)
    let fewer = try #require(
      TokenInvocation(plainArguments: ["--audience", "aud", "--resource", "x:1", "--resource", "x:2"]))
    #expect(fewer.adHoc?.slot != one.adHoc?.slot)
    // The digest is stable: it names what is already in people's keyrings.
    #expect(AdHocTarget.digest("") == "6c62272e07bb014262b821756295c58d")
  }

  /// Anything else is the full command line's: other options, repeats, missing or bad values.
  @Test(arguments: [
    ["--refresh"], ["--id-token"], ["--verbose"], ["-p", "work"], ["--profile"], ["--profile", "a", "--profile", "b"],
    ["--format", "yaml"], ["--min-ttl", "-1"], ["--min-ttl", "1e3"], ["--min-ttl", "\(Freshness.maxSeconds + 1)"],
    ["--login=yes"], ["extra"], ["--api", "a", "--for", "https://a.example/"], ["--api", "a", "--api", "b"], ["--api"],
    ["--api", "a", "--scope", "s"], ["--scope", "s"], ["--audience", "a", "--api", "b"],
    ["--resource", "x:y", "--for", "x:y"],
    ["--audience", "a", "--audience", "b"], ["--audience", "a b"], ["--resource", "nope"], ["--resource", "x:y#f"],
    ["--audience", "a", "--scope", "two words"],
  ])
  func everythingElseIsHandedOn(_ arguments: [String]) {
    #expect(TokenInvocation(plainArguments: arguments) == nil)
  }

  @Test func theMarginAndTheClusterRule() throws {
    var profile = Profile(name: "work")
    profile.minTTL = 900
    #expect(TokenInvocation().freshness(profile) == Freshness(seconds: 900, explicit: true))
    #expect(
      TokenInvocation(minTTL: 30, refresh: true).freshness(profile)
        == Freshness(seconds: 30, explicit: true, force: true))
    #expect(TokenInvocation().freshness(nil) == Freshness(seconds: TokenSet.defaultMinTTL, explicit: false))

    // Only the exec-credential format reads kubectl's info or asks the cluster rule.
    let environment = ["KUBERNETES_EXEC_INFO": "not json"]
    #expect(try TokenOutput(.raw, environment: environment) == .raw)
    #expect(throws: AdmissionError.self) { try TokenOutput(.execCredential, environment: environment) }
    #expect(try TokenOutput(.execCredential, environment: [:]) == .execCredential(ExecCredentialInfo()))
    let clusters = [try KubeServer(admitting: "https://k8s.example.com")]
    let elsewhere = ExecCredentialInfo(fromKubectl: true, server: "https://other.example.com")
    #expect(TokenOutput.json.clusterDecision(clusters, profile: "work") == .allow)
    #expect(TokenOutput.execCredential(elsewhere).clusterDecision(clusters, profile: "work") != .allow)
    // A sign-in is offered unless kubectl says nobody is there.
    #expect(TokenOutput.execCredential(elsewhere).offersSignIn && TokenOutput.raw.offersSignIn)
    #expect(!TokenOutput.execCredential(ExecCredentialInfo(interactive: false, fromKubectl: true)).offersSignIn)
  }

  /// Only google-executable reads Google's variables, answers a failure on stdout, stays silent
  /// on stderr and never signs in; the small binary reads its plain form.
  @Test func googleExecutableIsUnattendedWithFailuresInItsShape() throws {
    let saml = ["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": "urn:ietf:params:oauth:token-type:saml2"]
    #expect(try TokenOutput(.json, environment: saml) == .json)
    #expect(throws: AdmissionError.self) { try TokenOutput(.googleExecutable, environment: saml) }
    let idType = ["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": GoogleExecutableInfo.idToken]
    let google = try TokenOutput(.googleExecutable, environment: idType)
    #expect(google == .googleExecutable(GoogleExecutableInfo(tokenType: GoogleExecutableInfo.idToken)))
    #expect(google.format == .googleExecutable)
    #expect(TokenOutput.raw.failure(.signInRequired, message: "x") == nil)
    #expect(
      google.failure(.signInRequired, message: "run strivacity login --profile ci")
        == #"{"code":"sign_in_required","message":"run strivacity login --profile ci","success":false,"version":1}"#
        + "\n")
    // The shape is the format's: a context it could not admit fails in it too.
    #expect(TokenFormat.googleExecutable.failure(.usage, message: "x") != nil)
    #expect(!google.attended && !google.offersSignIn)
    #expect(TokenOutput.execCredential(ExecCredentialInfo()).attended && TokenOutput.raw.attended)
    #expect(
      TokenInvocation(plainArguments: ["--format", "google-executable", "--api", "gcp", "--profile", "ci"])
        == TokenInvocation(profile: "ci", format: .googleExecutable, api: "gcp"))
  }

  @Test func theShortfallIsSaidAlike() {
    let tokens = TokenSet(accessToken: "at", expiresAt: 1_100, obtainedAt: 1_000)
    let asked = Freshness(seconds: 300, explicit: true)
    #expect(
      asked.shortfallWarning(tokens, now: 1_000, profile: "work", prefix: "git credential: ")
        == "git credential: work: the access token has 100 s left, less than the 300 s asked (--min-ttl, min_ttl): "
        + "the tenant issues 100-s tokens")
    #expect(Freshness(seconds: 300, explicit: false).shortfallWarning(tokens, now: 1_000, profile: "work") == nil)
  }
}
