// `logout` and `revoke` for one profile: every token it holds revoked at the tenant (RFC 7009),
// the session ended (logout), the token sets deleted under the refresh lock, and (logout) the
// kept secrets deleted from their own store. The command line says the report.
import OAuthCore
import SecretStore
import StrivacityCore

/// What signing a profile out did, in words for the one line the command says.
package struct SignOutReport {
  /// "revoked the refresh token", "ended the session", …
  package var done: [String] = []
  /// What could not be revoked or ended, and why: "the access token (HTTP 503)".
  package var failed: [String] = []
  /// "deleted the stored tokens", "the stored client secret", …
  package var deleted: [String] = []
  /// Why the kept secrets logout deletes could not be deleted (they are still there).
  package var secretsKept: String?
}

extension TokenBroker {
  /// Revokes what the profile holds (unless `local`), ends the session at the tenant and deletes
  /// the kept secrets too with `endSession` (logout; revoke keeps them, so the profile stays
  /// usable), and deletes its token sets. nil when it holds nothing to sign out of.
  package func signOut(local: Bool, endSession: Bool) throws -> SignOutReport? {
    let tokens = try store.load(key)
    // A machine profile may hold only its APIs' tokens, or only a stored secret (logout forgets it).
    let hadSecret = hasStoredSecret()
    // A proxy password setup-proxy kept: logout forgets it, revoke keeps it (looked for, not read).
    let keptProxy = (try? secretStore().contains(SecretKey(key, .proxyPassword))) == true
    let machineHeld = !renewal.personSignsIn && (!((try? store.keys()) ?? []).isEmpty || hadSecret)
    guard tokens != nil || machineHeld || (endSession && keptProxy) else { return nil }
    var report = SignOutReport()
    if !local { revokeAtTenant(tokens, endSession: endSession, into: &report) }
    // Under the refresh lock: a refresh in flight would otherwise store its new set after this
    // delete and bring the tokens back. Token sets only: kept secrets are in a store of their own.
    try withExtendedLifetime(try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)) {
      _ = try store.delete(profile: name)
    }
    report.deleted = ["deleted the stored tokens"]
    // logout forgets a machine's stored secret and a kept proxy password too; revoke keeps them
    // (the profile stays usable): nothing is deleted and put back.
    if endSession && (hadSecret || keptProxy) {
      do {
        try secretStore().delete(profile: name)
        if hadSecret { report.deleted.append("the stored client secret") }
        if keptProxy { report.deleted.append("the kept proxy password") }
      } catch {
        report.secretsKept = CLIFailure.describe(error)
      }
    }
    return report
  }

  private func revokeAtTenant(_ tokens: TokenSet?, endSession: Bool, into report: inout SignOutReport) {
    do {
      let tenant = tenantClient
      let discovery = try tenant.discovery()
      if discovery.revocationEndpoint != nil {
        let endpoint = try tenant.endpoint(\.revocationEndpoint, "revocation endpoint")
        let held = [
          (tokens?.refreshToken?.value, RevocationRequest.Hint.refreshToken),
          (tokens?.accessToken.value, .accessToken),
        ]
        var revokedAPIs = 0
        // Every API's access token too (RFC 7009 §2.1: token_type_hint=access_token).
        let apis = apiAccessTokens().map { (Optional($0.token), RevocationRequest.Hint.accessToken, $0.what) }
        for (token, hint, api) in held.map({ ($0.0, $0.1, String?.none) }) + apis {
          guard let token else { continue }
          let what = api ?? (hint == .refreshToken ? "refresh token" : "access token")
          do {
            // A machine proves itself here too (RFC 7009 §2.1), with a new assertion each time.
            let client = try renewer.revocationClient(self)
            let revocation = RevocationRequest(token: token, hint: hint, client: client)
            let response = try tenant.send(revocation.httpRequest(url: endpoint))
            if response.status == 200 {
              if api == nil { report.done.append("revoked the \(what)") } else { revokedAPIs += 1 }
            } else {
              report.failed.append("the \(what) (HTTP \(response.status))")
            }
          } catch {
            report.failed.append("the \(what) (\(CLIFailure.describe(error)))")
          }
        }
        if revokedAPIs > 0 {
          report.done.append("revoked \(revokedAPIs) API access token\(revokedAPIs == 1 ? "" : "s")")
        }
      }
      if endSession, let idToken = tokens?.idToken, discovery.endSessionEndpoint != nil {
        let endpoint = try tenant.endpoint(\.endSessionEndpoint, "end-session endpoint")
        let hint = [("id_token_hint", idToken.value), ("client_id", clientID)]
        let url = FormURLEncoding.appending(hint, to: endpoint)
        do {
          let response = try tenant.send(HTTPRequest(url: url, headers: [HTTPHeader("Accept", "text/html")]))
          if (200..<400).contains(response.status) {
            report.done.append("ended the session")
          } else {
            report.failed.append("the session (HTTP \(response.status))")
          }
        } catch {
          report.failed.append("the session (\(CLIFailure.describe(error)))")
        }
      }
    } catch {
      report.failed.append("anything at \(tenant) (\(CLIFailure.describe(error)))")
    }
  }

  /// Whether a secret from `login --client-secret-stdin` is kept for a machine profile (looked
  /// for, not read). A keyring that cannot be reached (a container without D-Bus) holds none
  /// that matters here.
  private func hasStoredSecret() -> Bool {
    guard renewal.clientProvesItself else { return false }
    return (try? secretStore().contains(secretKey)) == true
  }

  /// The access tokens of the profile's APIs (configured and ad hoc: every slot stored beside the
  /// sign-in's for the same tenant and client), each with how a message names it. What cannot
  /// be read is left out: it is deleted all the same.
  private func apiAccessTokens() -> [(token: String, what: String)] {
    let keys = (try? store.keys()) ?? []
    // (keys() lists token sets only: a kept secret is no token set, never sent to be revoked.)
    return keys.filter {
      $0.profile == name && $0.issuer == key.issuer && $0.clientID == clientID && $0.slot != .signIn
    }
    .compactMap { key in
      guard let tokens = try? store.load(key) else { return nil }
      return (tokens.accessToken.value, "access token of " + (key.slot.apiName.map { "API \($0)" } ?? "an ad hoc API"))
    }
  }
}
