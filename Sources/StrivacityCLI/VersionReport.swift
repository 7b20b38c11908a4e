// `strivacity --version --verbose`: what a bug report needs: the build (commit, compiler) and the
// libraries this machine gives it, loaded as a real call would load them.
import Broker
import CBuildInfo
import CCurlShim
import CSecretShim
import StrivacityCore
import SystemIO

enum VersionReport {
  /// True for `--version` with `--verbose` (or `-v`) and nothing else.
  static func asked(_ arguments: [String]) -> Bool {
    arguments.contains("--version") && arguments.contains { $0 == "--verbose" || $0 == "-v" }
      && arguments.allSatisfy { ["--version", "--verbose", "-v"].contains($0) }
  }

  static func text() -> String {
    var errors = [CChar](repeating: 0, count: 256)
    let curl = sc_load(&errors, errors.count) == 0 ? sc_version().map { String(cString: $0) } : nil
    let curlProblem = String(decoding: errors.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    errors = [CChar](repeating: 0, count: 256)
    _ = ss_load(&errors, errors.count)
    let secretProblem = String(decoding: errors.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let maps = loadedObjects()
    func library(_ soname: String, version: String?, problem: String) -> String {
      guard let path = maps.first(where: { ($0.split(separator: "/").last ?? "").hasPrefix(soname) }) else {
        return "not loaded: \(problem)"
      }
      let package = debianPackage(of: path).map { ", Debian package \($0)" } ?? ""
      return (version.map { $0 + " " } ?? "") + "(\(path)\(package))"
    }
    return """
      strivacity \(strivacityVersion)
      commit:    \(String(cString: strivacity_build_commit()))
      compiler:  \(String(cString: strivacity_build_swift())) (the Swift runtime is the compiler's)
      libcurl:   \(library("libcurl.so", version: curl, problem: curlProblem))
      libsecret: \(library("libsecret-1.so", version: "(no version call)", problem: secretProblem))

      """
  }

  /// The shared objects mapped into this process (/proc/self/maps), absolute paths.
  private static func loadedObjects() -> [String] {
    guard case .contents(let bytes) = readFile("/proc/self/maps") else { return [] }
    var paths: [String] = []
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      guard let slash = line.firstIndex(of: "/") else { continue }
      let path = String(line[slash...])
      if path.contains(".so"), !paths.contains(path) { paths.append(path) }
    }
    return paths
  }

  /// "libcurl4 7.88.1-10+deb12u15" from dpkg's database, where there is one.
  private static func debianPackage(of path: String) -> String? {
    guard isExecutable("/usr/bin/dpkg-query"),
      let owner = try? runProgram(["dpkg-query", "-S", path], quiet: true), owner.status == 0,
      let name = owner.output.split(separator: ":").first.map(String.init), !name.isEmpty, !name.contains(" "),
      let version = try? runProgram(["dpkg-query", "-W", "-f", "${Version}", name], quiet: true), version.status == 0
    else { return nil }
    return "\(name) \(version.output)"
  }
}
