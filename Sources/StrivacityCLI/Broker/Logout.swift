// `strivacity logout` and `strivacity revoke`: end sessions and revoke tokens at the tenant
// (RFC 7009, OIDC RP-initiated logout), and delete them locally whatever the tenant says.
import ArgumentParser
import Broker
import OAuthCore
import StrivacityCore

struct Logout: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke the tokens, end the session at the tenant, and delete them locally.",
    discussion: """
      Revokes the refresh and access tokens (RFC 7009), the access tokens of the profile's \
      APIs among them, when the tenant advertises a revocation endpoint, ends the session at \
      its end_session_endpoint with the ID token as hint, then deletes the stored tokens. \
      With --local only the last step happens. If the tenant cannot be reached, the tokens \
      are still deleted here, strivacity says what was not revoked, and exits 4.
      """)

  @OptionGroup var global: GlobalOptions

  @Flag(help: "Sign out of every profile.")
  var all = false

  @Flag(help: "Only delete the tokens stored here; contact no server.")
  var local = false

  func validate() throws {
    if all && global.profile != nil { throw ValidationError("use either --profile or --all") }
  }

  func run() throws {
    try signOut(global: global, all: all, local: local, endSession: true)
  }
}

struct Revoke: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke the tokens at the tenant and delete them, keeping the profile's settings.",
    discussion: """
      Revokes the refresh token, the access token and the access token of each of the \
      profile's APIs (configured or ad hoc) at the tenant's revocation endpoint (RFC 7009), then \
      deletes them all here (a running agent forgets them too). The session at the tenant is \
      not ended (logout does that). If the tenant cannot be reached, the tokens are still \
      deleted here, strivacity says what was not revoked, and exits 4.
      """)

  @OptionGroup var global: GlobalOptions

  func run() throws {
    try signOut(global: global, all: false, local: false, endSession: false)
  }
}

