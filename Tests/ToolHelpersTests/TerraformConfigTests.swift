import StrivacityConfig
import StrivacityCore
import Testing
import ToolHelpers

@Suite struct TerraformConfigTests {
  let block = "credentials_helper \"strivacity\" {\n  args = []\n}\n"

  @Test func addsTheBlockAndKeepsEveryOtherByte() throws {
    let text = """
      # mine
      plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"
      /* credentials_helper "old" {
      } */
      provider_installation {
        network_mirror {
          url = "https://mirror.example.com/{x}/"  // a brace in a string
        }
        direct { exclude = ["example.com/*/*"] }
      }
      credentials "app.terraform.io" { token = "abc" }
      note = <<EOT
      credentials_helper "x" {
      EOT
      """
    let set = try TerraformConfig.settingHelper(text)
    #expect(set == text + "\n\n" + block)
    #expect(TerraformConfig.credentialsHosts(text) == ["app.terraform.io"])
    #expect(try TerraformConfig.settingHelper(set) == set, "set twice: the same file")
    #expect(try TerraformConfig.removingHelper(set) == text + "\n")
    #expect(try TerraformConfig.removingHelper(text) == nil, "nothing of ours to remove")
  }

  @Test func anEmptyOrMissingFileGetsTheBlockAlone() throws {
    #expect(try TerraformConfig.settingHelper("") == block)
    #expect(try TerraformConfig.removingHelper(block) == "")
    let withNewline = "disable_checkpoint = true\n"
    let set = try TerraformConfig.settingHelper(withNewline)
    #expect(set == withNewline + "\n" + block)
    #expect(try TerraformConfig.removingHelper(set) == withNewline, "setup then undo: the file as it was")
  }

  @Test func ourOwnBlockIsRewrittenInPlace() throws {
    let text = "a = 1\ncredentials_helper strivacity {\n  args = [\"--old\"]\n}\nb = 2\n"
    #expect(try TerraformConfig.settingHelper(text) == "a = 1\n" + block + "b = 2\n")
    #expect(try TerraformConfig.removingHelper(text) == "a = 1\nb = 2\n")
    let oneLine = "credentials_helper \"strivacity\" { args = [] } # ours\n"
    #expect(try TerraformConfig.settingHelper(oneLine) == block)
  }

  @Test func anotherHelperIsNeverReplaced() throws {
    let text = "credentials_helper \"credstore\" {\n  args = [\"--host=credstore.example.com\"]\n}\n"
    #expect(throws: TerraformConfig.Refusal.otherHelper("credstore")) { try TerraformConfig.settingHelper(text) }
    #expect(try TerraformConfig.removingHelper(text) == nil)
    let two = block + "credentials_helper \"x\" {}\n"
    #expect(throws: TerraformConfig.Refusal.self) { try TerraformConfig.settingHelper(two) }
  }

  @Test func whatCannotBePlacedIsRefusedWithTheLinesToAdd() {
    for text in [
      "{\"credentials_helper\": {\"x\": {}}}\n",  // JSON
      "provider_installation {\n",  // unbalanced
      "a = \"${x}\"\nb = /* open\n",
      "x = <<EOT\nnever closed\n",
      "credentials_helper \"strivacity\" {\n} a = 1\n",
      "credentials \"h\" {} credentials_helper \"x\" {\n}\n",
    ] {
      do {
        _ = try TerraformConfig.settingHelper(text)
        Issue.record("\(text.debugDescription) was edited")
      } catch {
        #expect(error.description.contains("credentials_helper \"strivacity\" {"), "\(error)")
      }
    }
  }
}

@Suite struct TerraformConfigLineEndingTests {
  /// Lines end at the byte: carriage returns (a file from Windows, or stray ones) are kept, and a
  /// second setup finds the block the first wrote (the fuzzer's "\r\r\r").
  @Test func carriageReturnsDoNotHideLines() throws {
    for text in ["\r\r\r", "a = 1\r\n", "credentials_helper \"strivacity\" {\r\n  args = []\r\n}\r\n"] {
      let set = try TerraformConfig.settingHelper(text)
      #expect(try TerraformConfig.settingHelper(set) == set, "\(text.debugDescription)")
      #expect(try TerraformConfig.removingHelper(set) != nil, "\(text.debugDescription)")
    }
  }
}
