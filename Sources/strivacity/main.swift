import Launcher
import StrivacityCore
import SystemIO

// A cached access token is answered here (HotPath.swift); everything else is the full command
// line's, in this same process (Launcher.swift).
switch HotPath.answer(commandLineArguments()) {
case .answered: exitProcess(ExitStatus.ok.rawValue)
case .failed(let status): exitProcess(status.rawValue)
case .handOff(let stdin): Launcher.handOff(stdin: stdin)
}
