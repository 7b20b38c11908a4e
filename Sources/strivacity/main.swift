import Glibc
import StrivacityCLI

// A cached access token is answered before the command tree starts (HotPath.swift).
if HotPath.answer(commandLineArguments()) { exit(0) }
Strivacity.runMain()
