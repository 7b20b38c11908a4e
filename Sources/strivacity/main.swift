import Glibc
import Launcher

// A cached access token is answered here (HotPath.swift); everything else is the full command
// line's, in this same process (Launcher.swift).
switch HotPath.answer(commandLineArguments()) {
case .answered: exit(0)
case .failed(let status): exit(status)
case .handOff(let stdin): Launcher.handOff(stdin: stdin)
}
