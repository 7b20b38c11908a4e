// `strivacity status`: what a profile is configured for and what it holds, never a secret.
import ArgumentParser
import Glibc
import SecretStore
import StrivacityCore

struct Status: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a profile's tenant, client, store and sign-in state (never a secret).")

  @OptionGroup var global: GlobalOptions

  func run() throws {
    let context = global.context()
    let resolved = try context.resolveProfile(global)
    let configPath = context.paths.config
    let tenant = try resolved.requireTenant(configPath: configPath)
    let clientID = try resolved.requireClientID(configPath: configPath)
    let store = context.store(for: resolved.store)
    if resolved.store == .file { Console.warning(FileStore.warning) }
    let key = StoreKey(profile: resolved.name, issuer: TenantURL.base(tenant), clientID: clientID)
    let tokens = try store.load(key)
    var lines = [
      ("profile", resolved.name),
      ("tenant", tenant),
      ("client", clientID),
      ("store", resolved.store.rawValue),
    ]
    if let tokens {
      let now = Int64(time(nil))
      lines.append(("signed in", "yes"))
      if let expiresAt = tokens.expiresAt {
        let left = expiresAt - now
        lines.append(("access token", left > 0 ? "expires in \(Duration.describe(seconds: left))" : "expired \(Duration.describe(seconds: -left)) ago"))
      }
      lines.append(("refresh token", tokens.refreshToken == nil ? "none" : "held"))
      if let scope = tokens.scope { lines.append(("scopes", scope)) }
    } else {
      lines.append(("signed in", "no (run `strivacity login\(resolved.name == "default" ? "" : " --profile \(resolved.name)")`)"))
    }
    let width = 13  // "refresh token": a fixed column keeps the output stable for scripts
    Console.writeStdout(lines.map { $0.0.padding(to: width) + "  " + $0.1 }.joined(separator: "\n") + "\n")
    // The table already says so; the exit code tells scripts.
    if tokens == nil { throw CLIFailure("", status: .signInRequired) }
  }
}

enum Duration {
  static func describe(seconds: Int64) -> String {
    switch seconds {
    case ..<120: return "\(seconds) s"
    case ..<7200: return "\(seconds / 60) min"
    case ..<172_800: return "\(seconds / 3600) h"
    default: return "\(seconds / 86400) days"
    }
  }
}

extension String {
  func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
