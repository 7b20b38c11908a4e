// doctor's reading of Terraform's set-up (TerraformExamination): which helper a CLI config
// names, the hosts credentials.tfrc.json holds tokens for, the TF_TOKEN_… variables of a host.
import StrivacityCore
import Testing

@testable import TerraformCredential

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
