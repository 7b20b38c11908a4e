// The one place the version is set: `strivacity --version`, `strivacity-emulator --version`,
// the man page and the packages (packaging/ reads it from the built binary) all take it from here.
public let strivacityVersion = "0.1.0"
