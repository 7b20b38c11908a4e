// Every helper's one stderr line for a host under no API, said alike by the small binary and by
// the full command line (issue 47, point 5), and its protocol's failure shape on stdout.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct HelperVoiceEndToEndTests {
  /// The small binary (through the tool's link or flag) and the full command line (its subcommand).
  func both(_ h: Harness, link: String?, subcommand: String, _ words: [String], stdin: String?) throws
    -> [ProcessResult]
  {
    var small = [TestEnvironment.binary("strivacity")]
    if let link {
      let directory = h.home.file("helper-bin")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      small = [directory + "/" + link]
      if !FileManager.default.fileExists(atPath: small[0]) {
        try FileManager.default.createSymbolicLink(
          atPath: small[0], withDestinationPath: TestEnvironment.binary("strivacity"))
      }
    }
    return [
      try run(small + (link == nil ? ["--cargo-plugin"] : words), environment: h.environment, stdin: stdin),
      try run(
        [TestEnvironment.binary("strivacity-cli"), subcommand] + (link == nil ? [] : words), environment: h.environment,
        stdin: stdin),
    ]
  }

  @Test func dockerNamesTheAPIsAndTheSetupCommand() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("\n[profiles.\(h.profile).apis.registry]\nurl = \"registry.example.com\"\n")
    for result in try both(
      h, link: "docker-credential-strivacity", subcommand: "docker-credential", ["get"],
      stdin: "other.example.com\n")
    {
      #expect(result.status == 1 && result.stdout == "credentials not found in native keychain\n")
      #expect(
        result.ownStderr == "strivacity: error: docker credential: no API covers other.example.com (the APIs are "
          + "registry.example.com): run `strivacity setup docker --registry other.example.com --api NAME`",
        "\(result.stderr)")
    }
  }

  @Test func terraformSaysAHostOfTheProfilesOnlyAndAnswersEmpty() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("hosts = [\"tf.example.net\"]")
    for result in try both(
      h, link: "terraform-credentials-strivacity", subcommand: "terraform-credential",
      ["get", "tf.example.net"], stdin: nil)
    {
      #expect(result.status == 0 && result.stdout == "{}\n")
      #expect(
        result.ownStderr == "strivacity: error: terraform credentials: no API covers tf.example.net (no profile has "
          + "an API): run `strivacity setup terraform tf.example.net --api NAME`", "\(result.stderr)")
    }
    // A host the profile does not name (Terraform asks about every host it meets): `{}` alone.
    for result in try both(
      h, link: "terraform-credentials-strivacity", subcommand: "terraform-credential",
      ["get", "registry.terraform.io"], stdin: nil)
    {
      #expect(result.status == 0 && result.stdout == "{}\n" && result.ownStderr.isEmpty, "\(result.stderr)")
    }
  }

  @Test func cargoSaysARegistryUnderNoneOfTheProfilesPlaces() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("hosts = [\"127.0.0.1:9\"]")
    let line =
      "{\"v\":1,\"registry\":{\"index-url\":\"sparse+https://crates.other.example/\"},\"kind\":\"get\","
      + "\"operation\":\"read\",\"args\":[\"--profile\",\"\(h.profile)\"]}\n"
    for result in try both(h, link: nil, subcommand: "cargo-credential", [], stdin: line) {
      #expect(result.status == 0)
      #expect(result.stdout.hasSuffix("{\"Err\":{\"kind\":\"url-not-supported\"}}\n"), "\(result.stdout)")
      #expect(
        result.ownStderr.hasPrefix(
          "strivacity: error: cargo credential: no API covers https://crates.other.example/ (no profile has an API)")
          && result.ownStderr.contains("strivacity setup cargo") && !result.ownStderr.contains("\n"),
        "\(result.stderr)")
    }
  }
}
