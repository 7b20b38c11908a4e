// What `strivacity setup terraform` writes besides the CLI config's block (TerraformConfig), and
// what it warns of, as values: the helper's link in Terraform's plugin directory, and what
// Terraform uses for a host before asking any helper.
import StrivacityCore

public enum TerraformSetup {
  /// The link to strivacity Terraform runs as its credentials helper.
  public static func link(home: String) -> String {
    home + "/.terraform.d/plugins/terraform-credentials-\(TerraformConfig.helperName)"
  }

  /// Where `terraform login` saves tokens.
  public static func savedTokens(home: String) -> String { home + "/.terraform.d/credentials.tfrc.json" }

  /// What Terraform uses for `host` before asking strivacity, each a sentence with its fix: a
  /// credentials block in one of `credentialsBlocks` (files), the host's TF_TOKEN_… variable,
  /// a token saved in `saved` (the bytes of the file at `savedPath`).
  public static func earlierTokens(
    _ host: String, credentialsBlocks: [String], environment: [String: String], saved: [UInt8]?, savedPath: String
  ) -> [String] {
    var found = credentialsBlocks.map {
      "\($0) has a credentials \"\(host)\" block, which terraform uses before asking strivacity: remove it"
    }
    if let variable = TerraformCredentialProtocol.tokenVariable(host), environment[variable] != nil {
      found.append("\(variable) is set, and terraform uses it before asking strivacity: unset it")
    }
    if let saved,
      JSONValue.parse(saved)?["credentials"]?.object?.keys.contains(where: { $0.lowercased() == host }) == true
    {
      found.append(
        "\(savedPath) holds a token for \(host) (from terraform login), which terraform uses before asking "
          + "strivacity: remove the host from it")
    }
    return found
  }
}
