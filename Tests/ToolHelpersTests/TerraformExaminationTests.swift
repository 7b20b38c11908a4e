// doctor's reading of Terraform's set-up (TerraformExamination): which helper a CLI config
// names, the hosts credentials.tfrc.json holds tokens for, the TF_TOKEN_… variables of a host.
import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct TerraformExaminationTests {
  @Test func theHelperAFileNames() {
    let ours = "plugin_cache_dir = \"/tmp\"\n\ncredentials_helper \"strivacity\" {\n  args = []\n}\n"
    #expect(TerraformExamination.helper(ours) == .ours)
    #expect(TerraformExamination.helper("credentials_helper \"pass\" {\n}\n") == .other("pass"))
    #expect(TerraformExamination.helper("") == .none)
    #expect(TerraformExamination.helper("# credentials_helper \"strivacity\" {}\n") == .none)
    #expect(TerraformExamination.helper("{\"credentials_helper\": {\"strivacity\": {}}}") == .unreadable)
    #expect(TerraformExamination.helper("credentials_helper \"strivacity\" {\n") == .unreadable)
  }

  /// The whole-host APIs of the profile that no earlier profile's API serves.
  @Test func theHostsAProfileServes() throws {
    let config = try Config.parse(
      """
      [profiles.first]
      tenant = "https://a.example"
      client_id = "a"
      [profiles.first.apis.shared]
      url = "shared.example.com"

      [profiles.work]
      tenant = "https://w.example"
      client_id = "w"
      [profiles.work.apis.tfe]
      url = "tfe.example.com:8443"
      [profiles.work.apis.part]
      url = "https://part.example.com/v1/"
      [profiles.work.apis.shared]
      url = "https://shared.example.com"
      """, path: "config.toml")
    let work = try #require(config.profiles.first { $0.name == "work" })
    #expect(TerraformExamination.hosts(of: work, in: config.profiles) == ["tfe.example.com:8443"])
  }

  @Test func savedHosts() {
    let json = #"{"credentials":{"TFE.example.com":{"token":"x"},"app.terraform.io":{"token":"y"}}}"#
    #expect(TerraformExamination.savedHosts(Array(json.utf8)) == ["app.terraform.io", "tfe.example.com"])
    for hostile in ["", "{", "[]", #"{"credentials":[]}"#, "\u{0}\u{FF}\u{FE}"] {
      #expect(TerraformExamination.savedHosts(Array(hostile.utf8)).isEmpty)
    }
  }

  @Test func tokenVariablesAsTerraformReadsTheirNames() {
    let environment = [
      "TF_TOKEN_tfe_example_com": "a", "TF_TOKEN_TFE_EXAMPLE_COM": "b", "TF_TOKEN_my__tfe_example_com": "c",
      "TF_TOKEN_other_example_com": "d", "TF_TOKEN_tfe_example_com_": "e", "XTF_TOKEN_tfe_example_com": "f",
      "TF_TOKEN_tfe_example_org": "",
    ]
    #expect(
      TerraformExamination.tokenVariables(for: "tfe.example.com", in: environment) == [
        "TF_TOKEN_TFE_EXAMPLE_COM", "TF_TOKEN_tfe_example_com",
      ])
    #expect(
      TerraformExamination.tokenVariables(for: "my-tfe.example.com", in: environment) == [
        "TF_TOKEN_my__tfe_example_com"
      ])
    #expect(TerraformExamination.tokenVariables(for: "tfe.example.org", in: environment).isEmpty)
  }
}
