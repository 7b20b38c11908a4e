// Words for a POSIX shell: the commands strivacity's messages name, the emulator's listings.

public enum Shell {
  /// A word as a POSIX shell reads it back: as is when plain, else in single quotes.
  public static func word(_ word: String) -> String {
    let plain =
      !word.isEmpty
      && word.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
          || "_-./:@%+=,".utf8.contains(byte)
      }
    if plain { return word }
    return "'" + word.replacing("'", with: "'\\''") + "'"
  }
}
