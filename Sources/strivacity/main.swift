import StrivacityCLI

Strivacity.runMain()
