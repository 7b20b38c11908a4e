import StrivacityConfig
import StrivacityCore
import Testing
import ToolHelpers

@Suite struct CargoConfigTests {
  let provider = ["/usr/bin/strivacity", "--profile", "work"]
  let line = #"credential-provider = ["/usr/bin/strivacity", "--profile", "work"]"#

  @Test func setsTheKeyAndKeepsEveryOtherByte() throws {
    let text = """
      # mine
      [env]
      FOO = { value = "x", relative = true }
      MSG = \"\"\"
      [registries.internal]
      not a header\"\"\"

      [registries.internal]
      index = "sparse+https://r.example.com/index/"  # the registry

      [target.x86_64-unknown-linux-gnu]
      rustflags = [
        "-C", "link-arg=-fuse-ld=lld",
      ]

      """
    let set = try CargoConfig.settingProvider(text, registry: "internal", provider: provider)
    #expect(
      set
        == text.replacing(
          "index = \"sparse+https://r.example.com/index/\"  # the registry\n",
          with: "index = \"sparse+https://r.example.com/index/\"  # the registry\n\(line)\n"))
    // Again: replaced, not added twice; then undone back to the user's text.
    #expect(try CargoConfig.settingProvider(set, registry: "internal", provider: provider) == set)
    #expect(try CargoConfig.removingProvider(set, registry: "internal") { $0.first == provider[0] } == text)
    #expect(try CargoConfig.removingProvider(set, registry: "internal") { _ in false } == nil)
    #expect(CargoConfig.index(set, registry: "internal") == "sparse+https://r.example.com/index/")
  }

  @Test func addsTheTableWhenThereIsNone() throws {
    #expect(
      try CargoConfig.settingProvider("[net]\noffline = true\n", registry: "r", provider: provider)
        == "[net]\noffline = true\n\n[registries.r]\n\(line)\n")
    #expect(try CargoConfig.settingProvider("", registry: "r", provider: provider) == "[registries.r]\n\(line)\n")
  }

  @Test func replacesAMultiLineValue() throws {
    let text = "[registries.r]\ncredential-provider = [\n  \"other\",\n]\nindex = \"x\"\n"
    #expect(
      try CargoConfig.settingProvider(text, registry: "r", provider: provider)
        == "[registries.r]\n\(line)\nindex = \"x\"\n")
  }

  @Test func refusesWhatItCannotPlaceForCertain() {
    for text in [
      "registries.r.index = \"x\"\n", "[registries]\nr = { index = \"x\" }\n",
      "[registries.r]\nindex = \"x\"\n[registries.r]\n", "[registries.r]\nx = [\n",
    ] {
      #expect(throws: AdmissionError.self, "\(text)") {
        try CargoConfig.settingProvider(text, registry: "r", provider: provider)
      }
    }
    #expect(throws: AdmissionError.self) { try CargoConfig.admitRegistry("a.b") }
    #expect(throws: AdmissionError.self) { try CargoConfig.admitRegistry("") }
  }
}
