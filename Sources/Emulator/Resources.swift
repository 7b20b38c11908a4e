// Where the emulator's data is (the built-in journeys, Journeys/, and Strivacity's API
// description, Spec/): installed (`make install`, the packages), in ../share/strivacity-emulator
// beside the real path of the executable; in a build tree, SwiftPM's resource bundle beside it.
import Foundation

enum EmulatorResources {
  /// The directory holding Journeys/ and Spec/.
  static let root: URL? = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let installed = executable.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("share/strivacity-emulator")
    if FileManager.default.fileExists(atPath: installed.appendingPathComponent("Journeys").path) { return installed }
    return Bundle.module.resourceURL
  }()

  /// The file `name` in `directory` of the emulator's data, if it is there.
  static func file(_ name: String, in directory: String) -> URL? {
    guard let url = root?.appendingPathComponent(directory).appendingPathComponent(name),
      FileManager.default.fileExists(atPath: url.path)
    else { return nil }
    return url
  }
}
