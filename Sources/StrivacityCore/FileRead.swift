/// What reading a whole (small) file gave: SystemIO's `readFile` reads it, pure code takes the
/// answer (`Config.load`).
public enum FileRead {
  case contents([UInt8])
  case missing
  case failed(String)
}
