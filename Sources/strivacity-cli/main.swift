import StrivacityCLI

// The full command line, run by `strivacity` (Sources/strivacity) for all but the hot path.
Strivacity.runMain()