/// Revokes (unless `local`), ends the session (if `endSession`), deletes; for one or all profiles.
private func signOut(global: GlobalOptions, all: Bool, local: Bool, endSession: Bool) throws {
  let context = global.context()
  let names = all ? (try context.config()?.profiles.map(\.name) ?? []) : [nil]
  var incomplete = false
  var any = false
  for name in names {
    let session = try TokenBroker(context: context, options: global, profile: name)
    let tokens = try session.store.load(session.key)
    // A machine profile may hold only its APIs' tokens, or only a stored secret (logout forgets it).
    let hadSecret = hasStoredSecret(session)
    // A proxy password setup-proxy kept: logout forgets it, revoke keeps it (read once, not decoded).
    let proxyKey = session.key.with(slot: Context.proxyPasswordSlot)
    let keptProxy = try? context.secretStore(for: session.resolved.store).load(proxyKey)
    let machineHeld = session.isMachine && (!((try? session.store.keys()) ?? []).isEmpty || hadSecret)
    guard tokens != nil || machineHeld || (endSession && keptProxy != nil) else {
      if !all {
        Console.writeStderr(
          "strivacity: \(session.name) \(session.isMachine ? "holds no tokens" : "was not signed in")\n")
      }
      continue
    }
    any = true
    var done: [String] = []
    var failed: [String] = []
    var revokedAPIs = 0
    if !local {
      do {
        let tenant = session.tenantClient
        let discovery = try tenant.discovery()
        if discovery.revocationEndpoint != nil {
          let endpoint = try tenant.endpoint(\.revocationEndpoint, "revocation endpoint")
          let held = [
            (tokens?.refreshToken?.value, RevocationRequest.Hint.refreshToken),
            (tokens?.accessToken.value, .accessToken),
          ]
          // Every API's access token too (RFC 7009 §2.1: token_type_hint=access_token).
          let apis = apiAccessTokens(session).map { (Optional($0.token), RevocationRequest.Hint.accessToken, $0.what) }
          for (token, hint, api) in held.map({ ($0.0, $0.1, String?.none) }) + apis {
            guard let token else { continue }
            let what = api ?? (hint == .refreshToken ? "refresh token" : "access token")
            do {
              // A machine proves itself here too (RFC 7009 §2.1), with a new assertion each time.
              let client =
                session.isMachine
                ? try session.machineClient(tokenEndpoint: try tenant.endpoint(\.tokenEndpoint, "token endpoint"))
                : .none(clientID: session.clientID)
              let revocation = RevocationRequest(token: token, hint: hint, client: client)
              let response = try tenant.send(revocation.httpRequest(url: endpoint))
              if response.status == 200 {
                if api == nil { done.append("revoked the \(what)") } else { revokedAPIs += 1 }
              } else {
                failed.append("the \(what) (HTTP \(response.status))")
              }
            } catch {
              failed.append("the \(what) (\(error))")
            }
          }
          if revokedAPIs > 0 { done.append("revoked \(revokedAPIs) API access token\(revokedAPIs == 1 ? "" : "s")") }
        }
        if endSession, let idToken = tokens?.idToken, discovery.endSessionEndpoint != nil {
          let endpoint = try tenant.endpoint(\.endSessionEndpoint, "end-session endpoint")
          let hint = [("id_token_hint", idToken.value), ("client_id", session.clientID)]
          let url = FormURLEncoding.appending(hint, to: endpoint)
          do {
            let response = try tenant.send(HTTPRequest(url: url, headers: [HTTPHeader("Accept", "text/html")]))
            if (200..<400).contains(response.status) {
              done.append("ended the session")
            } else {
              failed.append("the session (HTTP \(response.status))")
            }
          } catch {
            failed.append("the session (\(error))")
          }
        }
      } catch {
        failed.append("anything at \(session.tenant) (\((error as? CLIFailure)?.message ?? "\(error)"))")
      }
    }
    // Under the refresh lock: a refresh in flight would otherwise store its new set after this
    // delete and bring the tokens back. Token sets only: kept secrets are another kind of item.
    try withExtendedLifetime(try RefreshLock(directory: context.paths.runtimeDir, profile: session.name, timeout: 45)) {
      _ = try session.store.delete(profile: session.name, .tokens)
    }
    var deleted = ["deleted the stored tokens"]
    // logout forgets a machine's stored secret and a kept proxy password too; revoke keeps them
    // (the profile stays usable): nothing is deleted and put back.
    if endSession && (hadSecret || keptProxy != nil) {
      do {
        try session.secretStore().delete(profile: session.name, .keptSecrets)
        if hadSecret { deleted.append("the stored client secret") }
        if keptProxy != nil { deleted.append("the kept proxy password") }
      } catch {
        incomplete = true
        Console.warning(
          "\(session.name): the stored secrets could not be deleted: "
            + (CLIFailure(recognising: error)?.message ?? "\(error)"))
      }
    }
    let summary = (done + [deleted.joined(separator: " and ")]).joined(separator: ", ")
    Console.writeStderr("strivacity: \(session.name): \(summary)\n")
    if !failed.isEmpty {
      incomplete = true
      Console.warning(
        "\(session.name): could not revoke \(failed.joined(separator: "; ")); those may stay valid until they expire")
    }
  }
  if all && !any { Console.writeStderr("strivacity: no profile was signed in\n") }
  if incomplete { throw CLIFailure("", status: .transient) }
}

/// Whether a secret from `login --client-secret-stdin` is kept for a machine profile (read once,
/// never decoded here). A keyring that cannot be reached (a container without D-Bus) holds none
/// that matters here.
private func hasStoredSecret(_ session: TokenBroker) -> Bool {
  guard session.isMachine else { return false }
  return (try? session.secretStore().load(session.key(for: TokenBroker.secretSlot))) != nil
}

/// The access tokens of `session`'s APIs (configured and ad hoc: every slot stored beside the
/// sign-in's for the same tenant and client), each with how a message names it. What cannot be
/// read is left out: it is deleted all the same.
private func apiAccessTokens(_ session: TokenBroker) -> [(token: String, what: String)] {
  let keys = (try? session.store.keys()) ?? []
  // (keys() lists token sets only: a kept secret is never sent to be revoked.)
  return keys.filter {
    $0.profile == session.name && $0.issuer == session.key.issuer && $0.clientID == session.clientID
      && $0.slot != .signIn && !$0.slot.holdsSecret
  }
  .compactMap { key in
    guard let tokens = try? session.store.load(key) else { return nil }
    let name = key.slot.name ?? ""
    return (tokens.accessToken.value, "access token of " + (name.hasPrefix("adhoc.") ? "an ad hoc API" : "API \(name)"))
  }
}
